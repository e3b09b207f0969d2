package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEscapeWorkflowCommand(t *testing.T) {
	tests := []struct {
		name, in, data, property string
	}{
		{"plain", "golden drift", "golden drift", "golden drift"},
		{"percent first", "100%0A", "100%250A", "100%250A"},
		{"percent", "5% done", "5%25 done", "5%25 done"},
		{"newline", "a\nb", "a%0Ab", "a%0Ab"},
		{"carriage return", "a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"colon", "failed: x", "failed: x", "failed%3A x"},
		{"comma", "a, b", "a, b", "a%2C b"},
		{"all", "%:,\r\n", "%25:,%0D%0A", "%25%3A%2C%0D%0A"},
		{"double colon", "a::b", "a::b", "a%3A%3Ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EscapeData(tt.in); got != tt.data {
				t.Errorf("EscapeData(%q) = %q, want %q", tt.in, got, tt.data)
			}
			if got := EscapeProperty(tt.in); got != tt.property {
				t.Errorf("EscapeProperty(%q) = %q, want %q", tt.in, got, tt.property)
			}
		})
	}
}

// githubRun has one scenario of each outcome the annotations tell apart.
func githubRun() *Run {
	r := &Run{Scenarios: []*Scenario{
		{ID: "features/a.feature:3", File: "features/a.feature", Line: 3, Name: "Passes", Attempts: []*Attempt{{Status: Passed}}},
		{ID: "features/a.feature:7", File: "features/a.feature", Line: 7, Name: "Fails, at step 2", Attempts: []*Attempt{{Status: Failed,
			Error: "want 2 groups: got 3\nsnapshot: …", Code: "ASSERT_FAILED",
			Steps: []*Step{{Line: 8, Status: Passed}, {Line: 9, Status: Failed, Error: "want 2 groups: got 3"}, {Line: 10, Status: Skipped}}}}},
		{ID: "features/b.feature:4", File: "features/b.feature", Line: 4, Name: "Drifts", Slug: "b/drifts", Attempts: []*Attempt{{Status: Failed, Drift: true,
			Error:      "golden trace drift for b/drifts; if the new trace is right (check the diff below), rewrite the golden with: replaylab run --update features/b.feature:4\n-navigate\n+click",
			GoldenDiff: "-navigate\n+click", Steps: []*Step{{Line: 5, Status: Passed}}}}},
		{ID: "features/b.feature:12", File: "features/b.feature", Line: 12, Name: "Undefined", Attempts: []*Attempt{{Status: Undefined,
			Steps: []*Step{{Line: 13, Status: Undefined, Text: "a step nobody wrote", Suggestions: []Suggestion{{Example: "a marker-style chat with 2 earlier turns", Meaning: "opens a chat"}}}}}}},
		{ID: "features/c.feature:2", File: "features/c.feature", Line: 2, Name: "Flaky", Attempts: []*Attempt{{Status: Failed, Error: "timeout"}, {Status: Passed}}},
	}}
	r.Finish()
	return r
}

func TestGitHubAnnotations(t *testing.T) {
	anns := Annotations(githubRun(), GitHubOptions{Dir: "e2e"})
	tests := []struct {
		name string
		want string // the whole command, or its prefix when it ends in ::
	}{
		{"failed at the failing step's line, with its code", "::error file=e2e/features/a.feature,line=9,title=failed%3A Fails%2C at step 2::ASSERT_FAILED: want 2 groups: got 3%0Asnapshot: …"},
		{"drift on the scenario's line, with the update hint and the diff", "::error file=e2e/features/b.feature,line=4,title=golden drift%3A Drifts::golden trace drift for b/drifts; if the new trace is right (check the diff below), rewrite the golden with: replaylab run --update features/b.feature:4%0A-navigate%0A+click"},
		{"undefined on the step's line, with the closest steps", "::error file=e2e/features/b.feature,line=13,title=undefined step%3A Undefined::no step definition matches \"a step nobody wrote\"%0Aclosest steps:%0A  a marker-style chat with 2 earlier turns (opens a chat)%0Alist every step with: replaylab steps"},
		{"flaky as a warning", "::warning file=e2e/features/c.feature,line=2,title=flaky%3A Flaky::passed on a retry; attempt 1 of 2 failed: timeout"},
	}
	if len(anns) != len(tests) {
		t.Fatalf("%d annotations, want %d (the passing scenario has none): %v", len(anns), len(tests), anns)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := anns[i].String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if strings.ContainsAny(anns[i].String(), "\r\n") {
				t.Error("a workflow command spans lines")
			}
		})
	}
}

func TestWriteGitHubSummary(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(summary, []byte("earlier step's summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteGitHub(&out, githubRun(), GitHubOptions{SummaryPath: summary}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 4 {
		t.Errorf("%d lines on stdout, want 4 commands:\n%s", n, out.String())
	}
	data, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	for _, want := range []string{
		"earlier step's summary\n### replaylab: failed", // appended, not replaced
		"| 5 | 1 | 2 | 1 | 0 | 1 | 1 | 6 |",
		"| Fails, at step 2 | `features/a.feature:9` | failed |",
		"| Drifts | `features/b.feature:4` | golden drift |",
		"rewrite the golden with: replaylab run --update features/b.feature:4",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary lacks %q:\n%s", want, md)
		}
	}
	// no summary path: annotations only, nothing written
	out.Reset()
	if err := WriteGitHub(&out, githubRun(), GitHubOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteGitHub(&out, githubRun(), GitHubOptions{SummaryPath: filepath.Join(t.TempDir(), "no", "such", "dir", "s.md")}); err == nil {
		t.Error("an unwritable $GITHUB_STEP_SUMMARY is no error")
	}
}
