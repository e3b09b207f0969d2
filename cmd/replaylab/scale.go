package main

import (
	"flag"
	"io"
	"strings"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/harness"
)

// listFlag is a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// runScaleFlags are run's flags for the browser pool, shards, retries and
// progress (kept apart from run.go's own).
type runScaleFlags struct {
	cdp         listFlag
	cdpFile     *string
	shard       *string
	retries     *int
	repeatEach  *int
	failFast    *bool
	failOnFlaky *bool
}

func addRunScaleFlags(fs *flag.FlagSet) *runScaleFlags {
	f := &runScaleFlags{}
	fs.Var(&f.cdp, "cdp", "with --driver browser: attach to a running Chromium at this CDP websocket URL instead of starting one; repeat it for a pool of browsers shared by the scenarios")
	f.cdpFile = fs.String("cdp-file", "", "with --driver browser: a file of CDP websocket URLs (one a line, # comments), a pool shared by the scenarios")
	f.shard = fs.String("shard", "", "run part i of n of the selected scenarios, e.g. 2/4 (stable; balanced by each scenario's measured replay cost)")
	f.retries = fs.Int("retries", 0, "re-run a failed scenario up to N times; fail then pass is reported flaky")
	f.repeatEach = fs.Int("repeat-each", 0, "run every scenario N times (hunting flakes)")
	f.failFast = fs.Bool("fail-fast", false, "stop at the first failed scenario")
	f.failOnFlaky = fs.Bool("fail-on-flaky", false, "a flaky scenario fails the run (default: it passes with a warning)")
	return f
}

// resolve turns the flags into the suite's browser and scale options.
func (f *runScaleFlags) resolve(stderr io.Writer) (browser.Options, []string, harness.Scale, error) {
	sc := harness.Scale{Stderr: stderr, FailFast: *f.failFast, FailOnFlaky: *f.failOnFlaky, Progress: true}
	var bo browser.Options
	var pool []string
	urls := append([]string(nil), f.cdp...)
	if *f.cdpFile != "" {
		more, err := browser.ReadEndpoints(*f.cdpFile)
		if err != nil {
			return bo, nil, sc, badInput("--cdp-file: %v", err)
		}
		urls = append(urls, more...)
	}
	switch {
	case len(urls) == 1 && *f.cdpFile == "":
		bo.RemoteURL = urls[0]
	case len(urls) > 0:
		pool = urls
	}
	if *f.shard != "" {
		s, err := harness.ParseShard(*f.shard)
		if err != nil {
			return bo, nil, sc, badInput("%v", err)
		}
		sc.Shard = s
	}
	if *f.retries < 0 {
		return bo, nil, sc, badInput("--retries must be 0 or more, got %d", *f.retries)
	}
	if *f.repeatEach < 0 {
		return bo, nil, sc, badInput("--repeat-each must be 0 or more, got %d", *f.repeatEach)
	}
	sc.Retries, sc.RepeatEach = *f.retries, *f.repeatEach
	return bo, pool, sc, nil
}
