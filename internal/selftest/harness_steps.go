package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/vocabulary"
)

// The harness tests itself the way godog does: a scenario writes feature
// files into a scratch project, runs the suite on them (replay driver, in
// process) and checks the exit status, the output, the reports and the
// goldens. This is what proves the CI gate (HAR-6) and golden handling
// (HAR-2) fail when they should.

type harnessState struct {
	root   string
	exit   int
	output string // colour codes stripped
	raw    string // as written
}

func harnessSteps(r *steps.Table) {
	// scenario names that do not depend on start order (CLK-2)
	r.Step(`^I run the harness on "([^"]*)" with --update at concurrency (\d+)$`,
		"run the suite (replay driver) on that feature of the scratch project with that many scenarios at once, rewriting its golden traces",
		`When I run the harness on "twins.feature" with --update at concurrency 3`, harnessRunConcurrent)
	r.Step(`^I run the harness on "([^"]*)" tagged "([^"]*)" with --update$`,
		"run only the scenarios of that feature matching the tag expression, rewriting their golden traces",
		`When I run the harness on "twins.feature" tagged "@third" with --update`, harnessRunTagged)
	r.Step(`^the scratch project has exactly the golden traces "([^"]*)"$`,
		"the golden files of the scratch project, comma-separated, and no others",
		`Then the scratch project has exactly the golden traces "twins/same-name, twins/same-name-2"`, harnessExactGoldens)

	r.Step(`^a feature file "([^"]*)" with:$`, "write a feature file into a scratch project (its features/ folder)",
		`Given a feature file "qa.feature" with:`, harnessFeature)
	r.Step(`^I run the harness on "([^"]*)"$`, "run the suite (replay driver) on that feature of the scratch project, writing JUnit and Cucumber JSON reports",
		`When I run the harness on "qa.feature"`, harnessRun)
	r.Step(`^I run the harness on "([^"]*)" with --update$`, "the same run, rewriting the scratch project's golden traces",
		`When I run the harness on "qa.feature" with --update`, harnessRunUpdate)
	r.Step(`^I run the harness on "([^"]*)" with the tags "([^"]*)"$`, "the same run, selecting scenarios with a tag expression (--tags)",
		`When I run the harness on "qa.feature" with the tags "@fast and not @wip"`, harnessRunTags)
	r.Step(`^I run replaylab with "([^"]*)"$`, "run the replaylab binary in the scratch project (as an installed `replaylab`, from the project's directory) with these arguments",
		`When I run replaylab with "run --format progress"`, harnessExec)
	r.Step(`^I run the command the run printed after "([^"]*)"$`, "take the command the last run printed after that text (to the end of its line) and run it in the scratch project, as a user would paste it",
		`When I run the command the run printed after "re-record it with: "`, harnessExecHint)
	r.Step(`^in the feature file "([^"]*)" "([^"]*)" becomes "([^"]*)"$`, "edit a feature file of the scratch project (the first occurrence of the text)",
		`When in the feature file "chat.feature" "Fine." becomes "Great."`, harnessEditFeature)
	r.Step(`^the run output has no colour codes$`, "the run's output, written to a file or pipe (not a terminal), holds no ANSI colour codes",
		`And the run output has no colour codes`, harnessNoColour)
	r.Step(`^the run drives Chromium$`, "the scenario records live: it runs under the browser driver (CI=true: Chromium required) and is skipped, with a SKIPPING message, under the replay driver",
		`Given the run drives Chromium`, harnessDrivesChromium)
	r.Step(`^this self-test runs with the live suite$`, "a self-test of the tool too slow for the replay gate: it runs under the browser driver (the live suite) and is skipped, with a SKIPPING message, under the replay driver",
		`Given this self-test runs with the live suite`, harnessLiveSuiteOnly)
	r.Step(`^the scratch project's catalogue holds no self-test step while this project's holds them$`,
		"the steps a run binds in the scratch project (a QA project: not replaylab's own checkout) leave out every self-test step, which the checkout's run binds (GATE-6)",
		"Then the scratch project's catalogue holds no self-test step while this project's holds them", harnessQACatalogue)
	r.Step(`^the run exits (\d+)$`, "the suite's exit status (0 only when every scenario passed with no undefined step and no golden drift)",
		"Then the run exits 1", harnessExit)
	r.Step(`^the run output mentions "([^"]*)"$`, "the run's output contains the text",
		`And the run output mentions "func InitializeScenario"`, harnessOutput)
	r.Step(`^the run output does not mention "([^"]*)"$`, "the run's output does not contain the text",
		`And the run output does not mention "func InitializeScenario"`, harnessNoOutput)
	r.Step(`^the first suggestion for line (\d+) of "([^"]*)" is "(.*)"$`, "the closest catalogue step the run suggested for the undefined step at that line of that feature file",
		`And the first suggestion for line 3 of "typo.feature" is "Given a marker-style chat with 4 earlier turns"`, harnessSuggestion)
	r.Step(`^the JUnit report counts (\d+) tests? and (\d+) failures?$`, "the JUnit XML the run wrote",
		"And the JUnit report counts 1 test and 0 failures", harnessJUnit)
	r.Step(`^the Cucumber report lists (\d+) scenarios?$`, "the Cucumber JSON the run wrote",
		"And the Cucumber report lists 1 scenario", harnessCucumber)
	r.Step(`^the golden trace of "([^"]*)" gains the line "([^"]*)"$`, "edit a golden trace of the scratch project (simulated drift)",
		`When the golden trace of "qa/only-scripting" gains the line "navigate url=elsewhere"`, harnessEditGolden)
	r.Step(`^the scratch project has the golden trace "([^"]*)"$`, "the golden file exists",
		`Then the scratch project has the golden trace "qa/only-scripting"`, harnessHasGolden)
	// what an edit of the scenario does to its recording (GATE-6)
	r.Step(`^the recording stays valid when the check '([^']*)' is added$`,
		"this scenario's recorded session (live: the one being recorded; replay: the file) would still replay this scenario with that step added at its end under Then (GATE-6: a check is left out of the recording's fingerprint)",
		`Then the recording stays valid when the check 'the answer text is "Fine."' is added`, staysValidWithCheck)
	r.Step(`^the recording (stays valid|goes stale) when "([^"]*)" becomes "([^"]*)"$`,
		"the same question for this scenario with the first step that holds the text edited: an edit of a check keeps the recording valid, one of what is scripted, opened, typed or clicked makes it stale",
		`And the recording goes stale when "Hi" becomes "Hello"`, staleWhenEdited)
}

func scratchProject(ctx context.Context) (*harnessState, error) {
	w := steps.WorldOf(ctx)
	h := steps.State[harnessState](w)
	if h.root == "" {
		dir, err := os.MkdirTemp("", "replaylab-harness-")
		if err != nil {
			return nil, err
		}
		h.root = dir
		w.OnFinish(func() { os.RemoveAll(dir) })
	}
	return h, nil
}

func harnessFeature(ctx context.Context, name string, doc *godog.DocString) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	path := filepath.Join(h.root, "features", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(doc.Content), 0o644)
}

func harnessRun(ctx context.Context, name string) error { return runHarness(ctx, name, "", false) }

func harnessRunUpdate(ctx context.Context, name string) error { return runHarness(ctx, name, "", true) }

func harnessRunTags(ctx context.Context, name, tags string) error {
	return runHarness(ctx, name, tags, false)
}

// ansi strips colour codes from the run's output.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// runHarness runs the suite on features/<name> of the scratch project
// (name may carry :LINE…), with tags when not empty. The scratch project
// is a QA project: the self-test steps are not bound there.
func runHarness(ctx context.Context, name, tags string, update bool) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	// a run that stops before godog writes no report: never read the last one's
	_ = os.Remove(filepath.Join(h.root, "junit.xml"))
	_ = os.Remove(filepath.Join(h.root, "cucumber.json"))
	format := "progress,junit:" + filepath.Join(h.root, "junit.xml") + ",cucumber:" + filepath.Join(h.root, "cucumber.json")
	// relative paths are looked up in the project (as from a shell there)
	s, err := vocabulary.NewRunner(harness.Options{Root: h.root, Dir: h.root, Paths: []string{filepath.Join("features", name)}, Tags: tags, Format: format, Output: &out, Stderr: &out, Update: update}, steps.Options{Groups: Groups()})
	if err != nil {
		return err
	}
	h.exit = s.Run()
	h.raw = out.String()
	h.output = ansi.ReplaceAllString(out.String(), "")
	attrs := []trace.Attr{trace.A("feature", name), trace.A("update", update), trace.A("exit", h.exit)}
	if tags != "" {
		attrs = append(attrs, trace.A("tags", tags))
	}
	steps.WorldOf(ctx).Emit(trace.E("harness.run", attrs...))
	return nil
}

func harnessExit(ctx context.Context, want int) error {
	h, _ := scratchProject(ctx)
	if h.exit != want {
		return fmt.Errorf("the run exited %d, want %d; output:\n%s", h.exit, want, h.output)
	}
	return nil
}

func harnessOutput(ctx context.Context, text string) error {
	h, _ := scratchProject(ctx)
	if !strings.Contains(h.output, text) {
		return fmt.Errorf("the run output does not mention %q:\n%s", text, h.output)
	}
	return nil
}

func harnessNoColour(ctx context.Context) error {
	h, _ := scratchProject(ctx)
	if strings.Contains(h.raw, "\x1b[") {
		return fmt.Errorf("the run output has colour codes: %q", h.raw)
	}
	return nil
}

func harnessNoOutput(ctx context.Context, text string) error {
	h, _ := scratchProject(ctx)
	if strings.Contains(h.output, text) {
		return fmt.Errorf("the run output mentions %q:\n%s", text, h.output)
	}
	return nil
}

// harnessSuggestion finds "features/NAME:LINE: …" in the suggestions and
// the first step under its "did you mean:".
func harnessSuggestion(ctx context.Context, line int, name, want string) error {
	h, _ := scratchProject(ctx)
	lines := strings.Split(h.output, "\n")
	head := fmt.Sprintf("features/%s:%d: ", name, line)
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), head) && i+2 < len(lines) && strings.TrimSpace(lines[i+1]) == "did you mean:" {
			if got := strings.TrimSpace(lines[i+2]); got != want {
				return fmt.Errorf("the first suggestion for %s is %q, want %q", head, got, want)
			}
			return nil
		}
	}
	return fmt.Errorf("no suggestions for %s in:\n%s", head, h.output)
}

func harnessJUnit(ctx context.Context, tests, failures int) error {
	h, _ := scratchProject(ctx)
	data, err := os.ReadFile(filepath.Join(h.root, "junit.xml"))
	if err != nil {
		return fmt.Errorf("no JUnit report: %w", err)
	}
	var r struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
	}
	if err := xml.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("the JUnit report is not XML: %w", err)
	}
	if r.Tests != tests || r.Failures+r.Errors != failures {
		return fmt.Errorf("JUnit report: %d tests, %d failures, %d errors; want %d tests, %d failures", r.Tests, r.Failures, r.Errors, tests, failures)
	}
	return nil
}

func harnessCucumber(ctx context.Context, n int) error {
	h, _ := scratchProject(ctx)
	data, err := os.ReadFile(filepath.Join(h.root, "cucumber.json"))
	if err != nil {
		return fmt.Errorf("no Cucumber report: %w", err)
	}
	var features []struct {
		Elements []struct {
			Type string `json:"type"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(data, &features); err != nil {
		return fmt.Errorf("the Cucumber report is not JSON: %w", err)
	}
	got := 0
	for _, f := range features {
		got += len(f.Elements)
	}
	if got != n {
		return fmt.Errorf("the Cucumber report lists %d scenarios, want %d", got, n)
	}
	return nil
}

func harnessGoldenPath(h *harnessState, name string) string {
	return filepath.Join(h.root, "recordings", "golden", filepath.FromSlash(name)+".golden")
}

func harnessEditGolden(ctx context.Context, name, line string) error {
	h, _ := scratchProject(ctx)
	path := harnessGoldenPath(h, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, []byte(line+"\n")...), 0o644)
}

func harnessHasGolden(ctx context.Context, name string) error {
	h, _ := scratchProject(ctx)
	if _, err := os.Stat(harnessGoldenPath(h, name)); err != nil {
		return fmt.Errorf("no golden trace %s: %w", name, err)
	}
	return nil
}

// harnessExec runs the replaylab binary in the scratch project the way a
// user with replaylab installed would: named "replaylab", from the
// project's directory, so the hints it prints are the commands that user
// would type.
func harnessExec(ctx context.Context, args string) error {
	return execReplaylab(ctx, harness.ShellSplit(args), "harness.exec")
}

// harnessExecHint runs the command the last run printed after marker.
func harnessExecHint(ctx context.Context, marker string) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	_, rest, ok := strings.Cut(h.output, marker)
	if !ok {
		return fmt.Errorf("the run printed no %q:\n%s", marker, h.output)
	}
	line, _, _ := strings.Cut(rest, "\n")
	words := harness.ShellSplit(strings.TrimSpace(line))
	if len(words) < 2 || words[0] != "replaylab" {
		return fmt.Errorf("the hint %q is not a replaylab command the user can run", line)
	}
	return execReplaylab(ctx, words[1:], "harness.hint")
}

func execReplaylab(ctx context.Context, args []string, event string) error {
	w := steps.WorldOf(ctx)
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	cmdline, err := w.MCPCommand()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, cmdline[0], args...)
	cmd.Args[0] = "replaylab" // as found on PATH: hints name it so
	cmd.Dir = h.root
	// colour must stay off on its own: the output is a pipe; the scratch
	// project's features may use the self-test steps (a QA project's
	// cannot: see "I run the harness on")
	cmd.Env = append(os.Environ(), steps.SelfTestsEnv+"=1")
	out, err := cmd.CombinedOutput()
	h.exit = 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return fmt.Errorf("run replaylab %s: %w", strings.Join(args, " "), err)
		}
		h.exit = ee.ExitCode()
	}
	h.raw = string(out)
	h.output = ansi.ReplaceAllString(string(out), "")
	w.Emit(trace.E(event, trace.A("args", strings.Join(args, " ")), trace.A("exit", h.exit)))
	return nil
}

// harnessDrivesChromium: the scenario records live, so it runs where the
// suite itself drives Chromium (the browser driver; CI=true requires
// Chromium there) and is skipped with a SKIPPING message under the replay
// driver, which promises to need no browser.
func harnessDrivesChromium(ctx context.Context) error {
	w := steps.WorldOf(ctx)
	if !w.Mode().AlwaysLive() {
		return w.Skip(fmt.Sprintf("SKIPPING %s under the replay driver: it records live (it runs with --driver browser)", w.Slug()))
	}
	if _, err := browser.FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			return fmt.Errorf("CI=true and %v: this scenario records live and needs Chromium", err)
		}
		return w.Skip(fmt.Sprintf("SKIPPING %s: it records live and needs Chromium: %v", w.Slug(), err))
	}
	return nil
}

// harnessLiveSuiteOnly: a slow self-test runs in the live suite, not in
// the replay gate.
func harnessLiveSuiteOnly(ctx context.Context) error {
	w := steps.WorldOf(ctx)
	if !w.Mode().AlwaysLive() {
		return w.Skip(fmt.Sprintf("SKIPPING %s under the replay driver: a slow self-test, it runs with the live suite (--driver browser)", w.Slug()))
	}
	return nil
}

func harnessEditFeature(ctx context.Context, name, from, to string) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	path := filepath.Join(h.root, "features", name)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte(from)) {
		return fmt.Errorf("%s holds no %q", name, from)
	}
	return os.WriteFile(path, bytes.Replace(data, []byte(from), []byte(to), 1), 0o644)
}

func harnessQACatalogue(ctx context.Context) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	qa, err := vocabulary.New(steps.Options{Root: h.root, Groups: Groups()})
	if err != nil {
		return err
	}
	for _, d := range qa.Catalogue() {
		if d.SelfTest {
			return fmt.Errorf("the scratch project's catalogue holds the self-test step %s", d.Pattern)
		}
	}
	own := 0
	for _, d := range steps.WorldOf(ctx).Catalogue() {
		if d.SelfTest {
			own++
		}
	}
	if own == 0 {
		return fmt.Errorf("this project's catalogue holds no self-test step (root %s)", steps.WorldOf(ctx).Root())
	}
	return nil
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
	s, err := vocabulary.NewRunner(opt, steps.Options{Groups: Groups()})
	if err != nil {
		return err
	}
	h.exit = s.Run()
	h.output = ansi.ReplaceAllString(out.String(), "")
	steps.WorldOf(ctx).Emit(trace.E("harness.run", trace.A("feature", name), attr, trace.A("update", opt.Update), trace.A("exit", h.exit)))
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

func staysValidWithCheck(ctx context.Context, check string) error {
	w := steps.WorldOf(ctx)
	edited := w.Pickle()
	edited.Steps = append(slices.Clone(edited.Steps), &messages.PickleStep{Id: "added", Text: check, Type: messages.PickleStepType_OUTCOME})
	ok, err := w.RecordingValidFor(&edited)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("adding the check %q would make the recording stale", check)
	}
	return nil
}

func staleWhenEdited(ctx context.Context, want, from, to string) error {
	w := steps.WorldOf(ctx)
	edited := w.Pickle()
	edited.Steps = slices.Clone(edited.Steps)
	found := false
	for i, st := range edited.Steps {
		if strings.Contains(st.Text, from) {
			c := *st
			c.Text = strings.Replace(c.Text, from, to, 1)
			edited.Steps[i], found = &c, true
			break
		}
	}
	if !found {
		return fmt.Errorf("no step of this scenario holds %q", from)
	}
	ok, err := w.RecordingValidFor(&edited)
	if err != nil {
		return err
	}
	if ok != (want == "stays valid") {
		return fmt.Errorf("with %q become %q the recording would be valid=%v, want %s", from, to, ok, want)
	}
	return nil
}
