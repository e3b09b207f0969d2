package steps

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/harness"
)

// TestKeptResult: an engine verdict is left to a result check that follows
// before the next action step, and fails its own step otherwise.
func TestKeptResult(t *testing.T) {
	ambiguous := &locate.Error{Code: locate.TargetAmbiguous, Count: 2}
	tests := []struct {
		name    string
		steps   []string
		err     error
		wantErr string // "" when the step passes
	}{
		{"ok", []string{`I fill the textbox "Email" with "a"`}, nil, ""},
		{"check follows", []string{`I fill the textbox "Email" with "a"`, `the action is refused with "TARGET_AMBIGUOUS"`}, ambiguous, ""},
		{"check after a read", []string{`I click the button "Delete" expecting "Deleted"`, `the page text does not contain "Deleted"`, `the refusal counts 2 matches`}, ambiguous, ""},
		{"alias check follows", []string{`I try to send "x"`, `the send ends with "OUTCOME_UNKNOWN"`}, &engine.Error{Code: engine.OutcomeUnknown}, ""},
		{"no check", []string{`I fill the textbox "Email" with "a"`, `the page text contains "x"`}, ambiguous, `Then the action ends with "TARGET_AMBIGUOUS"`},
		{"the next action comes first", []string{`I fill the textbox "Email" with "a"`, `I click the button "Submit" expecting "Sent"`, `the action ends with "ok"`}, ambiguous, "TARGET_AMBIGUOUS"},
		{"uncoded errors always fail", []string{`I fill the textbox "Email" with "a"`, `the action ends with "ok"`}, errors.New("browser gone"), "browser gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &world{}
			as := stateOf[actionState](w)
			as.texts = tt.steps
			err := w.kept(tt.err)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("kept: %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("kept: %v, want an error with %q", err, tt.wantErr)
			}
			if as.last == nil || as.last.err != tt.err || as.last.step != tt.steps[0] {
				t.Fatalf("kept result %+v, want the step's", as.last)
			}
		})
	}
}

func TestRefusal(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		wantErr string
		count   int
	}{
		{"locate refusal", &locate.Error{Code: locate.TargetAmbiguous, Count: 2, Candidates: []string{"a", "b"}}, "", 2},
		{"blocked task", &engine.Error{Code: engine.TaskBlocked}, "", 0},
		{"delivered then unknown", &engine.Error{Code: engine.OutcomeUnknown}, "after its input reached the page", 0},
		{"success", nil, "it succeeded", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &actionResult{step: "I click", err: tt.err}
			ref, err := r.refusal()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("refusal: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || ref.count != tt.count {
				t.Fatalf("refusal: %+v, %v; want count %d", ref, err, tt.count)
			}
		})
	}
}

// TestNoActionUnderThen: no scenario of the project acts under Then, where
// steps are checks the recording's fingerprint leaves out (the runner
// refuses such a step when it runs; this finds it in scenarios that skip).
func TestNoActionUnderThen(t *testing.T) {
	files, err := filepath.Glob("../features/*.feature")
	if err != nil || len(files) == 0 {
		t.Fatalf("no features: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), (&messages.Incrementing{}).NewId)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range gherkin.Pickles(*doc, f, (&messages.Incrementing{}).NewId) {
			for _, st := range p.Steps {
				if harness.IsCheck(st) && kindOf(st.Text) == KindAction {
					t.Errorf("%s: %q: the action %q is under Then", f, p.Name, st.Text)
				}
			}
		}
	}
}

// TestSelfTestsFor: the self-test steps belong to replaylab's own
// checkout only, or to any root with REPLAYLAB_SELF_TESTS=1; a QA
// project's fixture neither binds nor lists them.
func TestSelfTestsFor(t *testing.T) {
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/qa\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		root string
		env  string
		want bool
	}{
		{"the checkout", "..", "", true},
		{"a QA project", t.TempDir(), "", false},
		{"another module", other, "", false},
		{"a QA project, self-tests asked for", t.TempDir(), "1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(SelfTestsEnv, tt.env)
			if got := SelfTestsFor(tt.root); got != tt.want {
				t.Fatalf("SelfTestsFor(%s) = %v, want %v", tt.root, got, tt.want)
			}
			f, err := New(Options{Root: tt.root})
			if err != nil {
				t.Fatal(err)
			}
			listed := false
			for _, d := range f.Catalogue() {
				listed = listed || d.SelfTest
			}
			if listed != tt.want {
				t.Fatalf("the fixture lists self-test steps: %v, want %v", listed, tt.want)
			}
		})
	}
}
