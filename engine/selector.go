package engine

import (
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
)

// BySelector names the one candidate element a CSS selector matches (a
// site profile's composer or send control given by selector).
func BySelector(sel string) Target { return Target{Selector: sel} }

// InNewest scopes a target to the newest answer group (Target.In).
const InNewest = "newest"

// resolveSelector finds the one candidate of o whose element matches sel
// (inside group, when not ""): TARGET_NOT_FOUND for none,
// TARGET_AMBIGUOUS (naming the candidates) for several, INVALID_LOCATOR
// for a selector that does not compile. Messages name the selector as it
// was given (locate.SelectorRole).
func resolveSelector(o *observe.Observation, sel, group string) (observe.Element, error) {
	l := locate.Locator{Role: locate.SelectorRole + sel}
	m, err := adapter.CompileSelector(sel)
	if err != nil {
		return observe.Element{}, &locate.Error{Code: locate.InvalidLocator, Locator: l, Detail: err.Error()}
	}
	var found []observe.Element
	for _, e := range o.All {
		if group != "" && e.Group != group {
			continue
		}
		if n := e.HTMLNode(); n != nil && m.Match(n) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return observe.Element{}, &locate.Error{Code: locate.TargetNotFound, Locator: l, Detail: inGroup(group)}
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

// resolveIn resolves t on o, scoped to group when not "" (a role and name
// then keep only the matches inside that answer group).
func resolveIn(o *observe.Observation, t Target, group string) (observe.Element, error) {
	if t.Selector != "" {
		return resolveSelector(o, t.Selector, group)
	}
	if group == "" {
		return locate.Resolve(o, t.Locator)
	}
	r, err := o.Find(observe.Query{Role: t.Role, Name: t.Name, Href: t.Href, Limit: observe.MaxFindLimit})
	if err != nil {
		return observe.Element{}, &locate.Error{Code: locate.InvalidLocator, Locator: t.Locator, Detail: err.Error()}
	}
	var kept []observe.Element
	for _, e := range r.Items {
		if e.Group == group {
			kept = append(kept, e)
		}
	}
	r.Items, r.Selection.Matched, r.Selection.Total, r.Selection.HasMore = kept, len(kept), len(kept), false
	el, err := locate.Verdict(t.Locator, r)
	var le *locate.Error
	if asLocate(err, &le) && le.Detail == "" {
		le.Detail = inGroup(group)
	}
	return el, err
}

// scope names the answer group t is scoped to: "" for none, the newest
// group's id for InNewest. A scope that names no group on the page is
// TARGET_NOT_FOUND.
func scope(t Target, groups adapter.Result) (string, error) {
	switch {
	case t.In == "":
		return "", nil
	case t.In == InNewest:
		if n := len(groups.Groups); n > 0 {
			return groups.Groups[n-1].ID, nil
		}
		return "", &locate.Error{Code: locate.TargetNotFound, Locator: t.locator(), Detail: "no answer group on the page (scoped to the newest answer)"}
	}
	for _, g := range groups.Groups {
		if g.ID == t.In {
			return g.ID, nil
		}
	}
	return "", &locate.Error{Code: locate.TargetNotFound, Locator: t.locator(), Detail: "no answer group " + t.In + " on the page"}
}

func inGroup(group string) string {
	if group == "" {
		return ""
	}
	return "inside answer group " + group
}
