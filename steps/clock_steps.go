package steps

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
)

// Steps of features/clock.feature: the lab clock (CLK-1) and scenario
// names that do not depend on start order (CLK-2). The CLK-2 steps run the
// harness on a scratch project (see harness_steps.go) with a tag filter
// or a concurrency, and list the goldens it wrote.
func clockSteps(r *table) {
	const c = "Answer checks"
	r.step(c, `^the clock reads (\d+) ms since the start$`,
		"the main page's clock: the lab's virtual time live, the recording's time replayed; both start at the scenario's start and move only when the engine waits",
		"Then the clock reads 300 ms since the start", clockReads)

	const g = "The harness itself"
	r.step(g, `^I run the harness on "([^"]*)" with --update at concurrency (\d+)$`,
		"run the suite (replay driver) on that feature of the scratch project with that many scenarios at once, rewriting its golden traces",
		`When I run the harness on "twins.feature" with --update at concurrency 3`, harnessRunConcurrent)
	r.step(g, `^I run the harness on "([^"]*)" tagged "([^"]*)" with --update$`,
		"run only the scenarios of that feature matching the tag expression, rewriting their golden traces",
		`When I run the harness on "twins.feature" tagged "@third" with --update`, harnessRunTagged)
	r.step(g, `^the scratch project has exactly the golden traces "([^"]*)"$`,
		"the golden files of the scratch project, comma-separated, and no others",
		`Then the scratch project has exactly the golden traces "twins/same-name, twins/same-name-2"`, harnessExactGoldens)
}

func harnessRunConcurrent(ctx context.Context, name string, n int) error {
	return runHarnessWith(ctx, name, harness.Options{Update: true, Concurrency: n}, trace.A("concurrency", n))
}

func harnessRunTagged(ctx context.Context, name, tags string) error {
	return runHarnessWith(ctx, name, harness.Options{Update: true, Tags: tags}, trace.A("tags", tags))
}

// runHarnessWith runs the scratch project's feature with opt's update,
// tags and concurrency (replay driver, progress output).
func runHarnessWith(ctx context.Context, name string, opt harness.Options, attr trace.Attr) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	opt.Root, opt.Dir, opt.Paths, opt.Format, opt.Output, opt.Stderr = h.root, h.root, []string{filepath.Join("features", name)}, "progress", &out, &out
	s, err := NewRunner(opt, Options{})
	if err != nil {
		return err
	}
	h.exit = s.Run()
	h.output = ansi.ReplaceAllString(out.String(), "")
	worldOf(ctx).log.Emit(trace.E("harness.run", trace.A("feature", name), attr, trace.A("update", opt.Update), trace.A("exit", h.exit)))
	return nil
}

func harnessExactGoldens(ctx context.Context, list string) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	var want []string
	for _, n := range strings.Split(list, ",") {
		want = append(want, strings.TrimSpace(n))
	}
	sort.Strings(want)
	dir := filepath.Join(h.root, "recordings", "golden")
	var got []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".golden") {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, strings.TrimSuffix(filepath.ToSlash(rel), ".golden"))
		}
		return nil
	})
	sort.Strings(got)
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		return fmt.Errorf("the scratch project has the golden traces %q, want %q", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	return nil
}

// clockReads checks the main tab's clock, which live is the world's lab
// clock and replayed is the recording's: exact in both, because lab time
// moves only when the engine sleeps.
func clockReads(ctx context.Context, want int) error {
	w := worldOf(ctx)
	t, ok := w.tabs[mainTab]
	if !ok {
		return fmt.Errorf("no page was opened, so there is no clock to read")
	}
	var d interface{ Now() time.Time }
	switch {
	case t.rec != nil:
		d = t.rec
	case t.replay != nil:
		d = t.replay
	default:
		return fmt.Errorf("the main tab has no clock")
	}
	got := d.Now().Sub(clock.Epoch)
	w.log.Emit(trace.E("clock", trace.A("ms", got.Milliseconds())))
	if got != ms(want) {
		return fmt.Errorf("the clock reads %v since the start, want %v", got, ms(want))
	}
	return nil
}
