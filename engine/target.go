package engine

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/locate"
)

// Target names an element: a ref from the latest snapshot, or a locator
// resolved by a fresh find.
type Target struct {
	Ref string
	locate.Locator
	// Selector, when set, is a CSS selector that must match exactly one
	// candidate element (see BySelector).
	Selector string
	// In scopes the target to one answer group (LIB-5): InNewest or a
	// group's id; only the matches inside that group count, so one
	// Regenerate or Copy per answer is not ambiguous.
	In string
}

func (t Target) String() string {
	if t.Ref != "" {
		return "ref " + t.Ref
	}
	s := t.Locator.String()
	if t.Selector != "" {
		s = "selector=" + strconv.Quote(t.Selector)
	}
	if t.In != "" {
		s += " in=" + t.In
	}
	return s
}

// locator is t as a locator, for messages: a selector is named as one.
func (t Target) locator() locate.Locator {
	if t.Selector != "" {
		return locate.Locator{Role: locate.SelectorRole + t.Selector}
	}
	return t.Locator
}

// ByRole is getByRole(role, name).
func ByRole(role, name string) Target { return Target{Locator: locate.Locator{Role: role, Name: name}} }

// Expect is the outcome a click or press must produce (ACT-2). At least one
// field must be set.
type Expect struct {
	URL         string // absolute URL the page must be at
	TextVisible string // text that must be visible
	NewAnswer   bool   // a new answer group must appear
	// InPlace (with NewAnswer): the action replaces the last answer in
	// place (regenerate, retry), so that group reading otherwise (another
	// element, state or text) is a new answer too, even under its old id.
	InPlace bool
	// Stop: the action is the site's Stop control on the answer the last
	// send started; once its outcome is met, that answer ends
	// ANSWER_STOPPED whether or not the site shows a stopped note (LIB-3).
	Stop    bool
	Gone    *Target
	Field   *FieldExpect
	Timeout time.Duration
}

// FieldExpect is "the field's value is".
type FieldExpect struct {
	Target Target
	Value  string
}

func (x Expect) String() string {
	var parts []string
	if x.URL != "" {
		parts = append(parts, "url="+x.URL)
	}
	if x.TextVisible != "" {
		parts = append(parts, fmt.Sprintf("text=%q", x.TextVisible))
	}
	if x.NewAnswer {
		parts = append(parts, "new_answer")
	}
	if x.InPlace {
		parts = append(parts, "in_place")
	}
	if x.Gone != nil {
		parts = append(parts, "gone="+x.Gone.String())
	}
	if x.Field != nil {
		parts = append(parts, "field="+x.Field.Target.String())
	}
	return strings.Join(parts, ",")
}

func (x Expect) validate() error {
	if x.URL == "" && x.TextVisible == "" && !x.NewAnswer && x.Gone == nil && x.Field == nil {
		return &Error{Code: MissingExpectation, Op: "expect", Detail: "click and press need an expected outcome"}
	}
	if x.URL != "" {
		u, err := url.Parse(x.URL)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return &Error{Code: InvalidExpectation, Op: "expect", Detail: fmt.Sprintf("expected URL %q is not absolute", x.URL)}
		}
	}
	return nil
}
