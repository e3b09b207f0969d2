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
//
// It walks n's ancestors; code holding the Document should call
// Document.Hidden, which answers from the index Parse computed (and also
// knows the frame's <style> rules).
func Hidden(n *html.Node) bool {
	return hiddenFromRender(n) || ariaHidden(n)
}

// maxAncestors bounds the ancestor walks of the package-level checks.
const maxAncestors = 1024

// hiddenFromRender is CSS-hidden: what neither a screen nor a screen reader
// shows.
func hiddenFromRender(n *html.Node) bool {
	visibility := "" // nearest explicit visibility wins
	steps := 0
	for c := n; c != nil && steps < maxAncestors; c = c.Parent {
		steps++
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
		style := attr(c, "style")
		if attr(c, capture.AttrHidden) == "display" || (style != "" && styleProp(style, "display") == "none") {
			return true
		}
		if visibility == "" {
			if v := styleProp(style, "visibility"); style != "" && v != "" {
				visibility = v
			} else if attr(c, capture.AttrHidden) == "visibility" {
				visibility = "hidden"
			}
		}
	}
	return visibility == "hidden" || visibility == "collapse"
}

func ariaHidden(n *html.Node) bool {
	steps := 0
	for c := n; c != nil && steps < maxAncestors; c = c.Parent {
		steps++
		if c.Type != html.ElementNode {
			continue
		}
		if strings.EqualFold(strings.TrimSpace(attr(c, "aria-hidden")), "true") || hasAttr(c, "inert") {
			return true
		}
	}
	return false
}
