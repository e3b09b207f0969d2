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
//	the selector "button.copy"                   a CSS selector that matches one element (an icon button without a name)
//	the button "Copy" in the newest answer       only the matches inside the newest answer group (LIB-5)
//	the button "Copy" in the answer "m2"         only the matches inside that answer group
//
// An ordinal and one context combine ("the 1st button "Delete" in the row
// "a.txt"": Within, then Near, then Nth, as the engine applies them); an
// answer scope comes last and applies to the selector form too.

// targetPattern matches one target phrase; it captures nothing, so a step
// pattern wraps it in one group and its function takes the phrase whole.
const targetPattern = `the (?:\d+(?:st|nd|rd|th) )?\w+ "[^"]*"(?: (?:in the (?:row|item)|near) "[^"]*")?(?: in the (?:newest answer|answer "[^"]*"))?`

// tgt is targetPattern as a step pattern's capture group.
const tgt = `(` + targetPattern + `)`

// targetGrammar is the grammar as the step meanings state it.
const targetGrammar = `the target is the ROLE "NAME", narrowed by an ordinal (the 2nd button "Delete"), a context (… in the row "notes.txt", … in the item "notes.txt") or a nearby text (… near "notes.txt"), as the engine narrows a locator (AGT-3), or the selector "CSS"; either may be scoped to one answer (… in the newest answer, … in the answer "m2"; LIB-5)`

var targetRE = regexp.MustCompile(`^the (?:(\d+)(?:st|nd|rd|th) )?(\w+) "([^"]*)"(?: (in the (?:row|item)|near) "([^"]*)")?(?: in the (newest answer|answer "([^"]*)"))?$`)

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
	t := engine.Target{Locator: l}
	if l.Role == "selector" {
		if l.Nth != 0 || l.Within != "" || l.Near != "" {
			return engine.Target{}, fmt.Errorf("steps: %q: a selector is not narrowed (write a selector that matches one element, or scope it to an answer)", s)
		}
		t = engine.BySelector(l.Name)
	}
	switch {
	case m[6] == "newest answer":
		t.In = engine.InNewest
	case m[6] != "":
		t.In = m[7]
	}
	return t, nil
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
