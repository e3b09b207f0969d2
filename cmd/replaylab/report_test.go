package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/report"
	"github.com/replaylab/replaylab/report/reporttest"
)

// scratchProject copies features and their recordings from the checkout
// into a temp root (harness.CopyProject; none named: the whole suite), so a
// test can break a golden without touching the repository's.
func scratchProject(t *testing.T, features ...string) string {
	t.Helper()
	root := t.TempDir()
	files := make([]string, len(features))
	for i, f := range features {
		files[i] = f + ".feature"
	}
	if err := harness.CopyProject("../..", root, files...); err != nil {
		t.Fatal(err)
	}
	return root
}

// headless starts a Chromium of the test's own (chromedp directly) and
// returns a tab; without Chromium it skips locally and fails in CI.
func headless(t *testing.T) context.Context {
	t.Helper()
	return headlessFor(t, 90*time.Second)
}

// headlessFor is headless with a hang guard of its own.
func headlessFor(t *testing.T, guard time.Duration) context.Context {
	t.Helper()
	path, err := browser.FindChromium()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skipf("SKIPPING browser test: %v", err)
	}
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts, chromedp.ExecPath(path), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 1000))
	for k, v := range browser.Flags {
		opts = append(opts, chromedp.Flag(k, v))
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, guard)
	t.Cleanup(func() { tcancel(); cancel(); acancel() })
	return ctx
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// TestHTMLReportInChromium runs the whole suite with one golden broken,
// writes the HTML report, and opens it from disk in headless
// Chromium: the list renders, the filters work, the failed scenario shows
// its golden diff, and the time-travel frame shows the composer's text the
// engine typed, stepping with the keyboard. The screenshot is kept.
func TestHTMLReportInChromium(t *testing.T) {
	root := scratchProject(t)
	// break one golden (not of answer_groups: features/reports.feature
	// copies those into its own scratch project)
	goldens, _ := filepath.Glob(filepath.Join(root, "recordings", "golden", "locator", "*.golden"))
	if len(goldens) == 0 {
		t.Fatal("no locator goldens")
	}
	golden := goldens[0]
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden, append(data, "navigate page=main url=elsewhere\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "html")
	code, out, stderr := runCLI(t, "run", "--root", root, "--format", "progress,html:"+dir)
	if code != exitFailed {
		t.Fatalf("run with a broken golden: exit %d, want %d\n%s\n%s", code, exitFailed, out, stderr)
	}
	if !strings.Contains(stderr, "HTML report "+filepath.Join(dir, "index.html")) {
		t.Fatalf("the run did not name its report:\n%s", stderr)
	}
	ctx := headless(t)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, "index.html"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`body[data-ready="true"]`)); err != nil {
		t.Fatal(err)
	}
	total := eval[int](t, ctx, `document.querySelectorAll("#list li").length`)
	if total < 10 {
		t.Fatalf("the scenario list shows %d scenarios", total)
	}
	filter := func(status, text string) int {
		t.Helper()
		return eval[int](t, ctx, fmt.Sprintf(`(function(){var s=document.getElementById("f-status"); s.value=%q; s.dispatchEvent(new Event("change"));
			var q=document.getElementById("f-text"); q.value=%q; q.dispatchEvent(new Event("input"));
			return Number(document.getElementById("list").getAttribute("data-shown"))})()`, status, text))
	}
	if n := filter("failed", ""); n != 1 {
		m, _ := report.Load(filepath.Join(dir, report.ModelFile))
		var failed []string
		for _, sc := range m.Scenarios {
			if sc.Status == report.Failed {
				failed = append(failed, sc.ID+": "+sc.Last().Error)
			}
		}
		t.Errorf("status filter failed: %d shown, want 1: %s", n, strings.Join(failed, "\n"))
	}
	if n := filter("drift", ""); n != 1 {
		t.Errorf("status filter drift: %d shown, want 1", n)
	}
	if n := filter("", "heading-style"); n == 0 || n == total {
		t.Errorf("text filter heading: %d of %d shown", n, total)
	}
	tagged := eval[int](t, ctx, `(function(){var s=document.getElementById("f-tag"); s.value="@ANS-3"; s.dispatchEvent(new Event("change"));
		var n=Number(document.getElementById("list").getAttribute("data-shown")); s.value=""; s.dispatchEvent(new Event("change")); return n})()`)
	if tagged == 0 || tagged == total {
		t.Errorf("tag filter @ANS-3: %d of %d shown", tagged, total)
	}
	if n := filter("", ""); n != total {
		t.Errorf("no filter: %d of %d shown", n, total)
	}
	// the failed scenario opens first, with its diff
	diff := eval[string](t, ctx, `(document.getElementById("golden-diff")||{}).textContent||""`)
	if !strings.Contains(diff, "-navigate page=main url=elsewhere") {
		t.Errorf("the failed scenario's golden diff is missing or wrong:\n%s", diff)
	}
	if st := eval[string](t, ctx, `document.getElementById("detail-status").textContent`); st != "failed" {
		t.Errorf("detail status %q", st)
	}
	// time travel: open the scenario that sends a question, then step with
	// the keyboard until the composer shows the text the engine typed
	if !eval[bool](t, ctx, `(function(){var li=[].slice.call(document.querySelectorAll("#list li")).filter(function(l){
		return l.querySelector(".name").textContent==="A partial answer is followed to completion in the new group (marker)"})[0];
		if(!li) return false; li.click(); return true})()`) {
		t.Fatal("the scenario list has no \"A partial answer is followed to completion in the new group (marker)\"")
	}
	frameText := `(function(){var f=document.getElementById("tt-frame"); var d=f&&f.contentDocument; if(!d||!d.body) return "";
		var c=d.querySelector("textarea,[contenteditable],input[type=text]"); return (c?(c.value||c.textContent):"")+"|"+d.body.textContent})()`
	seen := false
	var positions []string
	for i := 0; i < 12 && !seen; i++ {
		pos := eval[string](t, ctx, `document.getElementById("tt-pos").getAttribute("data-pos")`)
		positions = append(positions, pos)
		// the srcdoc loads asynchronously in Chromium: poll for this
		// position's document, bounded only against a hang
		for start := time.Now(); eval[string](t, ctx, `(function(){var d=document.getElementById("tt-frame").contentDocument; return d&&d.documentElement?d.documentElement.getAttribute("data-rl-pos")||"":""})()`) != pos; time.Sleep(50 * time.Millisecond) {
			if time.Since(start) > time.Minute {
				t.Fatalf("the frame did not show position %s within a minute (a hang guard)", pos)
			}
		}
		txt := eval[string](t, ctx, frameText)
		composer, _, _ := strings.Cut(txt, "|")
		if strings.Contains(composer, "What is the capital of France?") {
			seen = true
			break
		}
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
			t.Fatal(err)
		}
	}
	if !seen {
		t.Errorf("no capture showed the composer's text in the frame (positions %v)", positions)
	}
	if len(positions) > 1 && positions[0] == positions[len(positions)-1] {
		t.Errorf("the arrow key did not move through the captures: %v", positions)
	}
	if n := eval[int](t, ctx, `document.getElementById("tt-frame").contentDocument.querySelectorAll("script").length`); n != 0 {
		t.Errorf("the capture frame holds %d scripts", n)
	}
	if sb := eval[string](t, ctx, `document.getElementById("tt-frame").getAttribute("sandbox")`); strings.Contains(sb, "allow-scripts") {
		t.Errorf("the capture frame may run scripts: sandbox=%q", sb)
	}
	if snap := eval[string](t, ctx, `document.getElementById("tt-snapshot").textContent`); !strings.Contains(snap, "view page of") {
		t.Errorf("no bounded snapshot beside the capture: %q", snap)
	}
	eval[bool](t, ctx, `(document.getElementById("tt").scrollIntoView(), true)`)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	art, err := os.MkdirTemp("", "replaylab-report-artefact-")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(art, "report.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "TestHTMLReportInChromium: screenshot %s (%d bytes); the whole suite's report %s: %d bytes, %d scenarios\n",
		path, len(shot), dir, report.Size(dir), total)
}

// TestReportFilesValid runs real scenarios, one of them drifting from its
// golden, and checks the JUnit file against Jenkins's schema (xmllint) and
// the Cucumber JSON against cucumber-js's, and where the drift is reported.
func TestReportFilesValid(t *testing.T) {
	root := scratchProject(t, "answer_groups")
	golden := filepath.Join(root, "recordings", "golden", "answer-groups", "marker-style-turns-are-groups-named-by-their-message-ids.golden")
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden, append(data, "extra line\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	junit, cuke := filepath.Join(out, "junit.xml"), filepath.Join(out, "cucumber.json")
	code, stdout, stderr := runCLI(t, "run", "--root", root, "--format", "junit:"+junit+",cucumber:"+cuke)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	reporttest.CheckJUnit(t, x)
	doc, err := os.ReadFile(cuke)
	if err != nil {
		t.Fatal(err)
	}
	reporttest.CheckCucumber(t, doc)
	var feats []struct {
		Elements []struct {
			Name  string `json:"name"`
			Steps []struct {
				Hidden  bool   `json:"hidden"`
				Keyword string `json:"keyword"`
				Match   struct {
					Location string `json:"location"`
				} `json:"match"`
				Result struct {
					Status string `json:"status"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(doc, &feats); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, el := range feats[0].Elements {
		for i, st := range el.Steps {
			if !st.Hidden && (st.Match.Location == "" || strings.Contains(st.Match.Location, "catalogue.go")) {
				t.Errorf("%s step %d: match.location %q is not the step's function", el.Name, i, st.Match.Location)
			}
		}
		if el.Name != "Marker-style turns are groups named by their message ids" {
			continue
		}
		found = true
		n := len(el.Steps)
		if n < 2 || !el.Steps[n-1].Hidden || el.Steps[n-1].Keyword != "After" || el.Steps[n-1].Result.Status != "failed" || el.Steps[n-2].Result.Status != "passed" {
			t.Errorf("the drift is not on the scenario: %+v", el.Steps)
		}
	}
	if !found {
		t.Error("the drifting scenario is not in the Cucumber JSON")
	}
	if !strings.Contains(string(x), `classname="Answer groups"`) || !strings.Contains(string(x), `file="features/answer_groups.feature"`) || !strings.Contains(string(x), `type="GOLDEN_DRIFT"`) {
		t.Errorf("junit lacks classname, file or the drift's type:\n%.2000s", x)
	}
}

// TestShardsMergeEqualsUnsharded runs the whole suite (replay driver) as 4
// shards with HTML reports, merges them with merge-reports, and compares
// the merged model with one unsharded run: the same scenarios, each with
// the same outcome, and the same counts; every scenario ran in exactly one
// shard.
func TestShardsMergeEqualsUnsharded(t *testing.T) {
	tmp := t.TempDir()
	wholeStream := filepath.Join(tmp, "whole.ndjson")
	code, out, stderr := runCLI(t, "run", "--root", "../..", "--format", "html:"+filepath.Join(tmp, "whole")+",message:"+wholeStream)
	if code != exitOK {
		t.Fatalf("unsharded run: exit %d\n%s\n%s", code, out, stderr)
	}
	var dirs []string
	seen := map[string]string{}
	for i := 1; i <= 4; i++ {
		dir := filepath.Join(tmp, fmt.Sprintf("shard-%d", i))
		code, out, stderr := runCLI(t, "run", "--root", "../..", "--shard", fmt.Sprintf("%d/4", i), "--format", "html:"+dir)
		if code != exitOK {
			t.Fatalf("shard %d/4: exit %d\n%s\n%s", i, code, out, stderr)
		}
		m, err := report.Load(filepath.Join(dir, report.ModelFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Scenarios) == 0 {
			t.Errorf("shard %d/4 ran no scenario", i)
		}
		for _, sc := range m.Scenarios {
			if prev, ok := seen[sc.ID]; ok {
				t.Errorf("%s ran in shard %s and shard %d", sc.ID, prev, i)
			}
			seen[sc.ID] = fmt.Sprint(i)
		}
		dirs = append(dirs, dir)
	}
	merged := filepath.Join(tmp, "merged")
	code, out, stderr = runCLI(t, append([]string{"merge-reports", "--out", merged, "--root", "../.."}, dirs...)...)
	if code != exitOK {
		t.Fatalf("merge-reports: exit %d\n%s\n%s", code, out, stderr)
	}
	m, err := report.Load(filepath.Join(merged, report.ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := report.Load(filepath.Join(tmp, "whole", report.ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	outcomes := func(r *report.Run) map[string]report.Status {
		o := map[string]report.Status{}
		for _, sc := range r.Scenarios {
			o[sc.ID] = sc.Status
		}
		return o
	}
	got, want := outcomes(m), outcomes(whole)
	if len(got) != len(want) {
		t.Errorf("merged %d scenarios, unsharded %d", len(got), len(want))
	}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("%s: merged %q, unsharded %q", id, got[id], st)
		}
	}
	ms, ws := m.Summary, whole.Summary
	ms.Duration, ws.Duration = 0, 0
	if ms != ws {
		t.Errorf("merged summary %s, unsharded %s", ms.Line(), ws.Line())
	}
	for _, f := range []string{report.HTMLFile, report.JUnitFile, report.CucumberFile} {
		if st, err := os.Stat(filepath.Join(merged, f)); err != nil || st.Size() == 0 {
			t.Errorf("merged %s: %v", f, err)
		}
	}
	// the shards' message streams merge into one: one run, the same test
	// cases with the same results as the unsharded run's stream
	gotCases, gotRuns := streamOutcomes(t, filepath.Join(merged, report.MessagesFile))
	wantCases, _ := streamOutcomes(t, wholeStream)
	if gotRuns != 1 {
		t.Errorf("the merged stream has %d testRunStarted, want 1", gotRuns)
	}
	if len(gotCases) != len(wantCases) || len(gotCases) != len(want) {
		t.Errorf("merged stream %d test cases, unsharded stream %d, run %d", len(gotCases), len(wantCases), len(want))
	}
	for k, st := range wantCases {
		if gotCases[k] != st {
			t.Errorf("stream %s: merged %q, unsharded %q", k, gotCases[k], st)
		}
	}
	fmt.Fprintf(os.Stderr, "TestShardsMergeEqualsUnsharded: %s; merged HTML %d bytes\n", ms.Line(), report.Size(merged))
}

func TestMergeReportsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no directory", []string{"merge-reports"}, "got none"},
		{"not a report", []string{"merge-reports", dir}, "no report.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, exitBadInput, tc.want, stderr)
			}
		})
	}
	os.WriteFile(filepath.Join(dir, report.ModelFile), []byte(`{"version":7}`), 0o644)
	if code, _, stderr := runCLI(t, "merge-reports", "--out", t.TempDir(), dir); code != exitBadInput || !strings.Contains(stderr, "version 7") {
		t.Fatalf("another version: exit %d\n%s", code, stderr)
	}
}

// TestHTMLReportNavigation opens a report of a replayed run in headless
// Chromium: the filters show their counts, a link by scenario id opens
// that scenario, clicking a step shows the capture it read, step times
// are the recording's lab time (a replay's wall time means nothing), and
// an undefined step lists the closest catalogue steps.
func TestHTMLReportNavigation(t *testing.T) {
	root := scratchProject(t, "answer_groups")
	typo := "Feature: Typo\n  Scenario: Steps nobody defined\n    Given a marker style chat\n"
	if err := os.WriteFile(filepath.Join(root, "features", "typo.feature"), []byte(typo), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "html")
	code, out, stderr := runCLI(t, "run", "--root", root, "--format", "progress,html:"+dir)
	if code != exitFailed {
		t.Fatalf("run with an undefined step: exit %d, want %d\n%s\n%s", code, exitFailed, out, stderr)
	}
	m, err := report.Load(filepath.Join(dir, report.ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	passed, target := 0, ""
	for _, sc := range m.Scenarios {
		if sc.Status == report.Passed {
			passed++
		}
		if sc.Name == "A partial answer is followed to completion in the new group (marker)" {
			target = sc.ID
		}
	}
	if target == "" {
		t.Fatal("the report has no \"A partial answer is followed to completion in the new group (marker)\"")
	}
	ctx := headless(t)
	open := func(hash string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, "index.html")+hash)); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Reload()); err != nil { // a new hash alone does not reload
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.WaitVisible(`body[data-ready="true"]`)); err != nil {
			t.Fatal(err)
		}
	}
	open("")
	// counts beside every filter
	if n := eval[string](t, ctx, `document.querySelector('#f-status option[value="passed"]').getAttribute("data-count")`); n != fmt.Sprint(passed) {
		t.Errorf("the passed filter counts %s, want %d", n, passed)
	}
	if got, want := eval[string](t, ctx, `document.getElementById("f-count").textContent`), fmt.Sprintf("%d of %d shown", len(m.Scenarios), len(m.Scenarios)); got != want {
		t.Errorf("filter count %q, want %q", got, want)
	}
	if n := eval[string](t, ctx, `document.querySelector('#f-tag option[value="@ANS-3"]').textContent`); !strings.HasPrefix(n, "@ANS-3 (") || n == "@ANS-3 (0)" {
		t.Errorf("the @ANS-3 tag filter reads %q", n)
	}
	// the undefined step lists the closest catalogue steps
	open("#id=" + url.QueryEscape("features/typo.feature:2"))
	sug := eval[string](t, ctx, `(document.querySelector("#steps ul.suggest li code")||{}).textContent||""`)
	if sug != "Given a marker-style chat with 4 earlier turns" {
		t.Errorf("first suggestion for the undefined step %q", sug)
	}
	// a link by id opens its scenario and is the address the page keeps
	open("#id=" + url.QueryEscape(target))
	if h := eval[string](t, ctx, `document.querySelector("#detail h2").textContent`); h != "A partial answer is followed to completion in the new group (marker)" {
		t.Fatalf("#id=%s opened %q", target, h)
	}
	if h := eval[string](t, ctx, `location.hash`); h != "#id="+url.QueryEscape(target) {
		t.Errorf("the page's address ends %q, want #id=%s", h, url.QueryEscape(target))
	}
	// replayed: no step shows a wall time; steps that read pages show lab time
	durs := eval[[]string](t, ctx, `[].map.call(document.querySelectorAll("#steps td.dur"), function(td){return td.textContent})`)
	lab := 0
	for _, d := range durs {
		if strings.HasSuffix(d, " s") {
			t.Errorf("a replayed step shows a wall time %q", d)
		}
		if strings.HasPrefix(d, "lab ") {
			lab++
		}
	}
	if lab == 0 {
		t.Errorf("no step shows the lab time it spans: %q", durs)
	}
	// clicking "I wait for the answer" shows a capture read during it
	k := eval[int](t, ctx, `(function(){var rows=[].slice.call(document.querySelectorAll("#steps tr"));
		for(var i=0;i<rows.length;i++){ if(rows[i].textContent.indexOf("I wait for the answer")>=0){ rows[i].click(); return i } } return -1})()`)
	if k < 0 {
		t.Fatal("no step \"I wait for the answer\"")
	}
	if pos := eval[string](t, ctx, `document.getElementById("tt-pos").textContent`); !strings.Contains(pos, fmt.Sprintf("during step %d:", k+1)) {
		t.Errorf("after clicking step %d the capture shown is %q", k+1, pos)
	}
	if cur := eval[string](t, ctx, `(document.querySelector("#steps tr.cur")||{getAttribute:function(){return ""}}).getAttribute("data-step")`); cur != fmt.Sprint(k) {
		t.Errorf("the highlighted step is %q, want %d", cur, k)
	}
}

// streamOutcomes reads a Cucumber Messages stream: each test case's
// pickle (uri:line) with the statuses of its last attempt's steps, and
// how many runs the stream holds.
func streamOutcomes(t *testing.T, path string) (map[string]string, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pickles := map[string]string{} // pickle id -> uri:line
	cases := map[string]string{}   // test case id -> pickle key
	started := map[string]string{} // test case started id -> test case id
	last := map[string]string{}    // test case id -> its last attempt's id
	steps := map[string][]string{} // test case started id -> step statuses
	runs := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var env messages.Envelope
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch {
		case env.TestRunStarted != nil:
			runs++
		case env.Pickle != nil:
			pickles[env.Pickle.Id] = fmt.Sprintf("%s:%d", env.Pickle.Uri, env.Pickle.Location.Line)
		case env.TestCase != nil:
			cases[env.TestCase.Id] = pickles[env.TestCase.PickleId]
		case env.TestCaseStarted != nil:
			started[env.TestCaseStarted.Id] = env.TestCaseStarted.TestCaseId
			last[env.TestCaseStarted.TestCaseId] = env.TestCaseStarted.Id
		case env.TestStepFinished != nil:
			id := env.TestStepFinished.TestCaseStartedId
			steps[id] = append(steps[id], string(env.TestStepFinished.TestStepResult.Status))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for tc, key := range cases {
		out[key] = strings.Join(steps[last[tc]], " ")
	}
	return out, runs
}
