package mcp

import (
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/monitor"
)

// The tools' arguments and results on the wire. Input schemas are derived
// from these types (a field without omitempty is required); descriptions
// come from the jsonschema tags.

// BeginIn starts a task.
type BeginIn struct {
	Goal string `json:"goal" jsonschema:"what the task is for, in words; recorded in the trace"`
}

// BeginOut names the new task.
type BeginOut struct {
	Task string `json:"task" jsonschema:"the task id every other tool takes"`
}

// TaskIn names a task.
type TaskIn struct {
	Task string `json:"task" jsonschema:"the task id begin returned"`
}

// PageIn names a page (tab) of a task.
type PageIn struct {
	Task string `json:"task" jsonschema:"the task id begin returned"`
	Page string `json:"page,omitempty" jsonschema:"the tab's name inside the task; default main. A new name opens a new tab on its first use"`
}

// SnapshotIn asks for a bounded view.
type SnapshotIn struct {
	PageIn
	View string `json:"view,omitempty" jsonschema:"page (default: the shorter view, 30 elements and 1500 characters) or full (60 elements, 4000 characters per frame)"`
}

// FindIn is a fresh find with selection facts.
type FindIn struct {
	PageIn
	Role   string `json:"role,omitempty" jsonschema:"exact ARIA role (button, link, textbox, …)"`
	Name   string `json:"name,omitempty" jsonschema:"exact accessible name, whitespace-normalised"`
	Text   string `json:"text,omitempty" jsonschema:"case-insensitive substring of the name or value"`
	Href   string `json:"href,omitempty" jsonschema:"exact href of a link"`
	Offset int    `json:"offset,omitempty" jsonschema:"matches to skip"`
	Limit  int    `json:"limit,omitempty" jsonschema:"matches to return, 1..100, default 20"`
}

// ExtractIn is a bounded content read.
type ExtractIn struct {
	PageIn
	What  string `json:"what" jsonschema:"text, tables or search"`
	Query string `json:"query,omitempty" jsonschema:"the text to search for (what=search)"`
}

// NavigateIn opens a URL.
type NavigateIn struct {
	PageIn
	URL string `json:"url" jsonschema:"absolute http(s) URL"`
}

// Target names an element: a ref from the latest snapshot of the page, or
// a role (and name, href) resolved by a fresh find that must match exactly
// one element.
type Target struct {
	Ref  string `json:"ref,omitempty" jsonschema:"a ref from the page's latest snapshot or action result (refs of older snapshots are refused with STALE_REF, refs never issued with INVALID_REF)"`
	Role string `json:"role,omitempty" jsonschema:"exact ARIA role, when no ref is given"`
	Name string `json:"name,omitempty" jsonschema:"exact accessible name"`
	Href string `json:"href,omitempty" jsonschema:"exact href, to tell links apart"`
	// narrowing (AGT-3), applied in this order to the role/name matches
	Within string `json:"within,omitempty" jsonschema:"keep the matches inside a context: a ref (same row, list item, group or landmark as that element) or a text of the element's context (its row's or item's text, e.g. notes.txt)"`
	Near   string `json:"near,omitempty" jsonschema:"keep the matches closest to this visible text"`
	Nth    int    `json:"nth,omitempty" jsonschema:"the nth remaining match in page order, from 1"`
	// LIB-5: controls as real UIs make them
	Selector string `json:"selector,omitempty" jsonschema:"a CSS selector that must match exactly one element (it reaches into open shadow roots), for a control without a role or name, e.g. an icon button; instead of role and name"`
	Scope    string `json:"scope,omitempty" jsonschema:"keep only the matches inside one answer group: newest (the newest answer) or a group's id from a snapshot; so one Regenerate or Copy per answer is not ambiguous"`
}

// FieldExpect is "the field's value is".
type FieldExpect struct {
	Target Target `json:"target" jsonschema:"the field"`
	Value  string `json:"value" jsonschema:"the value it must hold"`
}

// Expect is the outcome an action must produce; click and press need at
// least one field (MISSING_EXPECTATION otherwise).
type Expect struct {
	URL         string       `json:"url,omitempty" jsonschema:"the absolute URL the page must be at (a relative one is INVALID_EXPECTATION, checked before anything is sent)"`
	TextVisible string       `json:"textVisible,omitempty" jsonschema:"text that must be visible"`
	NewAnswer   bool         `json:"newAnswer,omitempty" jsonschema:"a new answer group must appear (records the baseline for waitAnswer)"`
	Gone        *Target      `json:"gone,omitempty" jsonschema:"an element that must disappear (no longer match its role and name or its selector, e.g. a Stop that turns into Send in place)"`
	Stop        bool         `json:"stop,omitempty" jsonschema:"the action is the site's Stop control on the answer the last send started: once the outcome is met, waitAnswer ends that answer ANSWER_STOPPED whether or not the site shows a stopped note"`
	Field       *FieldExpect `json:"field,omitempty" jsonschema:"a field that must hold a value"`
	TimeoutMS   int          `json:"timeoutMs,omitempty" jsonschema:"how long to wait for the outcome, in milliseconds; default 5000"`
}

// FillIn types into a field once and verifies it.
type FillIn struct {
	PageIn
	Target Target `json:"target" jsonschema:"the field"`
	Text   string `json:"text" jsonschema:"the text to type (once; a different resulting value is FIELD_MISMATCH and is not retyped)"`
}

// ActIn is a click or a key press with its expected outcome.
type ActIn struct {
	PageIn
	Target Target  `json:"target" jsonschema:"the element"`
	Key    string  `json:"key,omitempty" jsonschema:"press only: the key, e.g. Enter"`
	Expect *Expect `json:"expect,omitempty" jsonschema:"the expected outcome; required by the engine (MISSING_EXPECTATION)"`
}

// WaitAnswerIn waits for the new answer group.
type WaitAnswerIn struct {
	PageIn
	TimeoutMS int    `json:"timeoutMs,omitempty" jsonschema:"the whole wait in milliseconds; default 30000"`
	Media     string `json:"media,omitempty" jsonschema:"image or video: completion also needs ready media of that kind in the new group"`
}

// VerifyFieldIn compares a field's real value.
type VerifyFieldIn struct {
	PageIn
	Target Target `json:"target" jsonschema:"the field"`
	Value  string `json:"value" jsonschema:"the value it must hold"`
}

// VerifyOutcomeIn checks an expectation once.
type VerifyOutcomeIn struct {
	PageIn
	Expect Expect `json:"expect" jsonschema:"the outcome to check"`
}

// AbandonIn gives a task up.
type AbandonIn struct {
	Task   string `json:"task" jsonschema:"the task id begin returned"`
	Reason string `json:"reason" jsonschema:"why the task is given up, in words; recorded in the trace"`
}

// ReadAnswerIn reads one page of an answer group's text.
type ReadAnswerIn struct {
	PageIn
	Group  string `json:"group" jsonschema:"the answer group's id (from a snapshot's groups or waitAnswer)"`
	Offset int    `json:"offset,omitempty" jsonschema:"characters to skip"`
	Limit  int    `json:"limit,omitempty" jsonschema:"characters to return, 1..16000, default 4000"`
}

// ActOut is the result of navigate, fill, click and press: ok and the
// page state the action left (its snapshot id and the refs the next
// action needs, AGT-2).
type ActOut struct {
	OK bool `json:"ok"`
	*engine.After
}

// Done is the result of an operation that returns nothing but success.
type Done struct {
	OK bool `json:"ok"`
}

// RecheckOut says whether the re-check found the original expectation met.
type RecheckOut struct {
	LateSuccess bool `json:"lateSuccess" jsonschema:"true: the task recorded a late success and is unblocked"`
	Blocked     bool `json:"blocked"`
}

// ChangesOut summarises the last two observations of a page.
type ChangesOut struct {
	Known   bool                   `json:"known" jsonschema:"false until the page was observed twice"`
	Summary *monitor.ChangeSummary `json:"summary,omitempty"`
}

// AnswerOut is what waitAnswer read (ANS-8).
type AnswerOut struct {
	Status       string          `json:"status"`
	Group        string          `json:"group,omitempty"`
	Rule         string          `json:"rule,omitempty"`
	BaselineSize int             `json:"baselineSize"`
	States       []string        `json:"states"`
	Evidence     string          `json:"evidence,omitempty"`
	Text         string          `json:"text"`
	Partial      bool            `json:"partial,omitempty"`
	Media        []adapter.Media `json:"media,omitempty"`
}

// ToolError is a tool error as its text content carries it (JSON; a tool
// error has no structured content, so no client's output-schema check
// can reject it): ok false, the stable code (TARGET_AMBIGUOUS,
// OUTCOME_UNKNOWN, TASK_BLOCKED, …) and the message; argument errors name
// the field; locate refusals add the match count and short descriptions.
type ToolError struct {
	OK         bool         `json:"ok"`
	Code       errcode.Code `json:"code"`
	Op         string       `json:"op,omitempty"`
	Message    string       `json:"message"`
	Field      string       `json:"field,omitempty"`
	Count      int          `json:"count,omitempty"`
	Candidates []string     `json:"candidates,omitempty"`
}

func (t Target) engine() engine.Target {
	return engine.Target{Ref: t.Ref, Locator: locate.Locator{Role: t.Role, Name: t.Name, Href: t.Href, Within: t.Within, Near: t.Near, Nth: t.Nth},
		Selector: t.Selector, In: t.Scope}
}

func targetOf(t engine.Target) Target {
	return Target{Ref: t.Ref, Role: t.Role, Name: t.Name, Href: t.Href, Within: t.Within, Near: t.Near, Nth: t.Nth, Selector: t.Selector, Scope: t.In}
}

func (x *Expect) engine() engine.Expect {
	if x == nil {
		return engine.Expect{}
	}
	e := engine.Expect{URL: x.URL, TextVisible: x.TextVisible, NewAnswer: x.NewAnswer, Stop: x.Stop, Timeout: time.Duration(x.TimeoutMS) * time.Millisecond}
	if x.Gone != nil {
		g := x.Gone.engine()
		e.Gone = &g
	}
	if x.Field != nil {
		e.Field = &engine.FieldExpect{Target: x.Field.Target.engine(), Value: x.Field.Value}
	}
	return e
}

func expectOf(x engine.Expect) *Expect {
	e := &Expect{URL: x.URL, TextVisible: x.TextVisible, NewAnswer: x.NewAnswer, Stop: x.Stop, TimeoutMS: int(x.Timeout / time.Millisecond)}
	if x.Gone != nil {
		g := targetOf(*x.Gone)
		e.Gone = &g
	}
	if x.Field != nil {
		e.Field = &FieldExpect{Target: targetOf(x.Field.Target), Value: x.Field.Value}
	}
	return e
}

func answerOutOf(r answer.Result) AnswerOut {
	return AnswerOut{Status: r.Status, Group: r.GroupID, Rule: r.Rule, BaselineSize: r.BaselineSize,
		States: append([]string{}, r.States...), Evidence: r.Evidence, Text: r.Text, Partial: r.Partial, Media: r.Media}
}

func (a AnswerOut) result() answer.Result {
	return answer.Result{Status: a.Status, GroupID: a.Group, Rule: a.Rule, BaselineSize: a.BaselineSize,
		States: a.States, Evidence: a.Evidence, Text: a.Text, Partial: a.Partial, Media: a.Media}
}
