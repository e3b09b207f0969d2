// Package conformance checks a site adapter against recorded sessions
// (SPEC HAR-5): for every capture, the answer groups the adapter finds
// (ids, rules, states, media readiness), whether turn boundaries hold (no
// turn holding two speakers or the composer), whether the composer and
// the send control resolve to exactly one element, whether group ids stay
// stable from capture to capture, and the baseline/new-group decision the
// engine would make after each send.
//
// It is what `replaylab validate` prints; a team adding a site records
// sessions with `replaylab record` and runs this over them in CI.
package conformance

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
)

// Options name the controls a capture must resolve.
type Options struct {
	// Composer locates the message box; with an empty Name, the page must
	// have exactly one editor of that role.
	Composer locate.Locator
	// Send locates the send control.
	Send locate.Locator
}

// DefaultOptions expect one textbox and a button named "Send".
var DefaultOptions = Options{Composer: locate.Locator{Role: "textbox"}, Send: locate.Locator{Role: "button", Name: "Send"}}

// Check names.
const (
	CheckStructure = "structure"       // the adapter found no turns
	CheckBoundary  = "turn-boundary"   // a turn holds the composer or another speaker's turn
	CheckComposer  = "composer"        // the composer does not resolve to one element
	CheckSend      = "send-control"    // the send control does not resolve to one element
	CheckStability = "group-id-stable" // a group's id changed between captures
	CheckNewGroup  = "new-group"       // a send produced no new group
)

// Violation is one failed check.
type Violation struct {
	Capture int    `json:"capture"`
	Check   string `json:"check"`
	Detail  string `json:"detail"`
}

// Group is what the adapter found of one group.
type Group struct {
	ID    string          `json:"id"`
	Rule  string          `json:"rule"`
	State string          `json:"state"`
	Text  string          `json:"text"`
	Media []adapter.Media `json:"media"`
}

// Resolve is the verdict for one control.
type Resolve struct {
	Status string `json:"status"` // ok or a locate code
	Count  int    `json:"count,omitempty"`
}

// Capture is the report of one capture of a session.
type Capture struct {
	Index     int     `json:"index"`
	Step      int     `json:"step"`
	AtMS      int64   `json:"atMs"`
	Adapter   string  `json:"adapter"`
	Structure bool    `json:"structure"`
	Groups    []Group `json:"groups"`
	Composer  Resolve `json:"composer"`
	Send      Resolve `json:"send"`
}

// Decision is the new-group decision after a send.
type Decision struct {
	Step     int      `json:"step"`
	Action   string   `json:"action"`
	Baseline []string `json:"baseline"`
	Group    string   `json:"group,omitempty"`
	States   []string `json:"states,omitempty"`
}

// Session is the report of one recorded session.
type Session struct {
	File       string      `json:"file"`
	Captures   []Capture   `json:"captures"`
	Decisions  []Decision  `json:"decisions"`
	Violations []Violation `json:"violations"`
}

// textMax bounds the group text a report shows.
const textMax = 80

// Check runs every check over a session.
func Check(file string, s *replay.Session, ad adapter.Adapter, opt Options) Session {
	rep := Session{File: file, Captures: []Capture{}, Decisions: []Decision{}, Violations: []Violation{}}
	var prev []Group
	var pending *Decision
	var baseline answer.Baseline
	lastIdx := -1
	for si, st := range s.Steps {
		if st.Kind != replay.KindCapture {
			if st.Kind == replay.KindClick || st.Kind == replay.KindPress {
				if pending != nil {
					rep.close(pending)
				}
				pending = &Decision{Step: si, Action: st.String(), Baseline: []string{}}
				if lastIdx >= 0 {
					pending.Baseline = append(pending.Baseline, ids(prev)...)
				}
				baseline = baselineOf(pending.Baseline)
			}
			continue
		}
		ci := *st.Capture
		lastIdx = ci
		res, o := read(s, ci, ad)
		cr := Capture{Index: len(rep.Captures), Step: si, AtMS: st.AtMS, Adapter: res.Adapter, Structure: res.Structure, Groups: []Group{}}
		for _, g := range res.Groups {
			cr.Groups = append(cr.Groups, Group{ID: g.ID, Rule: g.Rule, State: g.State, Text: cut(g.Text), Media: g.Media})
		}
		add := func(check, detail string) {
			rep.Violations = append(rep.Violations, Violation{Capture: cr.Index, Check: check, Detail: detail})
		}
		if !res.Structure {
			add(CheckStructure, "the "+res.Adapter+" adapter found no turns (STRUCTURE_UNKNOWN)")
		}
		for _, v := range boundaries(o, res) {
			add(CheckBoundary, v)
		}
		cr.Composer = resolve(o, opt.Composer)
		if cr.Composer.Status != "ok" {
			add(CheckComposer, fmt.Sprintf("%s: %s", opt.Composer, describe(cr.Composer)))
		}
		cr.Send = resolve(o, opt.Send)
		generating := slices.ContainsFunc(res.Groups, func(g adapter.Group) bool { return g.State == adapter.StateGenerating })
		if cr.Send.Status != "ok" && !generating {
			add(CheckSend, fmt.Sprintf("%s: %s", opt.Send, describe(cr.Send)))
		}
		for i := 0; i < len(prev) && i < len(cr.Groups); i++ {
			if prev[i].ID != cr.Groups[i].ID && !slices.ContainsFunc(cr.Groups, func(g Group) bool { return g.ID == prev[i].ID }) {
				add(CheckStability, fmt.Sprintf("group %d was %s in the capture before, now %s", i+1, prev[i].ID, cr.Groups[i].ID))
				break
			}
		}
		if pending != nil {
			if g, ok := baseline.Newest(res); ok {
				if pending.Group != g.ID {
					pending.Group, pending.States = g.ID, nil
				}
				if n := len(pending.States); n == 0 || pending.States[n-1] != g.State {
					pending.States = append(pending.States, g.State)
				}
			}
		}
		prev = cr.Groups
		rep.Captures = append(rep.Captures, cr)
	}
	if pending != nil {
		rep.close(pending)
	}
	return rep
}

func (rep *Session) close(d *Decision) {
	rep.Decisions = append(rep.Decisions, *d)
	if d.Group == "" {
		rep.Violations = append(rep.Violations, Violation{Capture: len(rep.Captures) - 1, Check: CheckNewGroup,
			Detail: fmt.Sprintf("after step %d (%s) no group outside the baseline of %d appeared", d.Step, d.Action, len(d.Baseline))})
	}
}

func baselineOf(ids []string) answer.Baseline {
	return answer.NewBaseline(adapter.Result{Groups: groupsOf(ids)})
}

func groupsOf(ids []string) []adapter.Group {
	out := make([]adapter.Group, len(ids))
	for i, id := range ids {
		out[i] = adapter.Group{ID: id}
	}
	return out
}

func ids(gs []Group) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.ID
	}
	return out
}

func read(s *replay.Session, ci int, ad adapter.Adapter) (adapter.Result, *observe.Observation) {
	doc, err := observe.Parse(s.Captures[ci])
	if err != nil {
		return adapter.Result{Adapter: ad.Name()}, nil
	}
	res := ad.Groups(doc)
	return res, observe.Observe(doc, ci+1, observe.Options{GroupOf: res.GroupOf()})
}

// boundaries reports turns that hold the composer or a user turn, and
// turns nested in one another.
func boundaries(o *observe.Observation, res adapter.Result) []string {
	if o == nil {
		return nil
	}
	var out []string
	inside := func(g adapter.Group, n *html.Node) bool {
		nodes := g.Nodes
		if len(nodes) == 0 && g.Node != nil {
			nodes = []*html.Node{g.Node}
		}
		for _, root := range nodes {
			for c := n; c != nil; c = c.Parent {
				if c == root {
					return true
				}
			}
		}
		return false
	}
	for _, g := range res.Groups {
		for _, e := range o.All {
			if observe.IsEditor(e.Role) && inside(g, e.HTMLNode()) {
				out = append(out, fmt.Sprintf("group %s holds the editor %s %q", g.ID, e.Role, e.Name))
				break
			}
		}
		for _, u := range res.Users {
			if inside(g, u) {
				out = append(out, fmt.Sprintf("group %s holds a user turn (two speakers in one turn)", g.ID))
				break
			}
		}
		for _, h := range res.Groups {
			if h.ID != g.ID && h.Node != nil && inside(g, h.Node) {
				out = append(out, fmt.Sprintf("group %s holds group %s", g.ID, h.ID))
			}
		}
	}
	return out
}

func resolve(o *observe.Observation, l locate.Locator) Resolve {
	if o == nil {
		return Resolve{Status: "UNREADABLE"}
	}
	if _, err := locate.Resolve(o, l); err != nil {
		r := Resolve{Status: locate.CodeOf(err)}
		if le, ok := err.(*locate.Error); ok {
			r.Count = le.Count
		}
		return r
	}
	return Resolve{Status: "ok"}
}

func describe(r Resolve) string {
	if r.Count > 0 {
		return fmt.Sprintf("%s (%d matches)", r.Status, r.Count)
	}
	return r.Status
}

func cut(s string) string {
	r := []rune(s)
	if len(r) > textMax {
		return string(r[:textMax]) + "…"
	}
	return s
}

// Text renders a report for people.
func Text(reps []Session) string {
	var b strings.Builder
	total := 0
	for _, r := range reps {
		fmt.Fprintf(&b, "== %s: %d captures, %d sends, %d violations\n", r.File, len(r.Captures), len(r.Decisions), len(r.Violations))
		for _, c := range r.Captures {
			fmt.Fprintf(&b, "capture %d (step %d, +%d ms) adapter %s: %d groups; composer %s; send %s\n",
				c.Index, c.Step, c.AtMS, c.Adapter, len(c.Groups), describe(c.Composer), describe(c.Send))
			for _, g := range c.Groups {
				fmt.Fprintf(&b, "  %-14s %-18s %q\n    rule: %s\n", g.ID, g.State, g.Text, g.Rule)
				for _, m := range g.Media {
					fmt.Fprintf(&b, "    media %s ready=%v (%s)\n", m.Kind, m.Ready, m.Evidence)
				}
			}
		}
		for _, d := range r.Decisions {
			if d.Group != "" {
				fmt.Fprintf(&b, "send at step %d (%s): baseline %d groups → new group %s, states %s\n", d.Step, d.Action, len(d.Baseline), d.Group, strings.Join(d.States, " → "))
			} else {
				fmt.Fprintf(&b, "send at step %d (%s): baseline %d groups → no new group\n", d.Step, d.Action, len(d.Baseline))
			}
		}
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "VIOLATION capture %d [%s]: %s\n", v.Capture, v.Check, v.Detail)
		}
		total += len(r.Violations)
	}
	if total == 0 {
		b.WriteString("conformance: ok\n")
	} else {
		fmt.Fprintf(&b, "conformance: %d violations\n", total)
	}
	return b.String()
}
