package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/replaylab/replaylab"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/vocabulary"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("run", stderr)
	driver := fs.String("driver", steps.DriverReplay, "replay (recorded captures, no browser) or browser (headless Chromium against the live sim)")
	tags := fs.String("tags", "", "tag expression, e.g. '@ANS-3 and not @wip' (godog's old '@ANS-3 && ~@wip' still works)")
	allowEmpty := fs.Bool("allow-empty", false, "a selection that matches no scenario passes (exit 0) instead of failing")
	format := fs.String("format", "pretty", "pretty|progress|junit:FILE|cucumber:FILE|message:FILE|github|html:DIR|rerun:FILE, comma-separated")
	update := fs.Bool("update", false, "rewrite golden traces (with --driver browser also re-record sessions); over every scenario also --prune")
	noColor := fs.Bool("no-color", false, "no colour in the output (colour is only ever used when stdout is a terminal and NO_COLOR is unset)")
	snippets := fs.Bool("snippets", false, "for undefined steps print godog's Go snippets (for Go users) instead of the closest catalogue steps")
	prune := fs.Bool("prune", false, "after a run over every scenario (no paths, no tags), remove the goldens and sessions no scenario names, listing each")
	mode := fs.String("mode", "replay", "recordings: replay (never record; a missing one fails), record-once (record scenarios that have none, live), record (re-record all, live)")
	storagePath := storageFlag(fs)
	record := fs.Bool("record", false, "same as --mode record: run live in Chromium and re-record every session")
	seed := fs.Int64("seed", 0, "seed of every generated text and fault plan")
	timeout := fs.Duration("timeout", 0, "stop the run after this much wall time: the scenarios running are cut short and the rest never start, each named, with the command that runs them again (exit 130; 0: no limit)")
	conc := fs.Int("concurrency", 0, "scenarios run at once (default: twice the number of CPUs, at least 4, when the run only replays; the number of CPUs when it may start a browser)")
	lastFailed := fs.Bool("last-failed", false, "run only the scenarios the last run in this project failed (kept in "+harness.LastFailedFile+"; --format rerun:FILE writes such a list too)")
	scale := addRunScaleFlags(fs) // --cdp, --cdp-file, --shard, --retries, … (scale.go)
	root := fs.String("root", "", "directory holding features/ and recordings/ (default: the nearest directory at or above the current one that has features/, else the embedded copy)")
	siteFile := fs.String("site", "", "a site profile (JSON, see docs/adapters.md): every scenario drives that site instead of the sim (steps that need the sim refuse)")
	dryRun := fs.Bool("dry-run", false, "check the selected scenarios without running them: every step against the catalogue, every argument, every site profile and adapter file a step names, every recording; no browser, no file written; exit 3 naming each problem")
	var baseURLs stringList
	fs.Var(&baseURLs, "base-url", "the site's base URL instead of the profile's (with --site); NAME=URL for a site a feature chooses by its profile; repeatable")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if *driver != steps.DriverReplay && *driver != steps.DriverBrowser {
		return exitBadInput, badInput("--driver must be replay or browser, got %q", *driver)
	}
	m, err := harness.ParseMode(*mode)
	if err != nil {
		return exitBadInput, badInput("--mode: %v", err)
	}
	if *record {
		m = harness.ModeRecord
	}
	// the one mode of the run: its decision table says, per recording,
	// whether the scenario runs live and what is saved
	m, err = harness.ModeOf(*driver, m, *update)
	if err != nil {
		return exitBadInput, badInput("--driver: %v", err)
	}
	browserOpts, pool, scaleOpts, err := scale.resolve(stderr)
	if err == nil {
		browserOpts.StorageState, err = loadStorage(*storagePath)
	}
	if err != nil {
		return exitBadInput, err
	}
	if (browserOpts.RemoteURL != "" || len(pool) > 0) && !m.MayGoLive() {
		return exitBadInput, badInput("--cdp attaches the browser driver to a running Chromium; this run replays recordings and starts no browser (add --driver browser, or --mode record-once / record)")
	}
	setFlags := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { setFlags[f.Name] = true })
	if *timeout < 0 {
		return exitBadInput, badInput("--timeout must be 0 or more, got %s", *timeout)
	}
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, *timeout, fmt.Errorf("--timeout %s", *timeout))
		defer cancel()
	}
	if setFlags["concurrency"] && *conc < 1 {
		return exitBadInput, badInput("--concurrency must be at least 1, got %d", *conc)
	}
	if !setFlags["concurrency"] {
		*conc = defaultConcurrency(m, runtime.NumCPU())
	}
	for _, f := range strings.Split(*format, ",") {
		name, _, _ := strings.Cut(f, ":")
		switch name {
		case "pretty", "progress", "junit", "cucumber", "message", "github", "events", "html", "rerun":
		default:
			return exitBadInput, badInput("--format: unknown formatter %q (pretty, progress, junit:FILE, cucumber:FILE, message:FILE, github, html:DIR, rerun:FILE)", name)
		}
	}
	dir := *root
	embedded := false
	if dir == "" {
		if found, ok := findRoot("."); ok {
			dir = found
		} else {
			if *dryRun {
				return exitBadInput, badInput("--dry-run checks a project: there is no features/ here or above (give --root DIR)")
			}
			if *update {
				return exitBadInput, badInput("--update needs a checkout with features/ and recordings/ (or --root)")
			}
			tmp, err := extractEmbedded()
			if err != nil {
				return exitFailed, err
			}
			defer os.RemoveAll(tmp)
			dir, embedded = tmp, true
			cwd, _ := os.Getwd()
			fmt.Fprintf(stderr, "replaylab run: no features/ in %s or above it: running replaylab's own built-in suite (the embedded features and recordings, against its sim), not a project of yours; to run your project, give --root DIR or run from the directory that holds its features/\n", cwd)
		}
	}
	rerunFile, costFile, liveCostFile := "", "", ""
	if !embedded {
		rerunFile = filepath.Join(dir, filepath.FromSlash(harness.LastFailedFile))
		costFile = filepath.Join(dir, filepath.FromSlash(harness.CostFile))
		liveCostFile = filepath.Join(dir, filepath.FromSlash(harness.LiveCostFile))
	}
	if *lastFailed {
		if len(paths) > 0 || *tags != "" {
			return exitBadInput, badInput("--last-failed runs what the last run failed: give no paths and no --tags with it")
		}
		last, err := harness.ReadRerun(rerunFile)
		if errors.Is(err, harness.ErrNoRerun) {
			return exitBadInput, badInput("--last-failed: no run in %s has recorded its failures yet (run without --last-failed first)", dir)
		}
		if err != nil {
			return exitBadInput, badInput("--last-failed: %v", err)
		}
		if len(last) == 0 {
			fmt.Fprintln(stderr, "replaylab run: --last-failed: the last run failed no scenario; nothing to run")
			return exitOK, nil
		}
		paths = last
	}
	// features/mcp.feature drives `replaylab mcp` as a subprocess: this
	// very binary.
	self, err := os.Executable()
	if err != nil {
		return exitFailed, fmt.Errorf("run: find the replaylab binary for the MCP scenarios: %w", err)
	}
	baseURL, byName, err := parseBaseURLs(baseURLs, *siteFile)
	if err != nil {
		return exitBadInput, err
	}
	sitePath := *siteFile
	if sitePath != "" && !filepath.IsAbs(sitePath) && dir != "." {
		// --site names a file from where the command runs
		if abs, err := filepath.Abs(sitePath); err == nil {
			sitePath = abs
		}
	}
	if !*dryRun { // a dry run starts nothing, the built-in sites neither
		stopSites, err := serveBuiltinSites(m, byName)
		if err != nil {
			return exitFailed, err
		}
		defer stopSites()
	}
	s, err := vocabulary.NewRunner(harness.Options{Root: dir, Paths: paths, Tags: *tags, AllowEmpty: *allowEmpty, Snippets: *snippets, NoColor: *noColor, Format: *format, Stderr: stderr,
		Update: *update, Mode: m, Seed: *seed, Concurrency: *conc, Output: stdout, Scale: scaleOpts,
		Command: invokedAs(), HintFlags: hintFlags(fs), RerunFile: rerunFile, CostFile: costFile, LiveCostFile: liveCostFile,
		Context: ctx},
		steps.Options{Root: dir, Seed: *seed, Browser: browserOpts, Pool: pool, Stderr: stderr,
			MCPCommand: []string{self, "mcp"}, Site: sitePath, BaseURL: baseURL, BaseURLs: byName, SelfTests: embedded, Groups: selfTestGroups()})
	if err != nil {
		return exitBadInput, badInput("%v", err)
	}
	// the selection first: a path that does not exist, a malformed file or
	// an invalid tag expression is bad input (exit 2); a selection that
	// matches nothing fails (exit 1) unless --allow-empty
	if _, err := s.Selected(); err != nil {
		if errors.Is(err, harness.ErrNoScenarios) && *allowEmpty {
			fmt.Fprintf(stderr, "replaylab run: %v (allowed by --allow-empty)\n", err)
			return exitOK, nil
		}
		if harness.ExitCode(err) == exitBadInput {
			return exitBadInput, badInput("%v", err)
		}
		return exitFailed, err
	}
	if *dryRun {
		return dryRunReport(s, stdout, stderr)
	}
	if err := s.CheckOutputs(); err != nil {
		return exitBadInput, badInput("%v", err)
	}
	full := harness.IsFullSelection(s.Selection())
	if *prune && !full {
		return exitBadInput, badInput("--prune removes what no scenario names, so it needs a run over every scenario: no paths, no --tags")
	}
	fmt.Fprintf(stderr, "replaylab run: driver=%s mode=%s seed=%d concurrency=%d root=%s\n", s.Drivers(), m, *seed, *conc, dir)
	status := s.Run()
	if status == harness.ExitInterrupted {
		// cut short: what did not run says nothing about what is obsolete
		return status, nil
	}
	if full && (*prune || *update) {
		removed, err := s.Prune()
		for _, f := range removed {
			fmt.Fprintf(stderr, "replaylab run: removed obsolete %s\n", f)
		}
		if err != nil {
			return exitFailed, err
		}
	} else if full {
		obs, sessions := s.Obsolete(), s.ObsoleteSessions()
		if len(obs) > 0 {
			fmt.Fprintf(stderr, "replaylab run: obsolete golden traces (no scenario names them): %s\n", strings.Join(obs, ", "))
		}
		if len(sessions) > 0 {
			fmt.Fprintf(stderr, "replaylab run: obsolete sessions (no scenario names them): %s\n", strings.Join(sessions, ", "))
		}
		if len(obs)+len(sessions) > 0 {
			fmt.Fprintf(stderr, "replaylab run: remove them with: %s\n", s.PruneHint())
			if status == 0 {
				return exitFailed, errors.New("the scenarios passed, but obsolete recordings fail the run (see above)")
			}
		}
	}
	switch status {
	case 0:
		return exitOK, nil
	case 2:
		return exitBadInput, badInput("godog refused the options or a feature file (see above)")
	}
	return exitFailed, fmt.Errorf("scenarios failed (exit %d)", status)
}

// invokedAs is how hints spell this command: as the user invoked the
// binary (a path such as ./bin/replaylab as typed, else the name found on
// PATH), or `go run ./cmd/replaylab` for a go run from this module's
// checkout (go run of the module path elsewhere).
func invokedAs() []string { return invokedFrom(os.Args[0]) }

// invokedFrom is invokedAs for a given argv[0]. `go run` builds into the
// build cache: a temporary .../go-buildNNN/bNNN/exe/replaylab, or (Go
// 1.24 and later cache the executable) .../go-build/xx/HASH-d/replaylab;
// neither path is a command a user can type again.
func invokedFrom(a0 string) []string {
	if slash := filepath.ToSlash(a0); strings.Contains(slash, "/go-build") && (strings.Contains(slash, "/exe/") || strings.Contains(slash, "-d/")) {
		if st, err := os.Stat(filepath.Join("cmd", "replaylab")); err == nil && st.IsDir() {
			return []string{"go", "run", "./cmd/replaylab", "run"}
		}
		return []string{"go", "run", "github.com/replaylab/replaylab/cmd/replaylab", "run"}
	}
	if strings.ContainsRune(a0, filepath.Separator) || strings.ContainsRune(a0, '/') {
		return []string{a0, "run"}
	}
	return []string{filepath.Base(a0), "run"}
}

// hintFlags are the flags of this run that every hint repeats so that it
// applies to the same project and the same run.
func hintFlags(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "root", "seed", "cdp":
			out = append(out, "--"+f.Name, f.Value.String())
		}
	})
	return out
}

// findRoot returns the nearest directory at or above dir that holds a
// features/ directory: running from inside features/ (or any directory
// of a project) finds the project's recordings.
func findRoot(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if st, err := os.Stat(filepath.Join(abs, "features")); err == nil && st.IsDir() {
			return abs, true
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return "", false
		}
		abs = parent
	}
}

// extractEmbedded writes the embedded features and recordings to a temp
// dir, so golden comparison reads them like a checkout.
func extractEmbedded() (string, error) {
	tmp, err := os.MkdirTemp("", "replaylab-run-")
	if err != nil {
		return "", err
	}
	err = fs.WalkDir(replaylab.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(tmp, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := replaylab.Files.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("extract embedded features: %w", err)
	}
	return tmp, nil
}

func cmdSteps(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("steps", stderr)
	format := fs.String("format", harness.FormatMarkdown, "markdown (for readers) or json (for editor plugins)")
	all := fs.Bool("all", false, "also the steps of replaylab's own self-tests (nested runs, shards, the explorer, the MCP process)")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if *format != harness.FormatMarkdown && *format != harness.FormatJSON {
		return exitBadInput, fmt.Errorf("steps: unknown --format %q (want markdown or json)", *format)
	}
	defs := vocabulary.Catalogue(selfTestGroups()...)
	if !*all {
		defs = harness.QA(defs)
	}
	defs = harness.Filter(defs, words)
	if len(defs) == 0 {
		fmt.Fprintf(stderr, "no step matches every word of %q; run replaylab steps for the whole catalogue\n", strings.Join(words, " "))
		return exitFailed, nil
	}
	if err := harness.WriteCatalogue(stdout, harness.Catalogue{Title: steps.CatalogueTitle, Intro: steps.CatalogueIntro, Steps: defs}, *format); err != nil {
		return exitFailed, err
	}
	return exitOK, nil
}

// defaultConcurrency is how many scenarios run at once when --concurrency
// is not given: a run that only replays waits on its scenarios' own
// clocks and servers as much as it computes, so it runs twice the CPUs (at
// least 4); a run that may start a browser runs one scenario a CPU.
func defaultConcurrency(m harness.Mode, cpus int) int {
	if m.MayGoLive() {
		return max(cpus, 1)
	}
	return max(2*cpus, 4)
}
