package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/replaylab/replaylab/internal/testskip"
	"github.com/replaylab/replaylab/report"
)

// Cucumber's own packages that read a message stream, installed from npm
// outside the module (.ci/run pins them into REPLAYLAB_NPM beside the MCP
// clients): the schema @cucumber/messages ships, Ajv to validate against
// it, and @cucumber/html-formatter to render the stream.
var cucumberNPM = map[string]string{
	"@cucumber/messages":       "34.2.0",
	"@cucumber/html-formatter": "24.2.0",
	"ajv":                      "8.20.0",
}

// cucumberPackages returns the npm directory holding cucumberNPM at their
// pinned versions; it skips the test visibly when they are missing, and
// fails it in CI.
func cucumberPackages(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("REPLAYLAB_NPM")
	if dir == "" {
		dir = "/opt/replaylab-npm"
	}
	var pins []string
	for pkg, v := range cucumberNPM {
		pins = append(pins, pkg+"@"+v)
	}
	slices.Sort(pins)
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...) + fmt.Sprintf("; install them with: npm install --prefix %s --no-save %s", dir, strings.Join(pins, " "))
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s", msg)
		}
		testskip.Skip(t, "SKIPPING the Cucumber Messages check: %s", msg)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("no node on PATH")
	}
	for pkg, want := range cucumberNPM {
		data, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
		if err != nil {
			missing("no %s under %s", pkg, dir)
		}
		var meta struct{ Version string }
		if json.Unmarshal(data, &meta) != nil || meta.Version != want {
			missing("%s under %s is %q, want %s", pkg, dir, meta.Version, want)
		}
	}
	return dir
}

// checkMessages validates every line of stream against the schema and
// renders it to html with the official formatter.
func checkMessages(npm, stream, html string) error {
	out, err := exec.Command("node", "testdata/cucumber-messages.mjs", npm, stream, html).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return nil
}

// htmlCase is one test case as the HTML report shows it.
type htmlCase struct {
	File     string `json:"file"`
	Scenario string `json:"scenario"` // keyword: name, as the document has it
	Row      string `json:"row"`      // an outline's example row: #examples.row
	Status   string `json:"status"`   // the worst status of its steps and hooks
}

func (c htmlCase) String() string {
	return fmt.Sprintf("%s | %s | %s | %s", c.File, c.Scenario, c.Row, c.Status)
}

// readHTMLCases expands every feature of the rendered report and reads
// its test cases and their step statuses from the page.
const readHTMLCases = `(() => {
  const rank = ["UNKNOWN", "PASSED", "SKIPPED", "PENDING", "UNDEFINED", "AMBIGUOUS", "FAILED"];
  const out = [];
  for (const ol of document.querySelectorAll("article > ol")) {
    const lis = [...ol.children].filter(li => li.dataset.status);
    if (lis.length === 0) continue;
    let status = "UNKNOWN";
    for (const li of lis) if (rank.indexOf(li.dataset.status) > rank.indexOf(status)) status = li.dataset.status;
    let row = "", scenario = "", file = "";
    for (let el = ol.parentElement; el; el = el.parentElement) {
      if (el.tagName === "SECTION") {
        const h3 = el.querySelector(":scope > div > h3");
        if (h3 && !row && !scenario) row = h3.textContent;
        const h2 = el.querySelector(":scope > div > h2");
        if (h2 && !scenario && !h2.textContent.startsWith("Examples")) scenario = h2.textContent;
      }
      if (el.dataset && el.dataset.expanded !== undefined && !file) {
        const b = el.querySelector(":scope > h3 button span:last-child");
        if (b) file = b.textContent;
      }
    }
    out.push({file, scenario, row, status});
  }
  return out;
})()`

// runCases are the test cases the run had, keyed the way the HTML shows
// them: the scenario's heading in its feature file and, for an outline,
// the example row as #examples.row.
func runCases(t *testing.T, root string, run *report.Run) []htmlCase {
	t.Helper()
	type where struct{ scenario, row string }
	byFile := map[string]map[int]where{}
	var out []htmlCase
	for _, sc := range run.Scenarios {
		lines := byFile[sc.File]
		if lines == nil {
			lines = map[int]where{}
			src, err := os.ReadFile(filepath.Join(root, sc.File))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(src), (&messages.Incrementing{}).NewId)
			if err != nil {
				t.Fatal(err)
			}
			add := func(s *messages.Scenario) {
				head := s.Keyword + ": " + s.Name
				lines[int(s.Location.Line)] = where{scenario: head}
				for e, ex := range s.Examples {
					for r, row := range ex.TableBody {
						lines[int(row.Location.Line)] = where{scenario: head, row: fmt.Sprintf("#%d.%d", e+1, r+1)}
					}
				}
			}
			for _, c := range doc.Feature.Children {
				if c.Scenario != nil {
					add(c.Scenario)
				}
				if c.Rule != nil {
					for _, rc := range c.Rule.Children {
						if rc.Scenario != nil {
							add(rc.Scenario)
						}
					}
				}
			}
			byFile[sc.File] = lines
		}
		w, ok := lines[sc.Line]
		if !ok {
			t.Fatalf("%s: no scenario or example row at line %d", sc.File, sc.Line)
		}
		status := map[report.Status]string{report.Passed: "PASSED", report.Flaky: "PASSED", report.Failed: "FAILED",
			report.Skipped: "SKIPPED", report.Undefined: "UNDEFINED"}[sc.Status]
		out = append(out, htmlCase{File: sc.File, Scenario: w.scenario, Row: w.row, Status: status})
	}
	return out
}

// TestCucumberMessagesValidateAndRender (ECO-1) runs the whole suite with
// a golden broken, an undefined step and a retry, writes the run as
// Cucumber Messages, validates every line against the schema
// @cucumber/messages ships, renders the stream with
// @cucumber/html-formatter and reads the rendered page in Chromium: its
// test cases and their statuses are the run's.
func TestCucumberMessagesValidateAndRender(t *testing.T) {
	npm := cucumberPackages(t)
	root := scratchProject(t)
	goldens, _ := filepath.Glob(filepath.Join(root, "recordings", "golden", "locator", "*.golden"))
	if len(goldens) == 0 {
		t.Fatal("no locator goldens")
	}
	data, err := os.ReadFile(goldens[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldens[0], append(data, "navigate page=main url=elsewhere\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	undefined := "Feature: Not written yet\n\n  Scenario: A step nobody wrote\n    Given a step nobody wrote\n"
	if err := os.WriteFile(filepath.Join(root, "features", "eco_undefined.feature"), []byte(undefined), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stream, htmlDir := filepath.Join(dir, "messages.ndjson"), filepath.Join(dir, "html")
	// the PostgreSQL scenarios skip without a server outside CI: the run's
	// skipped status, whatever the machine has (CI sets both)
	ci := os.Getenv("CI")
	t.Setenv("REPLAYLAB_PG_URL", "")
	t.Setenv("CI", "")
	code, out, stderr := runCLI(t, "run", "--root", root, "--retries", "1", "--format", "progress,message:"+stream+",html:"+htmlDir)
	t.Setenv("CI", ci)
	if code != exitFailed {
		t.Fatalf("run with a broken golden: exit %d, want %d\n%s\n%s", code, exitFailed, out, stderr)
	}
	run, err := report.Load(filepath.Join(htmlDir, report.ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.Failed == 0 || run.Summary.Undefined == 0 || run.Summary.Skipped == 0 || run.Summary.Passed == 0 {
		t.Fatalf("the run should have passed, failed, skipped and undefined scenarios: %s", run.Summary.Line())
	}

	// what the stream holds: retries, the golden diff, step definitions
	seen := map[string]int{}
	f, err := os.Open(stream)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var env messages.Envelope
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatalf("line %q: %v", sc.Bytes()[:min(len(sc.Bytes()), 200)], err)
		}
		switch {
		case env.TestCaseStarted != nil && env.TestCaseStarted.Attempt == 1:
			seen["retry"]++
		case env.Attachment != nil:
			seen[env.Attachment.MediaType]++
		case env.StepDefinition != nil && strings.HasPrefix(env.StepDefinition.SourceReference.Uri, "steps/") && env.StepDefinition.SourceReference.Location != nil:
			seen["stepDefinition"]++
		case env.TestCaseFinished != nil && env.TestCaseFinished.WillBeRetried:
			seen["willBeRetried"]++
		}
	}
	f.Close()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"retry", "willBeRetried", report.MediaDiff, report.MediaCapture, "stepDefinition"} {
		if seen[k] == 0 {
			t.Errorf("the stream has no %s: %v", k, seen)
		}
	}

	// the checker refuses a line the schema forbids (or passing proves nothing)
	bad := filepath.Join(dir, "bad.ndjson")
	raw, _ := os.ReadFile(stream)
	broken := bytes.Replace(raw, []byte(`"status":"PASSED"`), []byte(`"status":"GREEN"`), 1)
	if err := os.WriteFile(bad, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkMessages(npm, bad, filepath.Join(dir, "bad.html")); err == nil {
		t.Fatal("the schema check accepted a testStepFinished with status GREEN")
	}
	html := filepath.Join(dir, "cucumber.html")
	if err := checkMessages(npm, stream, html); err != nil {
		t.Fatalf("the message stream: %v", err)
	}

	// a hang guard only: the page is 4 MB of messages React renders, on a
	// machine other suites load
	ctx := headlessFor(t, 10*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+html)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`[data-testid="cucumber.summary.status"]`)); err != nil {
		t.Fatal(err)
	}
	want := runCases(t, root, run)
	var got []htmlCase
	for len(got) < len(want) { // expand each feature until every test case shows
		got, err = chromedp.Run(ctx, chromedp.Evaluate[[]htmlCase](`document.querySelectorAll('button[aria-expanded="false"]').forEach(b => b.click()); `+readHTMLCases))
		if err != nil {
			t.Fatalf("the page shows %d of the run's %d test cases: %v", len(got), len(want), err)
		}
		if len(got) < len(want) {
			if err := chromedp.Do(ctx, chromedp.Sleep(200*time.Millisecond)); err != nil {
				t.Fatalf("the page shows %d of the run's %d test cases: %v", len(got), len(want), err)
			}
		}
	}
	sortCases := func(cs []htmlCase) []string {
		var s []string
		for _, c := range cs {
			s = append(s, c.String())
		}
		slices.Sort(s)
		return s
	}
	g, w := sortCases(got), sortCases(want)
	if !slices.Equal(g, w) {
		var diff []string
		for _, x := range w {
			if !slices.Contains(g, x) {
				diff = append(diff, "- "+x)
			}
		}
		for _, x := range g {
			if !slices.Contains(w, x) {
				diff = append(diff, "+ "+x)
			}
		}
		t.Fatalf("the HTML report's test cases (%d) are not the run's (%d); - run only, + HTML only:\n%s", len(g), len(w), strings.Join(diff, "\n"))
	}
	t.Logf("%d test cases, statuses equal the run's: %s", len(g), run.Summary.Line())
}
