package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/replaylab/replaylab/report/reporttest"
)

// sample is a run with every outcome the writers must express.
func sample() *Run {
	step := func(kw, text string, line int, st Status, err string) *Step {
		return &Step{Keyword: kw, Text: text, Line: line, Status: st, Duration: Duration(2 * time.Millisecond), Location: "steps/chat_steps.go:107", Error: err}
	}
	passed := &Attempt{Status: Passed, Duration: Duration(time.Second), Steps: []*Step{step("Given ", "a chat", 4, Passed, ""), step("Then ", "it passes", 5, Passed, "")}}
	r := &Run{Driver: "replay", Seed: 7, Started: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Duration: Duration(3 * time.Second)}
	r.Scenarios = []*Scenario{
		{ID: "features/a.feature:3", Feature: "Answers", FeatureLine: 1, File: "features/a.feature", Line: 3, Keyword: "Scenario", Name: "passes",
			Tags: []Tag{{"@ANS-1", 2}}, Attempts: []*Attempt{passed}},
		{ID: "features/a.feature:8", Feature: "Answers", FeatureLine: 1, File: "features/a.feature", Line: 8, Keyword: "Scenario", Name: "fails on a step",
			Tags: []Tag{}, Attempts: []*Attempt{{Status: Failed, Error: "locate: 2 matches", Code: "TARGET_AMBIGUOUS",
				Steps: []*Step{step("When ", "I click", 9, Failed, "locate: 2 matches"), step("Then ", "never", 10, Skipped, "")}}}},
		{ID: "features/a.feature:12", Feature: "Answers", FeatureLine: 1, File: "features/a.feature", Line: 12, Keyword: "Scenario", Name: "drifts",
			Tags: []Tag{}, Attempts: []*Attempt{{Status: Failed, Drift: true, Error: "golden trace drift for a/drifts\n-old\n+new",
				AfterError: "golden trace drift for a/drifts\n-old\n+new", AfterLocation: "steps/world.go:260", GoldenDiff: "-old\n+new",
				Steps: []*Step{step("Then ", "the last step", 13, Passed, "")}}}},
		{ID: "features/b.feature:5", Feature: "Flakes", FeatureLine: 1, File: "features/b.feature", Line: 5, Keyword: "Scenario", Name: "flaky",
			Tags: []Tag{}, Attempts: []*Attempt{
				{Status: Failed, Error: "first attempt failed", Steps: []*Step{step("Given ", "a marker", 6, Failed, "first attempt failed")}},
				{Status: Passed, Steps: []*Step{step("Given ", "a marker", 6, Passed, "")}}}},
		{ID: "features/b.feature:9", Feature: "Flakes", FeatureLine: 1, File: "features/b.feature", Line: 9, Keyword: "Scenario", Name: "skipped",
			Tags: []Tag{}, Attempts: []*Attempt{{Status: Skipped, Error: "no PostgreSQL", Steps: []*Step{step("Given ", "a database", 10, Skipped, "no PostgreSQL")}}}},
		{ID: "features/b.feature:12", Feature: "Flakes", FeatureLine: 1, File: "features/b.feature", Line: 12, Keyword: "Scenario", Name: "undefined",
			Tags: []Tag{}, Attempts: []*Attempt{{Status: Undefined, Steps: []*Step{{Keyword: "Given ", Text: "I sent \"x\"", Line: 13, Status: Undefined}}}}},
	}
	r.Finish()
	return r
}

func TestSummary(t *testing.T) {
	got := sample().Summary
	want := Summary{Scenarios: 6, Passed: 1, Failed: 2, Flaky: 1, Skipped: 1, Undefined: 1, Drift: 1, Attempts: 7, Duration: got.Duration}
	if got != want {
		t.Fatalf("summary: got %+v, want %+v", got, want)
	}
	if sample().OK(false) {
		t.Fatal("a run with failures passed the gate")
	}
}

// TestJUnitSchema validates the JUnit file against the schema Jenkins
// validates with (reporttest.JUnitXSD) using xmllint, and checks what CI
// systems read from it.
func TestJUnitSchema(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	reporttest.CheckJUnit(t, buf.Bytes())
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			File  string `xml:"file,attr"`
			Tests int    `xml:"tests,attr"`
			Fails int    `xml:"failures,attr"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"failure"`
				Flaky []struct {
					Message string `xml:"message,attr"`
				} `xml:"flakyFailure"`
				Skipped *struct{} `xml:"skipped"`
				Out     string    `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 2 || doc.Suites[0].File != "features/a.feature" || doc.Suites[0].Name != "Answers" || doc.Suites[0].Fails != 2 {
		t.Fatalf("suites: got %+v", doc.Suites)
	}
	a := doc.Suites[0].Cases
	if a[0].Classname != "Answers" || a[0].Name != "passes" || !strings.HasPrefix(a[0].Out, "features/a.feature:3\n") {
		t.Errorf("testcase: got classname %q name %q out %q", a[0].Classname, a[0].Name, a[0].Out)
	}
	if a[1].Failure == nil || a[1].Failure.Type != "TARGET_AMBIGUOUS" || !strings.HasPrefix(a[1].Failure.Message, "features/a.feature:8: ") {
		t.Errorf("failure: got %+v", a[1].Failure)
	}
	if a[2].Failure == nil || a[2].Failure.Type != "GOLDEN_DRIFT" {
		t.Errorf("drift: got %+v", a[2].Failure)
	}
	b := doc.Suites[1].Cases
	if b[0].Failure != nil || len(b[0].Flaky) != 1 || !strings.Contains(b[0].Flaky[0].Message, "attempt 1 of 2: first attempt failed") {
		t.Errorf("flaky: got failure %+v flaky %+v", b[0].Failure, b[0].Flaky)
	}
	if b[1].Skipped == nil || b[2].Failure == nil || b[2].Failure.Type != "UNDEFINED_STEP" {
		t.Errorf("skipped/undefined: got %+v / %+v", b[1], b[2])
	}
}

// TestCucumberSchema validates the Cucumber JSON against cucumber-js's
// schema (reporttest.CucumberSchema, no unknown property allowed).
func TestCucumberSchema(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCucumber(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	reporttest.CheckCucumber(t, buf.Bytes())
	var feats []struct {
		URI      string `json:"uri"`
		Elements []struct {
			Name        string            `json:"name"`
			Description string            `json:"description"`
			Tags        []Tag             `json:"tags"`
			Steps       []json.RawMessage `json:"steps"`
		} `json:"elements"`
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(compact.Bytes(), &feats); err != nil {
		t.Fatal(err)
	}
	drift := feats[0].Elements[2]
	if len(drift.Steps) != 2 || !strings.Contains(string(drift.Steps[0]), `"status":"passed"`) ||
		!strings.Contains(string(drift.Steps[1]), `"hidden":true`) || !strings.Contains(string(drift.Steps[1]), `"keyword":"After"`) {
		t.Errorf("drift must be an After hook of the scenario, the last step passed; got %s", drift.Steps)
	}
	if !strings.Contains(string(feats[0].Elements[0].Steps[0]), `"location":"steps/chat_steps.go:107"`) {
		t.Errorf("match.location: got %s", feats[0].Elements[0].Steps[0])
	}
	flaky := feats[1].Elements[0]
	if n := len(flaky.Tags); n == 0 || flaky.Tags[n-1].Name != "@flaky" || !strings.Contains(flaky.Description, "attempt 1 of 2 failed: first attempt failed") {
		t.Errorf("flaky: got tags %+v description %q", flaky.Tags, flaky.Description)
	}
}

func TestMerge(t *testing.T) {
	all := sample()
	a, b := &Run{Driver: "replay", Shard: "1/2"}, &Run{Driver: "replay", Shard: "2/2"}
	for i, sc := range all.Scenarios {
		if i%2 == 0 {
			a.Scenarios = append(a.Scenarios, sc)
		} else {
			b.Scenarios = append(b.Scenarios, sc)
		}
	}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Summary != all.Summary {
		t.Fatalf("merged summary: got %+v, want %+v", m.Summary, all.Summary)
	}
	if _, err := Merge(a, a); err == nil || !strings.Contains(err.Error(), "exactly one shard") {
		t.Fatalf("merging a shard with itself: got %v", err)
	}
}

// TestCaptureDeltas stores a session and rebuilds every capture the way
// the page does (UTF-16 code units), with non-ASCII text around the change.
func TestCaptureDeltas(t *testing.T) {
	long := strings.Repeat("<p>Ünïcødé 😀 turn</p>", 40)
	pages := []string{long + "<p>a</p>" + long, long + "<p>bé😀</p>" + long, long + "<p>bé😀</p>" + long, "<p>short</p>"}
	var caps []*Page
	var steps []SessionStep
	for i, p := range pages {
		caps = append(caps, page("http://sim.replaylab.test/chat", p))
		steps = append(steps, SessionStep{Kind: "capture", Capture: i})
	}
	var r Run
	r.AddSession("x", caps, steps, nil)
	r.AddSession("y", caps, steps, nil) // the same captures again: stored once
	if len(r.Captures) != 3 {
		t.Fatalf("stored %d captures, want 3 (one repeated, one session twice)", len(r.Captures))
	}
	if r.Captures[1].Frames[0].HTML != nil {
		t.Error("the second capture is not a delta")
	}
	decoded := map[int][]uint16{}
	var decode func(i int) []uint16
	decode = func(i int) []uint16 {
		if d, ok := decoded[i]; ok {
			return d
		}
		f := r.Captures[i].Frames[0]
		var out []uint16
		if f.HTML != nil {
			out = utf16.Encode([]rune(*f.HTML))
		} else {
			prev := decode(f.Base)
			out = append(append(append([]uint16{}, prev[:f.Prefix]...), utf16.Encode([]rune(f.Middle))...), prev[len(prev)-f.Suffix:]...)
		}
		decoded[i] = out
		return out
	}
	for i, st := range r.Sessions["y"].Steps {
		if got := string(utf16.Decode(decode(st.Capture))); got != pages[i] {
			t.Fatalf("capture %d decoded wrong:\ngot  %q\nwant %q", i, got, pages[i])
		}
	}
}

func TestHTMLSelfContained(t *testing.T) {
	r := sample()
	caps := []*Page{page("http://sim.replaylab.test/chat", `<script>alert(1)</script></script><p>hi</p>`)}
	r.AddSession("k", caps, []SessionStep{{Kind: "capture", Capture: 0}}, nil)
	page, err := RenderHTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script src", "<link", "@import", "url(", "</script></script>", "alert(1)</script>"} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("the page holds %q", bad)
		}
	}
	dir := t.TempDir()
	if err := WriteHTML(dir, r); err != nil {
		t.Fatal(err)
	}
	back, err := Load(filepath.Join(dir, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	if back.Summary != r.Summary || len(back.Captures) != 1 {
		t.Fatalf("report.json round trip: got %+v", back.Summary)
	}
	os.WriteFile(filepath.Join(dir, ModelFile), []byte(`{"version":99}`), 0o644)
	if _, err := Load(filepath.Join(dir, ModelFile)); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Fatalf("another version: got %v", err)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"version":1,"scenarios":[{"id":"a:1","attempts":[{"status":"passed"}]}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"captures":[{"frames":[{"id":"main","base":5,"p":3,"s":9}]}]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), ModelFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Load(path)
		if err != nil {
			return
		}
		r.Finish()
		for i, c := range r.Captures {
			for fi := range c.Frames {
				_, _ = r.CaptureHTML(i, fi) // must not panic or loop
			}
		}
		var buf bytes.Buffer
		_ = WriteJUnit(&buf, r)
		_ = WriteCucumber(&buf, r)
		if _, err := RenderHTML(r); err != nil {
			t.Fatal(err)
		}
	})
}

// TestJUnitSuiteTime: a suite's time is the sum of its cases' durations,
// formatted once, so no case's time is lost to rounding on the way (three
// cases of 0.4 ms are a suite of 0.001 s, not 0.000 s) and none is read
// back from text.
func TestJUnitSuiteTime(t *testing.T) {
	tests := []struct {
		name string
		each []time.Duration
		want string
	}{
		{"one case", []time.Duration{1500 * time.Millisecond}, "1.500"},
		{"sub-millisecond cases add up", []time.Duration{400 * time.Microsecond, 400 * time.Microsecond, 400 * time.Microsecond}, "0.001"},
		{"no time", []time.Duration{0, 0}, "0.000"},
		{"long and short", []time.Duration{90 * time.Second, 1234567 * time.Microsecond}, "91.235"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Run{Driver: "replay"}
			for i, d := range tt.each {
				r.Scenarios = append(r.Scenarios, &Scenario{ID: fmt.Sprintf("f.feature:%d", i), Feature: "F", File: "f.feature", Line: i + 1,
					Keyword: "Scenario", Name: fmt.Sprint(i), Attempts: []*Attempt{{Status: Passed, Duration: Duration(d)}}})
			}
			r.Finish()
			var buf bytes.Buffer
			if err := WriteJUnit(&buf, r); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Suites []struct {
					Time string `xml:"time,attr"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Suites) != 1 || doc.Suites[0].Time != tt.want {
				t.Fatalf("got suites %+v, want one of time %s", doc.Suites, tt.want)
			}
		})
	}
}

// page is a one-frame page of html at url.
func page(url, html string) *Page {
	return &Page{URL: url, Frames: []PageFrame{{ID: "main", URL: url, HTML: html}}}
}
