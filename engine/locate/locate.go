// Package locate resolves role/name locators to exactly one element of a
// fresh observation (SPEC LOC-1..4, ID-1). It never guesses: more than one
// match, a truncated query and no match are each their own error, and no
// input is delivered on any of them.
package locate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/observe"
)

// The codes of this package (they are errcode values).
const (
	TargetAmbiguous      = errcode.TargetAmbiguous
	TargetQueryTruncated = errcode.TargetQueryTruncated
	TargetNotFound       = errcode.TargetNotFound
	StaleRef             = errcode.StaleRef
	InvalidLocator       = errcode.InvalidLocator
	// InvalidRef: the ref was never issued on this page (malformed, or
	// from a snapshot not taken yet, or past the snapshot's elements).
	InvalidRef = errcode.InvalidRef
)

// Error is a failed resolve with what the fresh find saw.
type Error struct {
	Code    errcode.Code
	Locator Locator
	Count   int
	// Candidates describe the matches: role, name, frame and ref — never
	// typed values.
	Candidates []string
	Detail     string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("locate: %s for %s", e.Code, e.Locator)
	if e.Count > 0 {
		msg += fmt.Sprintf(": %d matches", e.Count)
	}
	if len(e.Candidates) > 0 {
		msg += " (" + strings.Join(e.Candidates, "; ") + ")"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Is makes errors.Is(err, locate.TargetAmbiguous) true.
func (e *Error) Is(target error) bool { return target == e.Code }

// ErrorCode returns the stable code.
func (e *Error) ErrorCode() string { return string(e.Code) }

// Locator is getByRole(role, name) with an optional href, narrowed
// (AGT-3) by Within, Near and Nth, applied in that order to the matches
// of role, name and href.
type Locator struct {
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
	Href string `json:"href,omitempty"`
	// Within keeps the matches inside a context: a ref (the matches in
	// the same row, list item, group or landmark as that element) or a
	// text the match's context contains (case-insensitive), e.g. the
	// row's "notes.txt".
	Within string `json:"within,omitempty"`
	// Near keeps the matches closest to a visible text: those whose
	// nearest enclosing element holding the text is the smallest.
	Near string `json:"near,omitempty"`
	// Nth picks the nth of the remaining matches in page order, from 1.
	Nth int `json:"nth,omitempty"`
}

// Narrowed reports whether the locator narrows its matches.
func (l Locator) Narrowed() bool { return l.Within != "" || l.Near != "" || l.Nth != 0 }

// SelectorRole prefixes the Role of a Locator that stands for a CSS
// selector in errors (an engine target given by selector); String names it
// as the selector it is.
const SelectorRole = "selector:"

func (l Locator) String() string {
	if sel, ok := strings.CutPrefix(l.Role, SelectorRole); ok {
		return "selector " + strconv.Quote(sel)
	}
	s := "role=" + l.Role
	if l.Name != "" {
		s += fmt.Sprintf(" name=%q", observe.Normalize(l.Name))
	}
	if l.Href != "" {
		s += " href=" + l.Href
	}
	if l.Within != "" {
		s += fmt.Sprintf(" within=%q", l.Within)
	}
	if l.Near != "" {
		s += fmt.Sprintf(" near=%q", l.Near)
	}
	if l.Nth != 0 {
		s += " nth=" + strconv.Itoa(l.Nth)
	}
	return s
}

// ResolveLimit is the page size of the fresh find a resolve runs; more
// matches than this report TARGET_QUERY_TRUNCATED (it is the find's
// default page size).
const ResolveLimit = observe.DefaultFindLimit

// Resolve runs a fresh find for l on o and returns the one match. The
// engine hands it a fresh observation on every call (LOC-1).
func Resolve(o *observe.Observation, l Locator) (observe.Element, error) {
	if strings.TrimSpace(l.Role) == "" {
		return observe.Element{}, &Error{Code: InvalidLocator, Locator: l, Detail: "a locator needs a role"}
	}
	if !l.Narrowed() {
		r, err := o.Find(observe.Query{Role: l.Role, Name: l.Name, Href: l.Href, Limit: ResolveLimit})
		if err != nil {
			return observe.Element{}, fmt.Errorf("locate: %w", err)
		}
		return Verdict(l, r)
	}
	if l.Nth < 0 {
		return observe.Element{}, &Error{Code: InvalidLocator, Locator: l, Detail: "nth counts from 1"}
	}
	// narrowing reads every match: the find's largest page, truncated
	// when there are more
	r, err := o.Find(observe.Query{Role: l.Role, Name: l.Name, Href: l.Href, Limit: observe.MaxFindLimit})
	if err != nil {
		return observe.Element{}, fmt.Errorf("locate: %w", err)
	}
	if r.Selection.HasMore {
		return Verdict(l, r)
	}
	items, err := narrow(o, l, r.Items)
	if err != nil {
		return observe.Element{}, err
	}
	r.Items = items
	r.Selection.Matched = len(items)
	return Verdict(l, r)
}

// narrow applies Within, Near and Nth to the matches.
func narrow(o *observe.Observation, l Locator, items []observe.Element) ([]observe.Element, error) {
	if l.Within != "" {
		var kept []observe.Element
		if observe.RefSnapshot(l.Within) >= 0 {
			anchor, err := ByRef(o, l.Within)
			if err != nil {
				return nil, err
			}
			box := container(anchor.HTMLNode())
			for _, e := range items {
				if box != nil && contains(box, e.HTMLNode()) {
					kept = append(kept, e)
				}
			}
		} else {
			want := strings.ToLower(observe.Normalize(l.Within))
			for _, e := range items {
				if strings.Contains(strings.ToLower(e.Context), want) {
					kept = append(kept, e)
				}
			}
		}
		items = kept
	}
	if l.Near != "" && len(items) > 0 {
		want := strings.ToLower(observe.Normalize(l.Near))
		best, bestUp := []observe.Element(nil), -1
		for _, e := range items {
			up, found := 0, false
			for n := e.HTMLNode(); n != nil && up < nearUpMax; n, up = n.Parent, up+1 {
				if strings.Contains(strings.ToLower(o.Doc.Text(n)), want) {
					found = true
					break
				}
			}
			if !found {
				continue
			}
			switch {
			case bestUp < 0 || up < bestUp:
				best, bestUp = []observe.Element{e}, up
			case up == bestUp:
				best = append(best, e)
			}
		}
		items = best
	}
	if l.Nth > 0 {
		sort.SliceStable(items, func(i, j int) bool { return items[i].Order < items[j].Order })
		if l.Nth > len(items) {
			return nil, nil
		}
		items = items[l.Nth-1 : l.Nth]
	}
	return items, nil
}

// nearUpMax bounds the ancestors Near looks at.
const nearUpMax = 64

// container is the element's nearest row, list item, article, group or
// landmark: what "within a ref" means.
func container(n *html.Node) *html.Node {
	for p := n; p != nil; p = p.Parent {
		if p == n || p.Type != html.ElementNode {
			continue
		}
		switch observe.Role(p) {
		case "row", "listitem", "treeitem", "article", "group", "radiogroup", "navigation", "complementary",
			"banner", "contentinfo", "main", "region", "form", "search", "dialog", "alertdialog":
			return p
		}
	}
	return nil
}

func contains(box, n *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p == box {
			return true
		}
	}
	return false
}

// describeMax bounds how many candidates an error describes, and
// describeNameMax the characters of each name.
const (
	describeMax     = 5
	describeNameMax = 40
)

// Describe is the short description of a candidate an error carries:
// role, name (cut), frame, ref, group and context — what
// tells look-alikes apart (AGT-3). It never holds a typed value.
func Describe(e observe.Element) string {
	name := e.Name
	if r := []rune(name); len(r) > describeNameMax {
		name = string(r[:describeNameMax]) + "…"
	}
	s := fmt.Sprintf("%s %q frame=%s ref=%s", e.Role, name, e.Frame, e.Ref)
	if e.Group != "" {
		s += " group=" + e.Group
	}
	if e.Context != "" {
		s += " · " + e.Context
	}
	return s
}

// Verdict turns a find result into the resolve verdict, in this order:
// more matches than the page returned (TARGET_QUERY_TRUNCATED, even when
// one match is visible), more than one match (TARGET_AMBIGUOUS), none in a
// scope not read whole (TARGET_QUERY_TRUNCATED: absence is not proven,
// OBS-7), none (TARGET_NOT_FOUND). It never falls back to a similar
// element.
func Verdict(l Locator, r observe.FindResult) (observe.Element, error) {
	describe := func() []string {
		var out []string
		for i, e := range r.Items {
			if i == describeMax {
				out = append(out, fmt.Sprintf("… %d more", r.Selection.Matched-describeMax))
				break
			}
			out = append(out, Describe(e))
		}
		return out
	}
	switch {
	case r.Selection.HasMore:
		return observe.Element{}, &Error{Code: TargetQueryTruncated, Locator: l, Count: r.Selection.Matched, Candidates: describe(),
			Detail: fmt.Sprintf("the find returned %d of %d matches; narrow the locator (name, href)", len(r.Items), r.Selection.Matched)}
	case len(r.Items) > 1:
		return observe.Element{}, &Error{Code: TargetAmbiguous, Locator: l, Count: r.Selection.Matched, Candidates: describe()}
	case len(r.Items) == 0 && !r.Complete:
		return observe.Element{}, &Error{Code: TargetQueryTruncated, Locator: l, Detail: "no match, but part of the page (a frame) was not read, so absence is not proven"}
	case len(r.Items) == 0:
		return observe.Element{}, &Error{Code: TargetNotFound, Locator: l}
	}
	return r.Items[0], nil
}

// ByRef returns the element a ref names, refusing refs from any snapshot
// but the latest (ID-1), even when the element did not change.
func ByRef(o *observe.Observation, ref string) (observe.Element, error) {
	sid := observe.RefSnapshot(ref)
	switch {
	case sid < 0 || sid > o.ID:
		return observe.Element{}, InvalidRefError(ref, o.ID)
	case sid < o.ID:
		return observe.Element{}, &Error{Code: StaleRef, Locator: Locator{Role: "ref:" + ref},
			Detail: fmt.Sprintf("ref is from snapshot %d, the latest is %d; observe again and use a fresh ref", sid, o.ID)}
	}
	e, ok := o.ByRef(ref)
	if !ok {
		return observe.Element{}, &Error{Code: InvalidRef, Locator: Locator{Role: "ref:" + ref},
			Detail: fmt.Sprintf("snapshot %d has %d elements; %s is none of them", o.ID, len(o.All), ref)}
	}
	return e, nil
}

// InvalidRefError is the INVALID_REF refusal of a ref never issued on a
// page whose latest snapshot is latest (0: none yet).
func InvalidRefError(ref string, latest int) error {
	detail := fmt.Sprintf("%q is not a ref; refs look like s3e12 (snapshot 3, element 12)", ref)
	if sid := observe.RefSnapshot(ref); sid >= 0 {
		detail = fmt.Sprintf("snapshot %d was never taken on this page (the latest is %d)", sid, latest)
	}
	return &Error{Code: InvalidRef, Locator: Locator{Role: "ref:" + ref}, Detail: detail}
}
