package steps

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/locate"
)

// The one target grammar of the action steps: a role and an exact name,
// optionally narrowed as the engine narrows a locator (AGT-3,
// locate.Locator's Within, Near and Nth):
//
//	the button "Delete"
//	the 2nd button "Delete"                      nth in page order, from 1
//	the button "Delete" in the row "notes.txt"   within the row (or list item) holding that text
//	the button "Delete" in the item "notes.txt"
//	the button "Delete" near "notes.txt"         the match closest to that visible text
//
// An ordinal and one context combine ("the 1st button "Delete" in the row
// "a.txt"": Within, then Near, then Nth, as the engine applies them).

// targetPattern matches one target phrase; it captures nothing, so a step
// pattern wraps it in one group and its function takes the phrase whole.
const targetPattern = `the (?:\d+(?:st|nd|rd|th) )?\w+ "[^"]*"(?: (?:in the (?:row|item)|near) "[^"]*")?`

// tgt is targetPattern as a step pattern's capture group.
const tgt = `(` + targetPattern + `)`

// targetGrammar is the grammar as the step meanings state it.
const targetGrammar = `the target is the ROLE "NAME", narrowed by an ordinal (the 2nd button "Delete"), a context (… in the row "notes.txt", … in the item "notes.txt") or a nearby text (… near "notes.txt"), as the engine narrows a locator (AGT-3)`

var targetRE = regexp.MustCompile(`^the (?:(\d+)(?:st|nd|rd|th) )?(\w+) "([^"]*)"(?: (in the (?:row|item)|near) "([^"]*)")?$`)

// parseTarget reads a target phrase into the engine's target.
func parseTarget(s string) (engine.Target, error) {
	m := targetRE.FindStringSubmatch(s)
	if m == nil {
		return engine.Target{}, fmt.Errorf("steps: %q is not a target (%s)", s, targetGrammar)
	}
	l := locate.Locator{Role: m[2], Name: m[3]}
	if m[1] != "" {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 {
			return engine.Target{}, fmt.Errorf("steps: %q: the ordinal counts from 1st", s)
		}
		if want := ordinal(n); "the "+want+" " != s[:len("the ")+len(want)+1] {
			return engine.Target{}, fmt.Errorf("steps: %q: write the ordinal %s", s, want)
		}
		l.Nth = n
	}
	switch m[4] {
	case "near":
		l.Near = m[5]
	case "":
	default:
		l.Within = m[5]
	}
	return engine.Target{Locator: l}, nil
}

// ordinal spells n as English does: 1st, 2nd, 3rd, 4th, 11th, 21st.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}
