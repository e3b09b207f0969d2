// Package locate resolves role/name locators to exactly one element of a
// fresh observation (SPEC LOC-1..4, ID-1). It never guesses: more than one
// match, a truncated query and no match are each their own error, and no
// input is delivered on any of them.
package locate

import (
	"fmt"
	"strings"

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

// Locator is getByRole(role, name) with an optional href.
type Locator struct {
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
	Href string `json:"href,omitempty"`
}

func (l Locator) String() string {
	s := "role=" + l.Role
	if l.Name != "" {
		s += fmt.Sprintf(" name=%q", observe.Normalize(l.Name))
	}
	if l.Href != "" {
		s += " href=" + l.Href
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
	r, err := o.Find(observe.Query{Role: l.Role, Name: l.Name, Href: l.Href, Limit: ResolveLimit})
	if err != nil {
		return observe.Element{}, fmt.Errorf("locate: %w", err)
	}
	return Verdict(l, r)
}

// describeMax bounds how many candidates an error describes, and
// describeNameMax the characters of each name.
const (
	describeMax     = 5
	describeNameMax = 40
)

// Describe is the short description of a candidate an error carries: role,
// name (cut), frame and ref. It never holds a typed value.
func Describe(e observe.Element) string {
	name := e.Name
	if r := []rune(name); len(r) > describeNameMax {
		name = string(r[:describeNameMax]) + "…"
	}
	return fmt.Sprintf("%s %q frame=%s ref=%s", e.Role, name, e.Frame, e.Ref)
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
	if sid := observe.RefSnapshot(ref); sid != o.ID {
		return observe.Element{}, &Error{Code: StaleRef, Locator: Locator{Role: "ref:" + ref},
			Detail: fmt.Sprintf("ref is from snapshot %d, the latest is %d; observe again and use a fresh ref", sid, o.ID)}
	}
	e, ok := o.ByRef(ref)
	if !ok {
		return observe.Element{}, &Error{Code: TargetNotFound, Locator: Locator{Role: "ref:" + ref}}
	}
	return e, nil
}
