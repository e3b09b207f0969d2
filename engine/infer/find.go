package infer

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
)

// ErrNoComposer: the page holds no element a person would type a message
// into.
var ErrNoComposer = fmt.Errorf("%w: no composer", ErrNoInference)

var (
	messageNameRE = regexp.MustCompile(`(?i)message|ask|chat|prompt|type|write|say|question|reply`)
	searchNameRE  = regexp.MustCompile(`(?i)search|filter|find|e-?mail|password|user ?name|login`)
	sendNameRE    = regexp.MustCompile(`(?i)^(send|submit|ask|go|post|reply)\b|send`)
	notSendRE     = regexp.MustCompile(`(?i)attach|upload|file|voice|mic|record|emoji|stop|clear|new chat|delete|cancel|menu|settings|copy|regenerate|retry|search|sign`)
)

// Found is a control init found on a page: its node id (capture.AttrNode),
// how it is named in a profile and why it was chosen.
type Found struct {
	Node     string
	Control  Control
	Evidence string
}

// FindComposer finds the element a person would type a message into: a
// visible, enabled textbox (a textarea, a contenteditable element or a
// text input), preferring a message-like name and the last on the page.
func FindComposer(d *observe.Document) (Found, error) {
	var best *html.Node
	bestScore := -100
	var seen []string
	d.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if d.Hidden(n) {
			return false
		}
		role := observe.Role(n)
		editable := observe.HasAttr(n, "contenteditable") && !strings.EqualFold(observe.Attr(n, "contenteditable"), "false")
		if role != "textbox" && !editable {
			return true
		}
		if observe.HasAttr(n, "disabled") || observe.HasAttr(n, "readonly") || observe.Attr(n, "aria-disabled") == "true" {
			return true
		}
		name := d.Name(n) + " " + observe.Attr(n, "placeholder") + " " + observe.Attr(n, "class") + " " + observe.Attr(n, "id")
		score := 0
		switch {
		case n.Data == "textarea":
			score += 3
		case editable:
			score += 2
		}
		if messageNameRE.MatchString(name) {
			score += 2
		}
		if searchNameRE.MatchString(name) {
			score -= 5
		}
		seen = append(seen, fmt.Sprintf("<%s> %q", n.Data, d.Name(n)))
		if score >= bestScore { // ties: the last on the page, where composers sit
			best, bestScore = n, score
		}
		return !editable // a contenteditable's children are its content
	})
	if best == nil {
		return Found{}, fmt.Errorf("%w: the page shows no textbox, textarea or contenteditable element", ErrNoComposer)
	}
	c, how := Describe(d, best)
	ev := fmt.Sprintf("<%s>, %s; %d candidates (%s)", best.Data, how, len(seen), strings.Join(seen, ", "))
	return Found{Node: observe.Attr(best, capture.AttrNode), Control: c, Evidence: ev}, nil
}

// FindSend finds the composer's send control: the button nearest the
// composer (in its form or the closest container that holds buttons) whose
// name, type or class says send; none there means Enter.
func FindSend(d *observe.Document, composer string) Found {
	var comp *html.Node
	d.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if comp == nil && observe.Attr(n, capture.AttrNode) == composer {
			comp = n
		}
		return comp == nil
	})
	enter := Found{Control: Control{By: "enter"}, Evidence: "no button beside the composer says send: Enter in the composer"}
	if comp == nil {
		return enter
	}
	up := 0
	for p := comp.Parent; p != nil && p.Type == html.ElementNode && up < 6; p, up = p.Parent, up+1 {
		var best *html.Node
		bestScore := 0
		any := false
		observe.WalkElements(p, func(n *html.Node) bool {
			if d.Hidden(n) {
				return false
			}
			if observe.Role(n) != "button" {
				return true
			}
			any = true
			name := d.Name(n)
			cls := observe.Attr(n, "class") + " " + observe.Attr(n, "id")
			score := 1
			if sendNameRE.MatchString(name) {
				score += 4
			}
			if observe.Attr(n, "type") == "submit" {
				score += 2
			}
			if strings.Contains(strings.ToLower(cls), "send") || strings.Contains(strings.ToLower(cls), "submit") {
				score += 3
			}
			if notSendRE.MatchString(name) || notSendRE.MatchString(cls) {
				score -= 5
			}
			if score > bestScore {
				best, bestScore = n, score
			}
			return false
		})
		if best != nil {
			c, how := Describe(d, best)
			c.By = "click"
			return Found{Node: observe.Attr(best, capture.AttrNode), Control: c,
				Evidence: fmt.Sprintf("the button beside the composer (%d levels up) that reads as send; %s", up+1, how)}
		}
		if any {
			break // the nearest buttons are none of a send
		}
	}
	return enter
}

// FindSelector finds the one visible element a CSS selector names (a
// composer or send control given by hand).
func FindSelector(d *observe.Document, sel string) (Found, error) {
	m, err := adapter.CompileSelector(sel)
	if err != nil {
		return Found{}, fmt.Errorf("%w: selector %q: %w", ErrNoComposer, sel, err)
	}
	got := matches(d, m)
	if len(got) != 1 {
		return Found{}, fmt.Errorf("%w: selector %q matches %d visible elements, want 1", ErrNoComposer, sel, len(got))
	}
	return Found{Node: observe.Attr(got[0], capture.AttrNode), Control: Control{Selector: sel}, Evidence: "given by hand"}, nil
}
