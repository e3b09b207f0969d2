package engine

import (
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
)

// BySelector names the one candidate element a CSS selector matches (a
// site profile's composer or send control given by selector).
func BySelector(sel string) Target { return Target{Selector: sel} }

// resolveSelector finds the one candidate of o whose element matches sel:
// TARGET_NOT_FOUND for none, TARGET_AMBIGUOUS (naming the candidates) for
// several, INVALID_LOCATOR for a selector that does not compile.
func resolveSelector(o *observe.Observation, sel string) (observe.Element, error) {
	l := locate.Locator{Role: "selector:" + sel}
	m, err := adapter.CompileSelector(sel)
	if err != nil {
		return observe.Element{}, &locate.Error{Code: locate.InvalidLocator, Locator: l, Detail: err.Error()}
	}
	var found []observe.Element
	for _, e := range o.All {
		if n := e.HTMLNode(); n != nil && m.Match(n) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return observe.Element{}, &locate.Error{Code: locate.TargetNotFound, Locator: l}
	case 1:
		return found[0], nil
	}
	var cands []string
	for i, e := range found {
		if i == 5 {
			break
		}
		cands = append(cands, locate.Describe(e))
	}
	return observe.Element{}, &locate.Error{Code: locate.TargetAmbiguous, Locator: l, Count: len(found), Candidates: cands}
}
