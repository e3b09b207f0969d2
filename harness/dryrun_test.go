package harness

import (
	"context"
	"strings"
	"testing"
)

func TestDurationArg(t *testing.T) {
	for _, tc := range []struct {
		name, v, after string
		isDuration     bool
		problem        string
	}{
		{"milliseconds that fit", "1500", " ms for the answer", true, ""},
		{"milliseconds that overflow a wait", "9999999999999", " ms for the answer", true, "at most 9223372036854 ms"},
		{"seconds that overflow a wait", "9999999999999", " seconds", true, "at most 9223372036 seconds"},
		{"a count is no duration", "3", " times", false, ""},
		{"a number at the end is no duration", "3", "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problem, ok := durationArg(tc.v, tc.after)
			if ok != tc.isDuration {
				t.Fatalf("duration %v, want %v", ok, tc.isDuration)
			}
			if (tc.problem == "") != (problem == "") || !strings.Contains(problem, tc.problem) {
				t.Fatalf("problem %q, want one with %q", problem, tc.problem)
			}
		})
	}
}

func TestJSONGroups(t *testing.T) {
	for _, tc := range []struct {
		name, pattern string
		want          []bool
	}{
		{"an object group", `^(\w+) sends (\d+) with input (\{.*\})$`, []bool{false, false, true}},
		{"an array group", `^the list (\[.*\])$`, []bool{true}},
		{"quoted text", `^I send "([^"]*)"$`, []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := jsonGroups(tc.pattern)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestConvertArgs(t *testing.T) {
	fn := func(ctx context.Context, n int, small int8, f float64, s string) error { return nil }
	for _, tc := range []struct {
		name string
		args []string
		want string // "" for none
	}{
		{"every argument converts", []string{"3", "7", "1.5", "x"}, ""},
		{"an int out of range", []string{"99999999999999999999", "7", "1.5", "x"}, "argument 1: \"99999999999999999999\" is out of range"},
		{"an int8 out of range", []string{"3", "300", "1.5", "x"}, "argument 2: \"300\" is out of range"},
		{"not a float", []string{"3", "7", "x", "x"}, "argument 3: \"x\" is not a number"},
		{"an argument missing", []string{"3", "7", "1.5"}, "takes 4 arguments, the text gives 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(convertArgs(fn, tc.args, false), "; ")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCheckerAmbiguous(t *testing.T) {
	defs := []StepDef{
		{Pattern: `^I send "([^"]*)"$`, Example: `When I send "x"`, Fn: func(context.Context, string) error { return nil }},
		{Pattern: `^I send (.*)$`, Example: `When I send x`, Fn: func(context.Context, string) error { return nil }},
	}
	c, err := NewChecker(defs)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := c.CheckFile(Options{Root: t.TempDir()}, []byte("Feature: F\n  Scenario: S\n    When I send \"hi\"\n    When I send hi\n"), "f.feature", "features/f.feature", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Code != CodeAmbiguousStep || ps[0].Line != 3 {
		t.Fatalf("got %v, want one ambiguous step at line 3", ps)
	}
}
