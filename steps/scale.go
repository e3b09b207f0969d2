package steps

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/replaylab/replaylab/engine/browser"
)

// Scale holds what a run does beyond running each selected scenario once:
// the report files, its shard of the selection, retries and repetitions.
type Scale struct {
	// Shard runs one part of the selected scenarios (zero: all).
	Shard Shard
	// Retries re-runs a failed scenario up to this many times; one that
	// fails and then passes is flaky.
	Retries int
	// RepeatEach runs every scenario this many times (0 or 1: once).
	RepeatEach int
	// FailFast stops at the first failed scenario.
	FailFast bool
	// FailOnFlaky makes a flaky scenario fail the run (default: it
	// passes with a warning line).
	FailOnFlaky bool
	// Pool lists remote Chromium endpoints (CDP websocket URLs) shared by
	// the run's scenarios, each in its own browser context; dead ones
	// are reported once and skipped.
	Pool []string
	// Stderr gets warnings, the report sizes and progress (default
	// os.Stderr).
	Stderr io.Writer
}

// pageOpener opens pages in fresh browser contexts: one browser, or a
// pool of remote ones.
type pageOpener interface {
	NewPage(ctx context.Context) (*browser.Page, error)
	Close() error
}

// startBrowser starts the run's browser, or connects the pool when
// Scale.Pool names endpoints.
func (s *Suite) startBrowser(ctx context.Context) (pageOpener, error) {
	if len(s.opt.Scale.Pool) > 0 {
		p, err := browser.NewPool(ctx, s.opt.Scale.Pool, browser.PoolOptions{Report: s.stderr()})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	b, err := browser.Start(ctx, s.opt.Browser)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Shard is part i of n (1-based) of a run's scenarios.
type Shard struct{ Index, Count int }

// ParseShard reads "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("steps: --shard wants i/n with 1 ≤ i ≤ n (e.g. 2/4), got %q", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// String is "i/n", or "" for no sharding.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

func (s *Suite) stderr() io.Writer {
	if s.opt.Scale.Stderr != nil {
		return s.opt.Scale.Stderr
	}
	return os.Stderr
}

// runScaled runs the selection with the report model collected and
// writes the report files.
func (s *Suite) runScaled(sel []Scenario) int {
	godogFormats, outs, err := splitFormats(s.opt.Format)
	if err != nil {
		fmt.Fprintln(s.stderr(), err)
		return 2
	}
	fsys, paths, err := serve(sel)
	if err != nil {
		fmt.Fprintf(s.stderr(), "replaylab: %v\n", err)
		return ExitCode(err)
	}
	if len(outs) == 0 {
		return s.runGodog(s.opt.Format, fsys, paths)
	}
	html := false
	for _, o := range outs {
		html = html || o.kind == "html"
	}
	s.collect = newCollector(s, html)
	format := s.collect.formatterName()
	if godogFormats != "" {
		format += "," + godogFormats
	}
	status := s.runGodog(format, fsys, paths)
	if err := s.collect.writeReports(outs, s.opt.Output, s.stderr()); err != nil {
		fmt.Fprintln(s.stderr(), err)
		if status == 0 {
			status = 1
		}
	}
	return status
}
