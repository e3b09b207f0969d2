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
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
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

	Node *html.Node `json:"-"`
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
		roots[g.Node] = g.ID
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

// stopNames are controls that mean "the answer is still being generated".
var stopNames = []string{"stop generating", "stop streaming", "stop responding", "stop response", "stop"}

var confirmNames = []string{"confirm", "approve", "continue", "allow", "yes, continue", "accept"}

var retryNames = []string{"retry", "try again", "regenerate"}

var errorTexts = []string{"something went wrong", "an error occurred", "error generating", "network error"}

// classify decides a turn's state from the markup inside it (ANS-5).
func classify(doc *observe.Document, turn *html.Node) (state, evidence string) {
	var generating, confirm, retry, alert string
	walkEl(turn, func(n *html.Node) bool {
		if observe.Hidden(n) && n != turn {
			return false
		}
		if strings.EqualFold(observe.Attr(n, "aria-busy"), "true") && generating == "" {
			generating = "aria-busy=true"
		}
		if strings.EqualFold(observe.Attr(n, "data-is-streaming"), "true") && generating == "" {
			generating = "data-is-streaming=true"
		}
		if cls := " " + strings.ToLower(observe.Attr(n, "class")) + " "; generating == "" &&
			(strings.Contains(cls, " typing-indicator ") || strings.Contains(cls, " result-streaming ")) {
			generating = "typing indicator"
		}
		role := observe.Role(n)
		if role == "button" {
			name := strings.ToLower(doc.Name(n))
			if generating == "" && matchesAny(name, stopNames) {
				generating = "stop control " + quote(doc.Name(n))
			}
			if confirm == "" && matchesAny(name, confirmNames) {
				confirm = "confirmation control " + quote(doc.Name(n))
			}
			if retry == "" && matchesAny(name, retryNames) {
				retry = "retry control " + quote(doc.Name(n))
			}
		}
		if role == "alert" && alert == "" {
			alert = "role=alert"
		}
		return true
	})
	if alert == "" && retry != "" {
		text := strings.ToLower(turnText(doc, turn))
		for _, t := range errorTexts {
			if strings.Contains(text, t) {
				alert = "error text " + quote(t)
				break
			}
		}
	}
	switch {
	case generating != "":
		return StateGenerating, generating
	case alert != "":
		if retry != "" {
			return StateFailed, alert + " with " + retry
		}
		return StateFailed, alert
	case confirm != "":
		return StateNeedsConfirmation, confirm
	}
	return StateComplete, "no generating signal"
}

func matchesAny(name string, list []string) bool {
	for _, s := range list {
		if name == s || strings.HasPrefix(name, s+" ") {
			return true
		}
	}
	return false
}

func quote(s string) string { return `"` + s + `"` }

// turnText is the visible text of a turn without its controls (buttons,
// typing indicators), whitespace collapsed.
func turnText(doc *observe.Document, turn *html.Node) string {
	var b strings.Builder
	var rec func(n *html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
			case html.ElementNode:
				if observe.Hidden(c) {
					continue
				}
				switch observe.Role(c) {
				case "button", "alert":
					if observe.Role(c) == "alert" {
						rec(c)
					}
					continue
				}
				cls := " " + strings.ToLower(observe.Attr(c, "class")) + " "
				if strings.Contains(cls, " typing-indicator ") {
					continue
				}
				b.WriteString(" ")
				rec(c)
				b.WriteString(" ")
			}
		}
	}
	rec(turn)
	return observe.Normalize(b.String())
}

// media lists the images and videos inside a turn with their readiness
// (ANS-6): a video is ready when its readyState is at least 3 (it can play)
// and it has a source; an image when it finished loading with a non-zero
// size. Pages without live state (plain HTML) have no ready media.
func media(turn *html.Node) []Media {
	var out []Media
	walkEl(turn, func(n *html.Node) bool {
		if observe.Hidden(n) {
			return false
		}
		switch n.DataAtom {
		case atom.Video:
			src := observe.Attr(n, capture.AttrMediaSrc)
			if src == "" {
				src = observe.Attr(n, "src")
			}
			if src == "" {
				walkEl(n, func(s *html.Node) bool {
					if s.DataAtom == atom.Source && src == "" {
						src = observe.Attr(s, "src")
					}
					return true
				})
			}
			rs := observe.Attr(n, capture.AttrMediaReady)
			ready := (rs == "3" || rs == "4") && src != ""
			out = append(out, Media{Kind: "video", Ready: ready, Evidence: "readyState=" + orNone(rs) + " source=" + yesNo(src != "")})
			return false
		case atom.Img:
			rs := observe.Attr(n, capture.AttrMediaReady)
			size := observe.Attr(n, capture.AttrSize)
			ready := rs == "complete" && size != "" && !strings.HasPrefix(size, "0x") && !strings.HasSuffix(size, "x0")
			out = append(out, Media{Kind: "image", Ready: ready, Evidence: "load=" + orNone(rs) + " size=" + orNone(size)})
		}
		return true
	})
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func walkEl(n *html.Node, fn func(*html.Node) bool) {
	if n.Type == html.ElementNode && !fn(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkEl(c, fn)
	}
}
