package observe

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Context bounds: the characters of each part's text and the nodes the
// walk back to the preceding heading visits.
const (
	contextTextMax  = 48
	contextHeadBack = 1500
	// an ancestor's own text describes an element outside rows and items
	// when it is found within besideUpMax levels and is short
	besideUpMax    = 3
	besideCharsMax = 80
)

// Context describes where e is on the page, nearest first, so that
// look-alikes can be told apart (AGT-3): its table row or list item
// (with their text, the element's own name left out), its fieldset or
// group (by name), the heading it is under and its landmark, e.g.
//
//	row "notes.txt 2 KB" · under "Files" · main
//
// It reads the observation's document: call it on a fresh observation
// (a later read of the page may take the document's nodes over).
func (o *Observation) Context(e Element) string {
	if e.node == nil || o.Doc == nil {
		return ""
	}
	if o.ctxTexts == nil {
		o.ctxTexts = map[*html.Node]string{}
	}
	return o.Doc.context(e.node, e.Name, o.ctxTexts)
}

func (d *Document) context(n *html.Node, own string, texts map[*html.Node]string) string {
	var parts []string
	var container, group, landmark bool
	var boundary *html.Node // the landmark: the heading is looked for inside it
	steps := 0
	for p := n.Parent; p != nil && steps < maxAncestors && !landmark; p = p.Parent {
		steps++
		if p.Type != html.ElementNode {
			continue
		}
		role := Role(p)
		switch role {
		case "row":
			if !container {
				parts = append(parts, "row "+quoteCut(d.partText(p, own, texts)))
				container = true
			}
		case "listitem", "treeitem", "article":
			if !container {
				label := "item"
				if role == "article" {
					label = "article"
				}
				parts = append(parts, label+" "+quoteCut(d.partText(p, own, texts)))
				container = true
			}
		case "group", "radiogroup":
			if !group {
				if name := d.name(p, role); name != "" {
					parts = append(parts, "group "+quoteCut(name))
					group = true
				}
			}
		case "navigation", "complementary", "banner", "contentinfo", "main", "region", "form", "search", "dialog", "alertdialog":
			if role == "form" || role == "region" {
				// unnamed forms and sections are no landmarks
				if d.name(p, role) == "" {
					continue
				}
			}
			landmark, boundary = true, p
			if h := d.headingBefore(n, boundary); h != "" {
				parts = append(parts, "under "+quoteCut(h))
			}
			part := role
			if name := d.name(p, role); name != "" {
				part += " " + quoteCut(name)
			}
			parts = append(parts, part)
		}
	}
	if !container {
		// no row or item: the nearest small ancestor with text of its own
		// (div-built rows: "report.pdf  [Delete]")
		up := 0
		for p := n.Parent; p != nil && up < besideUpMax && p != boundary; p, up = p.Parent, up+1 {
			if p.Type != html.ElementNode {
				continue
			}
			raw, short := d.shortText(p, besideCharsMax+len(own)+8)
			if !short {
				break // a large ancestor: its text describes nothing
			}
			t := d.partText(p, own, texts)
			if raw == "" || t == "" {
				continue
			}
			if q := quoteCut(t); len(t) <= besideCharsMax && !strings.Contains(strings.Join(parts, " "), q) {
				parts = append([]string{"beside " + q}, parts...)
			}
			break
		}
	}
	if !landmark {
		if h := d.headingBefore(n, nil); h != "" {
			parts = append(parts, "under "+quoteCut(h))
		}
	}
	return strings.Join(parts, " · ")
}

// partText is a container's visible text without the element's own
// name.
func (d *Document) partText(p *html.Node, own string, texts map[*html.Node]string) string {
	t, ok := texts[p]
	if !ok {
		t = d.cellText(p)
		texts[p] = t
	}
	if own != "" {
		if i := strings.LastIndex(t, own); i >= 0 {
			t = Normalize(t[:i] + t[i+len(own):])
		}
	}
	return t
}

// headingBefore is the text of the nearest heading before n in document
// order, inside boundary when one is given; "" when none is found within
// contextHeadBack nodes.
func (d *Document) headingBefore(n, boundary *html.Node) string {
	c := n
	for range contextHeadBack {
		switch {
		case c.PrevSibling != nil:
			c = c.PrevSibling
			for c.LastChild != nil && c.Type == html.ElementNode && !skipsText(c) {
				c = c.LastChild
			}
		case c.Parent != nil && c.Parent != boundary:
			c = c.Parent
		default:
			return ""
		}
		if c.Type != html.ElementNode || c == n {
			continue
		}
		if isHeading(c) && !d.Hidden(c) {
			if t := d.cellText(c); t != "" {
				return t
			}
		}
	}
	return ""
}

func skipsText(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Template, atom.Head:
		return true
	}
	return false
}

func isHeading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return strings.EqualFold(strings.TrimSpace(attr(n, "role")), "heading")
}

// quoteCut quotes s cut to contextTextMax characters.
func quoteCut(s string) string {
	if r := []rune(s); len(r) > contextTextMax {
		s = string(r[:contextTextMax]) + "…"
	}
	return strconv.Quote(s)
}

// Text is n's visible text, whitespace-normalised, without the text of
// tables nested in it, cut at 1,000 characters.
func (d *Document) Text(n *html.Node) string { return d.cellText(n) }

// shortText is n's visible text when it holds at most max bytes of text
// (short true), walking no further once it holds more.
func (d *Document) shortText(n *html.Node, max int) (string, bool) {
	var b strings.Builder
	stack := []*html.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch c.Type {
		case html.TextNode:
			if d.flags(c.Parent)&(hideMask|flagVisibility) == 0 {
				b.WriteString(c.Data)
				if b.Len() > max && len(Normalize(b.String())) > max {
					return "", false
				}
			}
			continue
		case html.ElementNode:
			if c != n && (d.info.at(c).flags&hideMask != 0 || skipsText(c)) {
				continue
			}
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	return Normalize(b.String()), true
}
