package steps

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/harness"
)

// TestStepLocations: the pretty output and the Cucumber JSON name the Go
// function implementing each step, not the loop that registers them.
func TestStepLocations(t *testing.T) {
	root := t.TempDir()
	feature := "Feature: L\n  Scenario: One\n    Given a marker-style chat with 1 earlier turns\n"
	if err := os.MkdirAll(filepath.Join(root, "features"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "features", "l.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	cuke := filepath.Join(root, "cucumber.json")
	var out bytes.Buffer
	s, err := NewRunner(harness.Options{Root: root, Dir: root, Format: "pretty,cucumber:" + cuke, Output: &out, Stderr: &out, Update: true}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Run(); st != 0 {
		t.Fatalf("exit %d:\n%s", st, out.String())
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Fatalf("colour codes in output that is not a terminal:\n%q", out.String())
	}
	var want string
	for _, d := range Catalogue() {
		if d.Example == "Given a marker-style chat with 4 earlier turns" {
			want = d.Location()
		}
	}
	if want == "" || strings.HasPrefix(want, "catalogue.go") {
		t.Fatalf("the step's own location is %q", want)
	}
	if !strings.Contains(out.String(), "# "+want+" -> ") || strings.Contains(out.String(), "catalogue.go") {
		t.Fatalf("the pretty output does not name %s:\n%s", want, out.String())
	}
	data, err := os.ReadFile(cuke)
	if err != nil {
		t.Fatal(err)
	}
	var report []struct {
		Elements []struct {
			Steps []struct {
				Match struct {
					Location string `json:"location"`
				} `json:"match"`
			} `json:"steps"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(data, &report); err != nil {
		t.Fatal(err)
	}
	if len(report) != 1 || len(report[0].Elements) != 1 || len(report[0].Elements[0].Steps) != 1 {
		t.Fatalf("unexpected report %s", data)
	}
	// the report package writes the path from the module root (steps/chat_steps.go:120)
	if got := report[0].Elements[0].Steps[0].Match.Location; !strings.HasSuffix(got, "/"+want) && got != want {
		t.Fatalf("Cucumber JSON match.location %q, want %s", got, want)
	}
}
