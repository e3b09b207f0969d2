package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	messages "github.com/cucumber/messages/go/v34"
)

const messagesFeature = `Feature: Messages
  Background:
    Given a chat with 2 earlier turns

  Scenario: Retried
    When I send "hello"

  Scenario Outline: Row <n>
    When I send "<n>"
    Examples:
      | n |
      | one |
      | two |
`

// messagesRun is a run of messagesFeature: a scenario that failed and
// passed on its retry, an outline row whose golden drifted, one with an
// undefined step.
func messagesRun(t *testing.T) (*Run, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "features"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "features", "m.feature"), []byte(messagesFeature), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	given := func(st Status) *Step {
		return &Step{Keyword: "Given ", Text: "a chat with 2 earlier turns", Line: 3, Status: st, Duration: Duration(time.Millisecond),
			Pattern: `^a chat with (\d+) earlier turns$`, Location: "steps/chat_steps.go:40"}
	}
	send := func(text string, st Status, err string) *Step {
		return &Step{Keyword: "When ", Text: `I send "` + text + `"`, Line: 6, Status: st, Error: err, Duration: Duration(2 * time.Millisecond),
			Pattern: `^I send "([^"]*)"$`, Location: "steps/chat_steps.go:77"}
	}
	r := &Run{Driver: "replay", Started: start, Duration: Duration(time.Second), Scenarios: []*Scenario{
		{ID: "features/m.feature:5", File: "features/m.feature", Line: 5, Name: "Retried", Slug: "messages/retried", Attempts: []*Attempt{
			{Status: Failed, Started: start, Error: "timeout", Steps: []*Step{given(Passed), send("hello", Failed, "timeout")}},
			{Status: Passed, Started: start.Add(time.Second), Steps: []*Step{given(Passed), send("hello", Passed, "")}},
		}},
		{ID: "features/m.feature:12", File: "features/m.feature", Line: 12, Name: "Row one", Slug: "messages/row-one", Attempts: []*Attempt{
			{Status: Failed, Started: start, Drift: true, GoldenDiff: "-click\n+navigate", AfterError: "golden trace drift for messages/row-one\n-click\n+navigate",
				Error: "golden trace drift", Steps: []*Step{given(Passed), send("one", Passed, "")}},
		}},
		{ID: "features/m.feature:13", File: "features/m.feature", Line: 13, Name: "Row two", Attempts: []*Attempt{
			{Status: Undefined, Started: start, Steps: []*Step{given(Passed), {Keyword: "When ", Text: `I send "two"`, Status: Undefined,
				Suggestions: []Suggestion{{Example: `When I send "hello"`, Meaning: "sends a message"}}}}},
		}},
	}}
	r.Finish()
	return r, root
}

func readEnvelopes(t *testing.T, data []byte) []*messages.Envelope {
	t.Helper()
	var out []*messages.Envelope
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var env messages.Envelope
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&env); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, &env)
	}
	return out
}

func kind(e *messages.Envelope) string {
	data, _ := json.Marshal(e)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(data, &m)
	for k := range m {
		return k
	}
	return ""
}

func TestWriteMessages(t *testing.T) {
	r, root := messagesRun(t)
	var buf bytes.Buffer
	if err := WriteMessages(&buf, r, MessageOptions{Root: root, Version: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	envs := readEnvelopes(t, buf.Bytes())
	var kinds []string
	for _, e := range envs {
		if k := kind(e); len(kinds) == 0 || kinds[len(kinds)-1] != k {
			kinds = append(kinds, k)
		}
	}
	wantKinds := "meta source gherkinDocument pickle stepDefinition hook testRunStarted testCase " +
		"testCaseStarted testStepStarted testStepFinished testStepStarted testStepFinished testCaseFinished " + // the first attempt
		"testCaseStarted testStepStarted testStepFinished testStepStarted testStepFinished testCaseFinished " + // its retry
		"testCaseStarted testStepStarted testStepFinished testStepStarted testStepFinished testStepStarted attachment testStepFinished testCaseFinished " + // the drift: the hook step, the diff
		"testCaseStarted testStepStarted testStepFinished testStepStarted suggestion testStepFinished testCaseFinished testRunFinished" // the undefined step's closest steps
	if got := strings.Join(kinds, " "); got != wantKinds {
		t.Fatalf("envelope order\n got %s\nwant %s", got, wantKinds)
	}

	pickleSteps := map[string]bool{}
	testSteps := map[string]*messages.TestStep{}
	started := map[string]*messages.TestCaseStarted{}
	defs := map[string]*messages.StepDefinition{}
	var finished []*messages.TestCaseFinished
	var diff *messages.Attachment
	var runEnd *messages.TestRunFinished
	for _, e := range envs {
		switch {
		case e.Meta != nil:
			if e.Meta.ProtocolVersion != MessagesProtocolVersion || e.Meta.Implementation.Name != "replaylab" || e.Meta.Implementation.Version != "1.2.3" {
				t.Errorf("meta %+v", e.Meta)
			}
		case e.Pickle != nil:
			if len(e.Pickle.Steps) != 2 {
				t.Errorf("pickle %s has %d steps, want the background's and its own", e.Pickle.Name, len(e.Pickle.Steps))
			}
			for _, s := range e.Pickle.Steps {
				pickleSteps[s.Id] = true
			}
		case e.StepDefinition != nil:
			defs[e.StepDefinition.Id] = e.StepDefinition
		case e.TestCase != nil:
			for _, s := range e.TestCase.TestSteps {
				testSteps[s.Id] = s
				if s.HookId == "" && !pickleSteps[s.PickleStepId] {
					t.Errorf("test step %s names pickle step %q, which no pickle has", s.Id, s.PickleStepId)
				}
			}
		case e.TestCaseStarted != nil:
			started[e.TestCaseStarted.Id] = e.TestCaseStarted
		case e.TestStepFinished != nil:
			if started[e.TestStepFinished.TestCaseStartedId] == nil || testSteps[e.TestStepFinished.TestStepId] == nil {
				t.Errorf("testStepFinished names an unknown attempt or step: %+v", e.TestStepFinished)
			}
		case e.TestCaseFinished != nil:
			finished = append(finished, e.TestCaseFinished)
		case e.Attachment != nil:
			diff = e.Attachment
		case e.TestRunFinished != nil:
			runEnd = e.TestRunFinished
		case e.Suggestion != nil:
			if !pickleSteps[e.Suggestion.PickleStepId] || len(e.Suggestion.Snippets) != 1 || e.Suggestion.Snippets[0].Code != `When I send "hello" # sends a message` {
				t.Errorf("suggestion %+v", e.Suggestion)
			}
		}
	}
	if len(defs) != 2 {
		t.Errorf("%d step definitions, want the 2 the run matched", len(defs))
	}
	for _, d := range defs {
		if d.SourceReference.Uri != "steps/chat_steps.go" || d.SourceReference.Location == nil || d.Pattern.Type != messages.StepDefinitionPatternType_REGULAR_EXPRESSION {
			t.Errorf("step definition %+v", d)
		}
	}
	var args []string
	undefinedSteps := 0
	for _, s := range testSteps {
		if s.HookId != "" {
			continue
		}
		if len(s.StepDefinitionIds) == 0 {
			undefinedSteps++
			continue
		}
		for _, l := range s.StepMatchArgumentsLists {
			for _, a := range l.StepMatchArguments {
				args = append(args, a.Group.Value)
			}
		}
	}
	if undefinedSteps != 1 {
		t.Errorf("%d test steps without a definition, want 1 (the undefined one)", undefinedSteps)
	}
	if got := strings.Join(args, ","); !strings.Contains(got, "hello") || !strings.Contains(got, "one") {
		t.Errorf("step match arguments %q", got)
	}
	attempts := map[int64]int{}
	for _, s := range started {
		attempts[s.Attempt]++
	}
	if attempts[0] != 3 || attempts[1] != 1 {
		t.Errorf("attempts %v, want three first attempts and one retry", attempts)
	}
	if len(finished) != 4 || !finished[0].WillBeRetried || finished[1].WillBeRetried {
		t.Errorf("willBeRetried of the attempts: %+v", finished)
	}
	if diff == nil || diff.MediaType != MediaDiff || diff.Body != "-click\n+navigate" || testSteps[diff.TestStepId].HookId == "" {
		t.Errorf("the golden diff attachment %+v, want text/x.diff on the after-scenario hook step", diff)
	}
	if runEnd == nil || runEnd.Success {
		t.Errorf("testRunFinished %+v, want success false", runEnd)
	}
}

// TestWriteMessagesMergedShards: shards merged on the model are one
// stream, equal to the unsharded run's but for ids.
func TestWriteMessagesMergedShards(t *testing.T) {
	whole, root := messagesRun(t)
	a, _ := messagesRun(t)
	b, _ := messagesRun(t)
	a.Shard, a.Scenarios = "1/2", a.Scenarios[:1]
	b.Shard, b.Scenarios = "2/2", b.Scenarios[1:]
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	count := func(r *Run) map[string]int {
		var buf bytes.Buffer
		if err := WriteMessages(&buf, r, MessageOptions{Root: root}); err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, e := range readEnvelopes(t, buf.Bytes()) {
			n[kind(e)]++
		}
		return n
	}
	got, want := count(m), count(whole)
	if len(got) != len(want) {
		t.Fatalf("merged %v, unsharded %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: merged %d, unsharded %d", k, got[k], n)
		}
	}
	if got["meta"] != 1 || got["testRunStarted"] != 1 || got["testCase"] != 3 {
		t.Errorf("merged stream %v, want one run of 3 test cases", got)
	}
}

func TestWriteMessagesSourceErrors(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(r *Run, root string)
		want   string
	}{
		{"feature file gone", func(r *Run, root string) { os.Remove(filepath.Join(root, "features", "m.feature")) }, "no such file"},
		{"scenario moved", func(r *Run, root string) { r.Scenarios[0].Line = 99 }, "no scenario or example row at line 99"},
		{"steps changed", func(r *Run, root string) {
			r.Scenarios[0].Attempts[0].Steps = r.Scenarios[0].Attempts[0].Steps[:1]
		}, "has 2 steps"},
		{"not gherkin", func(r *Run, root string) {
			os.WriteFile(filepath.Join(root, "features", "m.feature"), []byte("Feature: x\n  Scenario: y\n    Given z\n  Examples:\n"), 0o644)
		}, "m.feature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, root := messagesRun(t)
			tt.break_(r, root)
			err := WriteMessages(&bytes.Buffer{}, r, MessageOptions{Root: root})
			if !errors.Is(err, ErrMessagesSource) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want ErrMessagesSource saying %q", err, tt.want)
			}
		})
	}
}
