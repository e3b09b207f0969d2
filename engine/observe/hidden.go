package observe

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
)

// Hidden reports whether n is not shown to a user of the page: inside
// display:none (the `hidden` attribute, an inline style, or the live
// computed style a browser capture writes as data-rl-hidden), with
// visibility:hidden, inside an aria-hidden="true" or inert subtree, or in
// non-rendered content (head, script, style, template, noscript).
func Hidden(n *html.Node) bool {
	return hiddenFromRender(n) || ariaHidden(n)
}

// hiddenFromRender is CSS-hidden: what neither a screen nor a screen reader
// shows. aria-hidden is separate because accessible-name computation may
// still read aria-hidden nodes that are referenced by aria-labelledby.
func hiddenFromRender(n *html.Node) bool {
	visibility := "" // nearest explicit visibility wins
	for c := n; c != nil; c = c.Parent {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Head, atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Title:
			return true
		}
		if hasAttr(c, "hidden") && !strings.EqualFold(attr(c, "hidden"), "until-found") {
			return true
		}
		if c.DataAtom == atom.Input && strings.EqualFold(attr(c, "type"), "hidden") {
			return true
		}
		style := styleProps(attr(c, "style"))
		if style["display"] == "none" || attr(c, capture.AttrHidden) == "display" {
			return true
		}
		if visibility == "" {
			if v := style["visibility"]; v != "" {
				visibility = v
			} else if attr(c, capture.AttrHidden) == "visibility" {
				visibility = "hidden"
			}
		}
	}
	return visibility == "hidden" || visibility == "collapse"
}

func ariaHidden(n *html.Node) bool {
	for c := n; c != nil; c = c.Parent {
		if c.Type != html.ElementNode {
			continue
		}
		if strings.EqualFold(strings.TrimSpace(attr(c, "aria-hidden")), "true") || hasAttr(c, "inert") {
			return true
		}
	}
	return false
}

// styleProps parses an inline style attribute into lower-case properties.
func styleProps(s string) map[string]string {
	if s == "" {
		return nil
	}
	m := map[string]string{}
	for _, decl := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.ToLower(v)), "!important"))
		m[strings.TrimSpace(strings.ToLower(k))] = strings.TrimSpace(v)
	}
	return m
}
