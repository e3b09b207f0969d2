package steps

import (
	"regexp"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/locate"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		name, in string
		want     locate.Locator
	}{
		{"role and name", `the button "Delete"`, locate.Locator{Role: "button", Name: "Delete"}},
		{"in the row", `the button "Delete" in the row "notes.txt"`, locate.Locator{Role: "button", Name: "Delete", Within: "notes.txt"}},
		{"in the item", `the link "Open" in the item "Q3 report"`, locate.Locator{Role: "link", Name: "Open", Within: "Q3 report"}},
		{"near", `the textbox "Comment" near "notes.txt"`, locate.Locator{Role: "textbox", Name: "Comment", Near: "notes.txt"}},
		{"nth", `the 2nd button "Delete"`, locate.Locator{Role: "button", Name: "Delete", Nth: 2}},
		{"nth in a row", `the 1st checkbox "Keep" in the row "a.txt"`, locate.Locator{Role: "checkbox", Name: "Keep", Within: "a.txt", Nth: 1}},
		{"eleventh", `the 11th link "More"`, locate.Locator{Role: "link", Name: "More", Nth: 11}},
		{"twenty-first", `the 21st link "More"`, locate.Locator{Role: "link", Name: "More", Nth: 21}},
		{"empty name", `the button ""`, locate.Locator{Role: "button"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTarget(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Locator != tt.want {
				t.Errorf("parseTarget(%q) = %+v, want %+v", tt.in, got.Locator, tt.want)
			}
		})
	}
}

// Selectors and answer scopes (LIB-5): the engine target they make.
func TestParseTargetScoped(t *testing.T) {
	tests := []struct {
		name, in string
		want     engine.Target
	}{
		{"a selector", `the selector "button.copy"`, engine.Target{Selector: "button.copy"}},
		{"in the newest answer", `the button "Copy" in the newest answer`, engine.Target{Locator: locate.Locator{Role: "button", Name: "Copy"}, In: engine.InNewest}},
		{"in a named answer", `the button "Copy" in the answer "m2"`, engine.Target{Locator: locate.Locator{Role: "button", Name: "Copy"}, In: "m2"}},
		{"a selector in the newest answer", `the selector "button.regen" in the newest answer`, engine.Target{Selector: "button.regen", In: engine.InNewest}},
		{"a row, then an answer", `the button "Copy" in the row "x" in the answer "m2"`, engine.Target{Locator: locate.Locator{Role: "button", Name: "Copy", Within: "x"}, In: "m2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTarget(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("parseTarget(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseTargetRefuses(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"zeroth", `the 0th button "Delete"`, "counts from 1st"},
		{"wrong suffix", `the 2th button "Delete"`, "write the ordinal 2nd"},
		{"eleventh spelled 11st", `the 11st link "More"`, "write the ordinal 11th"},
		{"no quotes", `the button Delete`, "is not a target"},
		{"a narrowed selector", `the 2nd selector "button"`, "a selector is not narrowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseTarget(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseTarget(%q) = %v, want an error with %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestTargetPatternMatchesGrammar: every phrase the parser reads is one
// the step patterns accept, and the other way round.
func TestTargetPatternMatchesGrammar(t *testing.T) {
	for _, s := range []string{`the button "Delete"`, `the 2nd button "Delete" near "x"`, `the button "A" in the item "b"`, `the button "A" in the table "b"`, `the second button "A"`,
		`the button "Copy" in the newest answer`, `the selector "button.copy" in the answer "m2"`, `the button "Copy" in the oldest answer`} {
		_, err := parseTarget(s)
		if pat := strings.HasPrefix(s, "the ") && mustMatch(targetPattern, s); pat != (err == nil) {
			t.Errorf("%q: the step pattern matches=%v, the parser err=%v", s, pat, err)
		}
	}
}

func mustMatch(pattern, s string) bool {
	return regexp.MustCompile(`^` + pattern + `$`).MatchString(s)
}
