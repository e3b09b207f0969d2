package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestExploreBadInputExitsTwo(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown flag", []string{"explore", "--bogus"}, "flag provided but not defined"},
		{"no seeds", []string{"explore", "--seeds", "0"}, "seeds must be in"},
		{"too many steps", []string{"explore", "--steps", "100000"}, "steps must be in"},
		{"unknown store", []string{"explore", "--store", "mysql"}, `store "mysql"`},
		{"not a probability", []string{"explore", "--fault-timeout", "2"}, "fault timeout must be a probability"},
		{"probabilities above 1", []string{"explore", "--fault-cancel", "0.7", "--fault-restart", "0.7"}, "add up to"},
		{"negative budget", []string{"explore", "--budget", "-1s"}, "budget"},
		{"unknown planted bug", []string{"explore", "--plant", "nope"}, "planted bug"},
		{"positional argument", []string{"explore", "extra"}, "unexpected arguments"},
		{"not a number", []string{"explore", "--seed", "x"}, "invalid value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitBadInput {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitBadInput, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Fatalf("stderr %q does not mention %q", stderr, tt.want)
			}
		})
	}
	t.Run("postgres without a server", func(t *testing.T) {
		t.Setenv(pgURLEnv, "")
		code, _, stderr := runCLI(t, "explore", "--store", "postgres")
		if code != exitBadInput || !strings.Contains(stderr, pgURLEnv) {
			t.Fatalf("exit %d, stderr %q; want %d naming %s", code, stderr, exitBadInput, pgURLEnv)
		}
	})
}

// TestExploreSeedPrintsTheSameRunTwice: one seed prints its schedule and
// outcome, identically on a second run, and exits 0.
func TestExploreSeedPrintsTheSameRunTwice(t *testing.T) {
	code, first, stderr := runCLI(t, "explore", "--seed", "25", "--steps", "30")
	if code != exitOK {
		t.Fatalf("exit %d; stdout %s stderr %s", code, first, stderr)
	}
	_, second, _ := runCLI(t, "explore", "--seed", "25", "--steps", "30")
	strip := func(s string) string {
		return regexp.MustCompile(`0 violations, .*`).ReplaceAllString(s, "0 violations")
	}
	if strip(first) != strip(second) {
		t.Fatalf("seed 25 printed two ways:\n%s\n---\n%s", first, second)
	}
	for _, want := range []string{"seed 25:", " 30. ", "1 seeds, 30 steps, 2 answer waits, store sqlite, 0 violations", " a2. "} {
		if !strings.Contains(first, want) {
			t.Errorf("stdout does not hold %q:\n%s", want, first)
		}
	}
}

// TestExplorePlantedBugExitsOneWithTheRerunCommand: a violation prints the
// seed as the command that reruns it, the schedule and the shrunk one, and
// exits 1; the printed command reproduces it.
func TestExplorePlantedBugExitsOneWithTheRerunCommand(t *testing.T) {
	code, out, stderr := runCLI(t, "explore", "--seeds", "20", "--progress-every", "0", "--plant", "claim-without-check", "--fault-timeout", "0.1")
	if code != exitFailed {
		t.Fatalf("exit %d, want %d; stdout %s stderr %s", code, exitFailed, out, stderr)
	}
	for _, want := range []string{"explore: VIOLATION at seed ", "schedule (", "shrunk schedule (", "1 violation after"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout does not hold %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`(?m)^rerun: replaylab (explore .*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no rerun command in:\n%s", out)
	}
	if !strings.Contains(m[1], "--plant claim-without-check") || !strings.Contains(m[1], "--fault-timeout 0.1") {
		t.Errorf("rerun command %q drops an option", m[1])
	}
	violation := regexp.MustCompile(`(?m)^explore: VIOLATION .*$`).FindString(out)
	code, again, _ := runCLI(t, strings.Fields(m[1])...)
	if code != exitFailed || !strings.Contains(again, violation) {
		t.Fatalf("rerun %q: exit %d, want 1 and %q:\n%s", m[1], code, violation, again)
	}
}
