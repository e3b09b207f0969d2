package observe

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
)

// Name computes the accessible name of n following W3C accname 1.2 in the
// order the spec gives (OBS-10):
//
//	2A hidden nodes contribute nothing unless reached through aria-labelledby
//	2B aria-labelledby (referenced nodes are read even when hidden)
//	2C an embedded control inside a label contributes its value
//	2D aria-label
//	2E the host language: label[for] and wrapping label, alt, value of
//	   button inputs, legend, caption, figcaption
//	2F name from content for roles that allow it, and inside traversals
//	2I title, then placeholder as the last resort
//
// Not covered: CSS generated content (::before/::after), shadow DOM slots,
// SVG title/desc, and aria-owns reordering. The result is
// whitespace-normalised.
func (d *Document) Name(n *html.Node) string {
	if n == nil || n.Type != html.ElementNode {
		return ""
	}
	c := nameComputation{d: d, root: n, visited: map[*html.Node]bool{}}
	return Normalize(c.name(n, false, false))
}

type nameComputation struct {
	d       *Document
	root    *html.Node
	visited map[*html.Node]bool
}

// fromContentRoles may take their name from their content (ARIA 1.2).
var fromContentRoles = map[string]bool{
	"button": true, "cell": true, "checkbox": true, "columnheader": true, "gridcell": true,
	"heading": true, "link": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "option": true, "radio": true, "row": true, "rowheader": true,
	"switch": true, "tab": true, "tooltip": true, "treeitem": true,
}

// name is the recursive step. inLabelledBy: we are inside an
// aria-labelledby traversal (no further labelledby, hidden allowed when the
// referenced root was hidden). inTraversal: we are reading the content of
// another node (a label, a labelledby target or name from content).
func (c *nameComputation) name(n *html.Node, inLabelledBy, inTraversal bool) string {
	if c.visited[n] {
		return ""
	}
	c.visited[n] = true
	defer delete(c.visited, n)

	// 2A: hidden and not reached by a labelledby reference of a hidden node.
	if !inLabelledBy && Hidden(n) {
		return ""
	}
	// 2B: aria-labelledby.
	if !inLabelledBy {
		if ids := strings.Fields(attr(n, "aria-labelledby")); len(ids) > 0 {
			var parts []string
			frame := c.d.FrameOf(n)
			for _, id := range ids {
				if ref := c.d.ByID(frame, id); ref != nil {
					if s := strings.TrimSpace(c.name(ref, true, true)); s != "" {
						parts = append(parts, s)
					}
				}
			}
			if len(parts) > 0 {
				return strings.Join(parts, " ")
			}
		}
	}
	role := Role(n)
	// 2C: an embedded control inside the label or content of another node.
	if inTraversal && n != c.root {
		switch role {
		case "textbox", "searchbox":
			if n.DataAtom == atom.Input || n.DataAtom == atom.Textarea {
				return Value(n)
			}
			return textOf(n)
		case "combobox", "listbox":
			return selectedText(n)
		case "slider", "spinbutton":
			if v := attr(n, "aria-valuetext"); v != "" {
				return v
			}
			if v := attr(n, "aria-valuenow"); v != "" {
				return v
			}
			return Value(n)
		}
	}
	// 2D: aria-label.
	if s := strings.TrimSpace(attr(n, "aria-label")); s != "" {
		return s
	}
	// 2E: the host language.
	if s := c.hostLabel(n, role); s != "" {
		return s
	}
	// 2F: name from content.
	if role != "presentation" && (fromContentRoles[role] || inTraversal || role == "") && !isContainerRoleWithoutContentName(role, inTraversal) {
		if s := strings.TrimSpace(c.content(n, inLabelledBy)); s != "" {
			return s
		}
	}
	// 2I: tooltip, then placeholder as the last resort.
	if s := strings.TrimSpace(attr(n, "title")); s != "" {
		return s
	}
	if s := strings.TrimSpace(attr(n, "placeholder")); s != "" && (n.DataAtom == atom.Input || n.DataAtom == atom.Textarea) {
		return s
	}
	if s := strings.TrimSpace(attr(n, "aria-placeholder")); s != "" {
		return s
	}
	return ""
}

// isContainerRoleWithoutContentName: at the top level only roles that allow
// it take their name from content; an element with no role (a div) reached
// at the top level has no name from content either.
func isContainerRoleWithoutContentName(role string, inTraversal bool) bool {
	return !inTraversal && !fromContentRoles[role]
}

func (c *nameComputation) hostLabel(n *html.Node, role string) string {
	switch n.DataAtom {
	case atom.Input:
		typ := strings.ToLower(attr(n, "type"))
		switch typ {
		case "button", "submit", "reset":
			if v := attr(n, "value"); v != "" {
				return v
			}
			if labels := c.labels(n); labels != "" {
				return labels
			}
			switch typ {
			case "submit":
				return "Submit"
			case "reset":
				return "Reset"
			}
			return ""
		case "image":
			if v := attr(n, "alt"); v != "" {
				return v
			}
			if v := attr(n, "value"); v != "" {
				return v
			}
			return "Submit"
		}
		return c.labels(n)
	case atom.Textarea, atom.Select, atom.Meter, atom.Progress, atom.Output:
		return c.labels(n)
	case atom.Button:
		return c.labels(n)
	case atom.Img, atom.Area:
		return strings.TrimSpace(attr(n, "alt"))
	case atom.Fieldset:
		return c.firstChildText(n, atom.Legend)
	case atom.Table:
		return c.firstChildText(n, atom.Caption)
	case atom.Figure:
		return c.firstChildText(n, atom.Figcaption)
	}
	return ""
}

func (c *nameComputation) firstChildText(n *html.Node, a atom.Atom) string {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.ElementNode && ch.DataAtom == a {
			return strings.TrimSpace(c.content(ch, false))
		}
	}
	return ""
}

// labels returns the text of label[for=id] elements and of a wrapping
// label, in document order, joined by spaces.
func (c *nameComputation) labels(n *html.Node) string {
	var parts []string
	seen := map[*html.Node]bool{}
	if id := attr(n, "id"); id != "" {
		frame := c.d.FrameOf(n)
		for _, f := range c.d.Frames {
			if f.ID != frame {
				continue
			}
			walk(f.Root, func(l *html.Node) bool {
				if l.Type == html.ElementNode && l.DataAtom == atom.Label && attr(l, "for") == id && !seen[l] {
					seen[l] = true
					if s := strings.TrimSpace(c.content(l, false)); s != "" {
						parts = append(parts, s)
					}
				}
				return true
			})
		}
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == atom.Label {
			if !seen[p] && (attr(p, "for") == "" || attr(p, "for") == attr(n, "id")) {
				if s := strings.TrimSpace(c.content(p, false)); s != "" {
					parts = append(parts, s)
				}
			}
			break
		}
	}
	return strings.Join(parts, " ")
}

// blockish elements separate their text from their neighbours' by a space.
var blockish = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Br: true,
	atom.Dd: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true,
	atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
	atom.Hr: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true,
	atom.Pre: true, atom.Section: true, atom.Table: true, atom.Td: true, atom.Th: true,
	atom.Tr: true, atom.Ul: true, atom.Caption: true,
}

// content is name from content: the names of the children, in order.
func (c *nameComputation) content(n *html.Node, inLabelledBy bool) string {
	var b strings.Builder
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		switch ch.Type {
		case html.TextNode:
			b.WriteString(ch.Data)
		case html.ElementNode:
			if ch == c.root {
				continue
			}
			if !inLabelledBy && Hidden(ch) {
				continue
			}
			if inLabelledBy && hiddenFromRender(ch) && !hiddenFromRender(n) {
				// A visible labelledby target omits its hidden parts; a hidden
				// target is read whole.
				continue
			}
			s := c.name(ch, inLabelledBy, true)
			if blockish[ch.DataAtom] {
				b.WriteString(" " + s + " ")
			} else {
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// Value returns the live value of a form control: the value a browser
// capture wrote, else the markup's value attribute or textarea text, else a
// contenteditable element's text.
func Value(n *html.Node) string {
	if n == nil {
		return ""
	}
	if hasAttr(n, capture.AttrValue) {
		return attr(n, capture.AttrValue)
	}
	switch n.DataAtom {
	case atom.Input:
		return attr(n, "value")
	case atom.Textarea:
		return textOf(n)
	case atom.Select:
		return selectedText(n)
	}
	if isContentEditable(n) {
		return Normalize(textOf(n))
	}
	return ""
}

// Checked reports the live checked state of a checkbox or radio, or
// aria-checked for ARIA widgets; ok is false when the element has none.
func Checked(n *html.Node) (checked, ok bool) {
	if v := attr(n, capture.AttrChecked); v != "" {
		return v == "true", true
	}
	if n.DataAtom == atom.Input {
		typ := strings.ToLower(attr(n, "type"))
		if typ == "checkbox" || typ == "radio" {
			return hasAttr(n, "checked"), true
		}
	}
	if v := attr(n, "aria-checked"); v != "" {
		return v == "true", true
	}
	return false, false
}

func selectedText(n *html.Node) string {
	if n.DataAtom != atom.Select {
		var parts []string
		walk(n, func(o *html.Node) bool {
			if o.Type == html.ElementNode && Role(o) == "option" && attr(o, "aria-selected") == "true" {
				parts = append(parts, Normalize(textOf(o)))
			}
			return true
		})
		return strings.Join(parts, " ")
	}
	var first, chosen []string
	live := false
	walk(n, func(o *html.Node) bool {
		if o.Type == html.ElementNode && o.DataAtom == atom.Option {
			t := Normalize(textOf(o))
			if first == nil {
				first = []string{t}
			}
			if v := attr(o, capture.AttrSelected); v != "" {
				live = true
				if v == "true" {
					chosen = append(chosen, t)
				}
			} else if !live && hasAttr(o, "selected") {
				chosen = append(chosen, t)
			}
		}
		return true
	})
	if len(chosen) == 0 && !hasAttr(n, "multiple") {
		chosen = first
	}
	return strings.Join(chosen, " ")
}
