package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/report"
	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/vocabulary"
)

// Steps that run the harness on a scratch project with the report, shard
// and retry options, and read the reports it wrote (REP-1 … REP-3; the
// pool's REP-4 steps are in pool_steps.go).

type reportState struct {
	out      string // the last run's report directory
	unshared *report.Run
	merged   *report.Run
	shards   [][]string // scenario ids per shard
}

func reportSteps(r *steps.Table) {
	r.Step(`^I run the harness on "([^"]*)" with "([^"]*)"$`,
		"run the suite (replay driver) on that feature of the scratch project with these options (--retries N, --repeat-each N, --fail-fast, --fail-on-flaky, --update, --shard i/n, --concurrency N), writing JUnit, Cucumber JSON and the HTML report",
		`When I run the harness on "flaky.feature" with "--update --retries 2"`, harnessRunWith)
	r.Step(`^this step fails the first time it runs in the project$`,
		"fails on the scenario's first attempt in this project and passes on every later one (a marker file in the project): a flaky step on purpose, to test retries",
		"And this step fails the first time it runs in the project", failFirstTime)
	r.Step(`^the run's summary counts (\d+) passed, (\d+) failed and (\d+) flaky scenarios?$`,
		"the summary of the HTML report's model (report.json) of the last harness run",
		"Then the run's summary counts 1 passed, 0 failed and 1 flaky scenario", reportSummary)
	r.Step(`^every report shows "([^"]*)" as flaky with the error of its first attempt$`,
		"JUnit has a <flakyFailure> with attempt 1's error in a passed testcase, Cucumber JSON tags the scenario @flaky with the error, the HTML report's model and page say flaky",
		`And every report shows "Fails once" as flaky with the error of its first attempt`, reportFlaky)
	r.Step(`^the scenario "([^"]*)" was attempted (\d+) times?$`,
		"how many attempts the report holds for the scenario (every repetition and retry)",
		`And the scenario "Fails once" was attempted 2 times`, reportAttempts)
	r.Step(`^I run the harness on "([^"]*)" as (\d+) shards and merge their reports$`,
		"run each shard (--shard i/n) with an HTML report, then merge-reports them, and also run the whole selection unsharded",
		`When I run the harness on "many.feature" as 4 shards and merge their reports`, harnessShards)
	r.Step(`^the merged report has the scenarios, counts and outcomes of the unsharded run$`,
		"compare the merged model with the unsharded run's: scenario ids, each outcome, the summary counts",
		"Then the merged report has the scenarios, counts and outcomes of the unsharded run", reportMergedMatches)
	r.Step(`^every scenario ran in exactly one shard and no shard was empty$`,
		"the shards partition the selection",
		"And every scenario ran in exactly one shard and no shard was empty", reportShardsPartition)
	r.Step(`^the scratch project holds the repository's "([^"]*)" with its recordings$`,
		"copy a feature file of this repository and its sessions and goldens into the scratch project",
		`Given the scratch project holds the repository's "answer_groups.feature" with its recordings`, harnessCopyFeature)
	r.Step(`^the HTML report is self-contained and its captures of "([^"]*)" show "([^"]*)" in the element the engine typed into$`,
		"the page fetches nothing (no external script, style, font or frame), the scenario's recorded captures decode, and a capture holds the text in the element a type action targeted",
		`Then the HTML report is self-contained and its captures of "A partial answer is followed to completion in the new group (marker)" show "What is the capital of France?" in the element the engine typed into`, reportTimeTravel)
}

func harnessReports(ctx context.Context) (*harnessState, *reportState, error) {
	h, err := scratchProject(ctx)
	if err != nil {
		return nil, nil, err
	}
	return h, steps.State[reportState](steps.WorldOf(ctx)), nil
}

// harnessOptions reads the options of harnessRunWith.
func harnessOptions(args string) (harness.Options, error) {
	fs := flag.NewFlagSet("harness", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	retries := fs.Int("retries", 0, "")
	repeat := fs.Int("repeat-each", 0, "")
	failFast := fs.Bool("fail-fast", false, "")
	failOnFlaky := fs.Bool("fail-on-flaky", false, "")
	update := fs.Bool("update", false, "")
	shard := fs.String("shard", "", "")
	conc := fs.Int("concurrency", 1, "")
	if err := fs.Parse(strings.Fields(args)); err != nil {
		return harness.Options{}, fmt.Errorf("harness options %q: %w", args, err)
	}
	opt := harness.Options{Update: *update, Concurrency: *conc,
		Scale: harness.Scale{Retries: *retries, RepeatEach: *repeat, FailFast: *failFast, FailOnFlaky: *failOnFlaky}}
	if *shard != "" {
		sh, err := harness.ParseShard(*shard)
		if err != nil {
			return harness.Options{}, err
		}
		opt.Scale.Shard = sh
	}
	return opt, nil
}

// runHarnessOpts runs the scratch project's feature with opt, its reports
// in out.
func runHarnessOpts(ctx context.Context, name string, opt harness.Options, out string) error {
	h, r, err := harnessReports(ctx)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	opt.Root = h.root
	opt.Paths = []string{filepath.Join("features", name)}
	opt.Output = &buf
	opt.Scale.Stderr = &buf
	opt.Format = "progress,junit:" + filepath.Join(out, "junit.xml") + ",cucumber:" + filepath.Join(out, "cucumber.json") + ",html:" + filepath.Join(out, "html")
	opt.Format += ",message:" + filepath.Join(out, messagesName) + ",github:" + filepath.Join(out, githubName)
	// the flaky scenarios use the self-test step that fails once
	s, err := vocabulary.NewRunner(opt, steps.Options{SelfTests: true, Groups: Groups()})
	if err != nil {
		return err
	}
	h.exit = s.Run()
	h.output = ansi.ReplaceAllString(buf.String(), "")
	r.out = out
	steps.WorldOf(ctx).Emit(trace.E("harness.run", trace.A("feature", name), trace.A("shard", opt.Scale.Shard.String()),
		trace.A("retries", opt.Scale.Retries), trace.A("exit", h.exit)))
	return nil
}

func harnessRunWith(ctx context.Context, name, args string) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	opt, err := harnessOptions(args)
	if err != nil {
		return err
	}
	return runHarnessOpts(ctx, name, opt, filepath.Join(h.root, "out"))
}

// failFirstTime fails on the scenario's first attempt in the project.
func failFirstTime(ctx context.Context) error {
	w := steps.WorldOf(ctx)
	marker := filepath.Join(w.Root(), ".replaylab-flaky", strings.ReplaceAll(w.Slug(), "/", "__"))
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(marker, []byte("failed once\n"), 0o644); err != nil {
		return err
	}
	return errors.New("failing on purpose: the first attempt of this scenario in this project")
}

func loadModel(ctx context.Context) (*report.Run, error) {
	_, r, err := harnessReports(ctx)
	if err != nil {
		return nil, err
	}
	if r.out == "" {
		return nil, errors.New("no harness run wrote reports yet")
	}
	return report.Load(filepath.Join(r.out, "html", report.ModelFile))
}

func reportSummary(ctx context.Context, passed, failed, flaky int) error {
	m, err := loadModel(ctx)
	if err != nil {
		return err
	}
	s := m.Summary
	if s.Passed != passed || s.Failed != failed || s.Flaky != flaky {
		h, _ := scratchProject(ctx)
		return fmt.Errorf("summary: got %s, want %d passed, %d failed, %d flaky; output:\n%s", s.Line(), passed, failed, flaky, h.output)
	}
	steps.WorldOf(ctx).Emit(trace.E("report.summary", trace.A("passed", s.Passed), trace.A("failed", s.Failed), trace.A("flaky", s.Flaky), trace.A("attempts", s.Attempts)))
	return nil
}

func reportFlaky(ctx context.Context, name string) error {
	_, r, err := harnessReports(ctx)
	if err != nil {
		return err
	}
	m, err := loadModel(ctx)
	if err != nil {
		return err
	}
	var sc *report.Scenario
	for _, s := range m.Scenarios {
		if s.Name == name {
			sc = s
		}
	}
	if sc == nil || sc.Status != report.Flaky || len(sc.Attempts) < 2 || sc.Attempts[0].Error == "" {
		return fmt.Errorf("report.json: %q is not flaky with a failed first attempt: %+v", name, sc)
	}
	firstErr := headLine(sc.Attempts[0].Error)
	// JUnit
	data, err := os.ReadFile(filepath.Join(r.out, "junit.xml"))
	if err != nil {
		return err
	}
	var ju struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Flaky   []struct {
					Message    string `xml:"message,attr"`
					StackTrace string `xml:"stackTrace"`
				} `xml:"flakyFailure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &ju); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	ok := false
	for _, s := range ju.Suites {
		for _, c := range s.Cases {
			if c.Name == name && c.Failure == nil && len(c.Flaky) > 0 && strings.Contains(c.Flaky[0].StackTrace, firstErr) {
				ok = true
			}
		}
	}
	if !ok {
		return fmt.Errorf("junit: no passed testcase %q with a <flakyFailure> holding %q:\n%s", name, firstErr, data)
	}
	// Cucumber JSON
	data, err = os.ReadFile(filepath.Join(r.out, "cucumber.json"))
	if err != nil {
		return err
	}
	var cu []struct {
		Elements []struct {
			Name        string       `json:"name"`
			Description string       `json:"description"`
			Tags        []report.Tag `json:"tags"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(data, &cu); err != nil {
		return fmt.Errorf("cucumber: %w", err)
	}
	ok = false
	for _, f := range cu {
		for _, el := range f.Elements {
			for _, t := range el.Tags {
				if el.Name == name && t.Name == "@flaky" && strings.Contains(el.Description, firstErr) {
					ok = true
				}
			}
		}
	}
	if !ok {
		return fmt.Errorf("cucumber json: %q is not tagged @flaky with %q", name, firstErr)
	}
	// HTML: the page embeds the model it shows
	page, err := os.ReadFile(filepath.Join(r.out, "html", report.HTMLFile))
	if err != nil {
		return err
	}
	if !bytes.Contains(page, []byte(`"status":"flaky"`)) || !bytes.Contains(page, []byte(`"flaky":1`)) {
		return errors.New("the HTML page shows no flaky scenario")
	}
	steps.WorldOf(ctx).Emit(trace.E("report.flaky", trace.A("scenario", name), trace.A("attempts", len(sc.Attempts)), trace.A("formats", "junit,cucumber,html")))
	return nil
}

func reportAttempts(ctx context.Context, name string, want int) error {
	m, err := loadModel(ctx)
	if err != nil {
		return err
	}
	got := 0
	for _, s := range m.Scenarios {
		if s.Name == name {
			got += len(s.Attempts)
		}
	}
	if got != want {
		return fmt.Errorf("%q was attempted %d times, want %d", name, got, want)
	}
	steps.WorldOf(ctx).Emit(trace.E("report.attempts", trace.A("scenario", name), trace.A("attempts", got)))
	return nil
}

func harnessShards(ctx context.Context, name string, n int) error {
	h, r, err := harnessReports(ctx)
	if err != nil {
		return err
	}
	var dirs []string
	r.shards = nil
	for i := 1; i <= n; i++ {
		opt := harness.Options{Scale: harness.Scale{Shard: harness.Shard{Index: i, Count: n}}}
		out := filepath.Join(h.root, fmt.Sprintf("shard-%d", i))
		if err := runHarnessOpts(ctx, name, opt, out); err != nil {
			return err
		}
		if h.exit == 2 {
			return fmt.Errorf("shard %d/%d: exit 2:\n%s", i, n, h.output)
		}
		m, err := report.Load(filepath.Join(out, "html", report.ModelFile))
		if err != nil {
			return err
		}
		var ids []string
		for _, sc := range m.Scenarios {
			ids = append(ids, sc.ID)
		}
		r.shards = append(r.shards, ids)
		dirs = append(dirs, filepath.Join(out, "html"))
	}
	m, err := report.MergeDirs(filepath.Join(h.root, "merged"), dirs...)
	if err != nil {
		return err
	}
	r.merged = m
	if err := runHarnessOpts(ctx, name, harness.Options{}, filepath.Join(h.root, "whole")); err != nil {
		return err
	}
	r.unshared, err = loadModel(ctx)
	if err != nil {
		return err
	}
	steps.WorldOf(ctx).Emit(trace.E("harness.shards", trace.A("feature", name), trace.A("shards", n), trace.A("merged", m.Summary.Scenarios)))
	return nil
}

func reportMergedMatches(ctx context.Context) error {
	_, r, err := harnessReports(ctx)
	if err != nil {
		return err
	}
	if r.merged == nil || r.unshared == nil {
		return errors.New("no sharded run was merged")
	}
	outcomes := func(m *report.Run) []string {
		var out []string
		for _, sc := range m.Scenarios {
			out = append(out, sc.ID+" "+string(sc.Status))
		}
		sort.Strings(out)
		return out
	}
	a, b := outcomes(r.merged), outcomes(r.unshared)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		return fmt.Errorf("merged scenarios and outcomes differ from the unsharded run:\nmerged:\n%s\nunsharded:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	ms, us := r.merged.Summary, r.unshared.Summary
	ms.Duration, us.Duration = 0, 0
	if ms != us {
		return fmt.Errorf("merged summary %s, unsharded %s", ms.Line(), us.Line())
	}
	steps.WorldOf(ctx).Emit(trace.E("report.merged", trace.A("summary", ms.Line())))
	return nil
}

func reportShardsPartition(ctx context.Context) error {
	_, r, err := harnessReports(ctx)
	if err != nil {
		return err
	}
	seen := map[string]int{}
	var sizes []string
	for i, ids := range r.shards {
		if len(ids) == 0 {
			return fmt.Errorf("shard %d/%d ran no scenario", i+1, len(r.shards))
		}
		sizes = append(sizes, fmt.Sprint(len(ids)))
		for _, id := range ids {
			if prev, ok := seen[id]; ok {
				return fmt.Errorf("%s ran in shards %d and %d", id, prev+1, i+1)
			}
			seen[id] = i
		}
	}
	if r.unshared != nil && len(seen) != len(r.unshared.Scenarios) {
		return fmt.Errorf("the shards ran %d scenarios, the selection has %d", len(seen), len(r.unshared.Scenarios))
	}
	steps.WorldOf(ctx).Emit(trace.E("report.shards", trace.A("sizes", strings.Join(sizes, ","))))
	return nil
}

func harnessCopyFeature(ctx context.Context, file string) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	return harness.CopyProject(steps.WorldOf(ctx).Root(), h.root, file)
}

// external are the page constructs that would fetch something.
var external = []string{"<script src", "<link", "@import", "url(", "<iframe src", "<img src=\"http", "<base"}

func reportTimeTravel(ctx context.Context, name, text string) error {
	_, r, err := harnessReports(ctx)
	if err != nil {
		return err
	}
	page, err := os.ReadFile(filepath.Join(r.out, "html", report.HTMLFile))
	if err != nil {
		return err
	}
	// the page's own markup: everything but its JSON data
	own := page
	if i := bytes.Index(page, []byte(`<script type="application/json"`)); i >= 0 {
		own = page[:i]
		if j := bytes.LastIndex(page, []byte("</script>\n<script>")); j >= 0 {
			own = append(append([]byte{}, own...), page[j:]...)
		}
	}
	for _, bad := range external {
		if bytes.Contains(own, []byte(bad)) {
			return fmt.Errorf("the HTML report fetches something: it holds %q", bad)
		}
	}
	if !bytes.Contains(page, []byte(`sandbox`)) || bytes.Contains(page, []byte(`allow-scripts`)) {
		return errors.New("the capture frame is not sandboxed without scripts")
	}
	m, err := loadModel(ctx)
	if err != nil {
		return err
	}
	for _, sc := range m.Scenarios {
		if sc.Name != name {
			continue
		}
		a := sc.Last()
		for _, rec := range a.Recordings {
			s := m.Sessions[rec.Key]
			if s == nil {
				continue
			}
			for i, st := range s.Steps {
				if st.Kind != "type" || i == 0 {
					continue
				}
				// the capture after the typing shows the text in the
				// element typed into
				for _, later := range s.Steps[i+1:] {
					if later.Capture < 0 {
						continue
					}
					html, err := m.CaptureHTML(later.Capture, 0)
					if err != nil {
						return err
					}
					if strings.Contains(html, `data-rl-node="`+st.Node+`"`) && strings.Contains(html, text) {
						steps.WorldOf(ctx).Emit(trace.E("report.timetravel", trace.A("scenario", name), trace.A("typed", text)))
						return nil
					}
					break
				}
			}
		}
		return fmt.Errorf("no capture of %q shows %q in the element typed into", name, text)
	}
	return fmt.Errorf("the report has no scenario %q", name)
}

// headLine is the first line of s.
func headLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
