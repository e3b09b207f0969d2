package adapter

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/observe"
)

// Marker is the built-in marker style (ANS-1): turns carry a data attribute
// naming their author, or are custom elements named for the model's turn,
// and the group id comes from the turn's message id attribute.
type Marker struct {
	// RoleAttrs name the author attribute, first match wins.
	RoleAttrs []string
	// AssistantValues and UserValues are the author values (case-insensitive).
	AssistantValues []string
	UserValues      []string
	// AssistantElements and UserElements are custom element names of turns.
	AssistantElements []string
	UserElements      []string
	// IDAttrs carry the message id, on the turn or its nearest marked
	// descendant or ancestor.
	IDAttrs []string
}

// DefaultMarker recognises the conventions of common chat sites.
var DefaultMarker = Marker{
	RoleAttrs:         []string{"data-message-author-role", "data-role", "data-author", "data-message-role", "data-author-role", "data-sender"},
	AssistantValues:   []string{"assistant", "bot", "model", "ai", "agent"},
	UserValues:        []string{"user", "human", "me"},
	AssistantElements: []string{"model-response", "assistant-message", "ai-message", "bot-message"},
	UserElements:      []string{"user-query", "user-message", "human-message"},
	IDAttrs:           []string{"data-message-id", "data-id", "data-turn-id", "id"},
}

// Name implements Adapter.
func (m Marker) Name() string { return "marker" }

// Groups implements Adapter.
func (m Marker) Groups(doc *observe.Document) Result { return loaded(m.find(doc)) }

func (m Marker) find(doc *observe.Document) Result { return m.findAfter(doc, nil, nil) }

// findAfter is find; with prev, the groups found on the document doc was
// parsed from (observe.ParseAfter), a turn doc kept (observe.Document.Kept:
// the turn's subtree and its ancestors' attributes are the same) keeps
// prev's id and rule, and a kept element that was no turn is none: a
// turn, its id and its rule are functions of the turn's subtree, its
// ancestors' attributes and the assistant turns before it, all kept with
// it (kept turns come first in page order). Only the part of the page
// that changed is asked for speakers and ids again.
func (m Marker) findAfter(doc *observe.Document, prev []Group, prevUsers []*html.Node) Result {
	r := Result{Adapter: m.Name(), Groups: []Group{}}
	var kept map[*html.Node]*Group // kept turns: assistant groups, user turns (nil)
	if len(prev) > 0 || len(prevUsers) > 0 {
		kept = make(map[*html.Node]*Group, len(prev)+len(prevUsers))
		for i := range prev {
			if g := &prev[i]; g.Node != nil && g.Nodes == nil && doc.Kept(g.Node) {
				kept[g.Node] = g
			}
		}
		for _, u := range prevUsers {
			if doc.Kept(u) {
				kept[u] = nil
			}
		}
	}
	for _, f := range doc.Frames {
		pos := 0
		walkEl(f.Root, func(n *html.Node) bool {
			if len(kept) > 0 && doc.Kept(n) {
				pg, turn := kept[n]
				if !turn {
					return true // no turn before, none now; a kept turn may be inside
				}
				r.Turns++
				if pg == nil {
					r.Users = append(r.Users, n)
					return false
				}
				pos++
				g := Group{Frame: f.ID, ID: pg.ID, Rule: pg.Rule}
				g.read(doc, one(n), nil, nil, 3)
				r.Groups = append(r.Groups, g)
				return false
			}
			speaker, rule := m.speaker(n)
			if speaker == "" {
				return true
			}
			r.Turns++
			if speaker == "user" {
				r.Users = append(r.Users, n)
				return false // turns do not nest
			}
			pos++
			g := Group{Frame: f.ID}
			id, idRule := m.messageID(n)
			if id == "" {
				id = "pos-" + strconv.Itoa(pos)
				idRule = "id from position " + strconv.Itoa(pos) + " (no id attribute)"
			}
			g.ID = id
			if f.ID != "main" {
				g.ID = f.ID + "/" + id
			}
			g.Rule = "marker: " + rule + "; " + idRule
			g.read(doc, one(n), nil, nil, 3)
			r.Groups = append(r.Groups, g)
			return false
		})
	}
	r.Structure = r.Turns > 0
	return r
}

func (m Marker) speaker(n *html.Node) (speaker, rule string) {
	for _, a := range m.RoleAttrs {
		v := strings.ToLower(strings.TrimSpace(observe.Attr(n, a)))
		if v == "" {
			continue
		}
		if contains(m.AssistantValues, v) {
			return "assistant", a + "=" + v
		}
		if contains(m.UserValues, v) {
			return "user", a + "=" + v
		}
	}
	if contains(m.AssistantElements, n.Data) {
		return "assistant", "element <" + n.Data + ">"
	}
	if contains(m.UserElements, n.Data) {
		return "user", "element <" + n.Data + ">"
	}
	return "", ""
}

func (m Marker) messageID(turn *html.Node) (id, rule string) {
	for _, a := range m.IDAttrs {
		if v := strings.TrimSpace(observe.Attr(turn, a)); v != "" {
			return v, "id from " + a
		}
	}
	// nearest marked descendant, then ancestor
	for _, a := range m.IDAttrs {
		if a == "id" {
			continue
		}
		var found string
		walkEl(turn, func(n *html.Node) bool {
			if found == "" {
				found = strings.TrimSpace(observe.Attr(n, a))
			}
			return found == ""
		})
		if found != "" {
			return found, "id from descendant " + a
		}
		for p := turn.Parent; p != nil; p = p.Parent {
			if p.Type == html.ElementNode {
				if v := strings.TrimSpace(observe.Attr(p, a)); v != "" {
					return v, "id from ancestor " + a
				}
			}
		}
	}
	return "", ""
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}
