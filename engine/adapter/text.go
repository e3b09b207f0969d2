package adapter

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/observe"
)

// Text as a person reads it (LIB-7). A turn's text joins its text nodes
// as the page renders them: inline elements (the <span>s of highlighted
// code, <b>, <a>, <code>) add nothing between their text and their
// neighbours', blocks and line breaks separate; white space collapses to
// one space, except in a code block (<pre>), whose lines and indentation
// are kept. The site's controls (buttons, toolbars, typing indicators) and
// a code block's header (its language label and Copy button) are left
// out.

// rendered is s's text as the page renders it.
func (s span) rendered(doc *observe.Document) string {
	var t textJoin
	var rec func(n *html.Node, pre bool)
	elem := func(c *html.Node, pre bool) {
		if c == s.skip || skipText(c) || s.excluded(c) || codeHeader(c) {
			return
		}
		if pre {
			if c.DataAtom == atom.Br {
				t.raw("\n")
			}
			rec(c, true)
			return
		}
		switch {
		case c.DataAtom == atom.Pre:
			t.block()
			t.startPre()
			if code := onlyCode(c); code != nil {
				rec(code, true)
			} else {
				rec(c, true)
			}
			t.endPre()
			t.block()
		case isBlock(c):
			t.block()
			rec(c, false)
			t.block()
		default:
			rec(c, false)
		}
	}
	rec = func(n *html.Node, pre bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if pre {
					t.raw(c.Data)
				} else {
					t.text(c.Data)
				}
			case html.ElementNode:
				if doc.Hidden(c) {
					continue
				}
				elem(c, pre)
			}
		}
	}
	for _, n := range s.nodes {
		switch {
		case n.Type == html.TextNode:
			t.text(n.Data)
		case n.Type == html.ElementNode && n != s.skip && !skipText(n):
			// a turn root is read even when hidden (its state says so)
			t.block()
			if n.DataAtom == atom.Pre {
				t.startPre()
				rec(n, true)
				t.endPre()
			} else {
				rec(n, false)
			}
			t.block()
		}
	}
	return t.String()
}

// isBlock reports whether n separates its text from its neighbours': a
// block element (observe.IsBlock), a line break, or a custom element (no
// capture holds computed display, and a web component's host is most
// often a block; a space at its edge is the safer guess).
func isBlock(n *html.Node) bool {
	return observe.IsBlock(n) || strings.Contains(n.Data, "-")
}

// onlyCode is the <code> element a <pre> holds beside labels of its own
// (a renderer's language label inside the pre), nil when the pre holds
// none or more than one.
func onlyCode(pre *html.Node) *html.Node {
	var code *html.Node
	var find func(n *html.Node) bool
	find = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Code {
				if code != nil {
					return false
				}
				code = c
				continue
			}
			if !find(c) {
				return false
			}
		}
		return true
	}
	if !find(pre) {
		return nil
	}
	return code
}

// codeHeader reports whether n is a code block's header: an element with
// a control in it (a Copy button) beside a code block (a <pre> or <code>
// sibling), holding no code itself; its language label goes with it.
func codeHeader(n *html.Node) bool {
	if n.Type != html.ElementNode || n.DataAtom == atom.Pre || n.DataAtom == atom.Code || n.Parent == nil {
		return false
	}
	beside := false
	for c := n.Parent.FirstChild; c != nil; c = c.NextSibling {
		if c != n && c.Type == html.ElementNode && holds(c, atom.Pre, atom.Code) {
			beside = true
			break
		}
	}
	if !beside || holds(n, atom.Pre, atom.Code) {
		return false
	}
	found := false
	var rec func(c *html.Node)
	rec = func(c *html.Node) {
		for k := c.FirstChild; k != nil && !found; k = k.NextSibling {
			if k.Type != html.ElementNode {
				continue
			}
			if r := observe.Role(k); r == "button" || r == "toolbar" {
				found = true
				return
			}
			rec(k)
		}
	}
	rec(n)
	return found
}

// holds reports whether n is or contains an element of one of the atoms.
func holds(n *html.Node, atoms ...atom.Atom) bool {
	for _, a := range atoms {
		if n.DataAtom == a {
			return true
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && holds(c, atoms...) {
			return true
		}
	}
	return false
}

// textJoin collects text: runs of white space outside code blocks
// collapse to one space (observe.Normalize's white space), blocks are
// separated by one space, a code block's text is kept as it is (its
// trailing line breaks dropped).
type textJoin struct {
	b       strings.Builder
	pending bool // a space is owed before the next text
	pre     strings.Builder
	inPre   bool
}

func (t *textJoin) text(s string) {
	n := observe.Normalize(s)
	if n == "" {
		if s != "" {
			t.pending = t.b.Len() > 0
		}
		return
	}
	if t.pending || (t.b.Len() > 0 && startsSpace(s)) {
		t.b.WriteByte(' ')
	}
	t.b.WriteString(n)
	t.pending = endsSpace(s)
}

func (t *textJoin) raw(s string) { t.pre.WriteString(s) }

func (t *textJoin) block() { t.pending = t.b.Len() > 0 }

func (t *textJoin) startPre() { t.inPre = true; t.pre.Reset() }

func (t *textJoin) endPre() {
	t.inPre = false
	code := strings.TrimRight(t.pre.String(), " \t\r\n")
	code = strings.TrimLeft(code, "\r\n")
	if strings.TrimSpace(code) == "" {
		return
	}
	if t.b.Len() > 0 {
		t.b.WriteByte(' ')
	}
	t.b.WriteString(code)
	t.pending = true
}

func (t *textJoin) String() string { return t.b.String() }

func startsSpace(s string) bool {
	f := strings.TrimLeftFunc(s, isSpace)
	return len(f) < len(s)
}

func endsSpace(s string) bool {
	f := strings.TrimRightFunc(s, isSpace)
	return len(f) < len(s)
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }
