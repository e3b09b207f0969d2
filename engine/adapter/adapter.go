// Package adapter maps a chat site's markup to answer groups: one group per
// assistant turn, with a stable id, the rule that produced it (ID-3), the
// turn's state (generating, complete, needs_confirmation, failed), its text
// and the media inside it (SPEC §3).
//
// Group ids come from the page as observed, never from a provider's server,
// and every group records which adapter rule found it so a reader of a trace
// can judge the decision.
package adapter

import (
	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/observe"
)

// Group states.
const (
	StateGenerating        = "generating"
	StateComplete          = "complete"
	StateNeedsConfirmation = "needs_confirmation"
	StateFailed            = "failed"
)

// Group is one assistant turn and everything inside it.
type Group struct {
	ID    string  `json:"id"`
	Rule  string  `json:"rule"`
	State string  `json:"state"`
	Text  string  `json:"text"`
	Media []Media `json:"media"`
	Frame string  `json:"frame"`
	// Evidence says which markup decided the state ("aria-busy=true",
	// "no generating signal", …).
	Evidence string `json:"evidence"`

	// Node is the turn's root: the element that holds the whole turn, or,
	// for a turn made of flat siblings, the first of them.
	Node *html.Node `json:"-"`
	// Nodes are the turn's top-level nodes in page order when the turn is
	// a run of flat siblings (heading style); nil when Node holds it all.
	Nodes []*html.Node `json:"-"`
}

// Media is one image or video inside a group.
type Media struct {
	Kind  string `json:"kind"` // "image" or "video"
	Ready bool   `json:"ready"`
	// Evidence is the live state read: readyState, source, size.
	Evidence string `json:"evidence"`
}

// Result is what an adapter found on one page.
type Result struct {
	Adapter string  `json:"adapter"`
	Groups  []Group `json:"groups"`
	// Structure is false when the adapter found no turn structure at all
	// (ANS-9): no assistant and no user turns.
	Structure bool `json:"structure"`
	// Turns counts every turn found, user turns included.
	Turns int `json:"turns"`
	// Note says how the result was reached when that is not obvious from
	// Adapter alone (auto: which style it picked and why).
	Note string `json:"note,omitempty"`
}

// Adapter finds answer groups in a parsed capture.
type Adapter interface {
	Name() string
	Groups(doc *observe.Document) Result
}

// GroupOf returns a function that names the group holding a node, for
// observe.Options.GroupOf.
func (r Result) GroupOf() func(*html.Node) string {
	roots := map[*html.Node]string{}
	for _, g := range r.Groups {
		if g.Node != nil {
			roots[g.Node] = g.ID
		}
		for _, n := range g.Nodes {
			roots[n] = g.ID
		}
	}
	return func(n *html.Node) string {
		for c := n; c != nil; c = c.Parent {
			if id, ok := roots[c]; ok {
				return id
			}
		}
		return ""
	}
}

// IDs returns the group ids in page order.
func (r Result) IDs() []string {
	ids := make([]string, len(r.Groups))
	for i, g := range r.Groups {
		ids[i] = g.ID
	}
	return ids
}
