package main

import (
	"fmt"
	"strings"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/infer"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
)

// codegenClicks turns the session's clicks that are no send (nor a
// Regenerate or Retry, which are decisions; nor a click into the
// composer) into click steps of the catalogue: the control by role and
// name, or by selector when it has no name, in the narrowest scope that
// finds it alone (none, the newest answer, an ordinal), expecting a text
// the click showed. Keyed by the index of the recorded step.
//
// A Regenerate or Retry on an answer other than the newest (which "I
// regenerate the answer" would not reach) is a click too, in decisions.
func codegenClicks(s *replay.Session, rep conformance.Session, ad adapter.Adapter, file string) (clicks, decisions map[int]string, err error) {
	decided := map[int]bool{}
	for _, d := range rep.Decisions {
		decided[d.Step] = d.Typed != "" // a send; a Regenerate or Retry may be a click below
	}
	out, dec := map[int]string{}, map[int]string{}
	for i, st := range s.Steps {
		if st.Kind != replay.KindClick || decided[i] || st.Node == "" {
			continue
		}
		if _, ok := decided[i]; ok {
			// Regenerate or Retry: "I regenerate the answer" acts on
			// the newest answer; another answer's control is a click
			before, after, err := codegenAround(s, i)
			if err != nil {
				return nil, nil, err
			}
			if before == nil {
				continue
			}
			n := byNodeID(before, st.Node)
			r := ad.Groups(before)
			if n == nil || len(r.Groups) == 0 || r.GroupOf()(n) == r.Groups[len(r.Groups)-1].ID {
				continue
			}
			target, err := codegenTarget(before, n, ad)
			if err != nil {
				return nil, nil, fmt.Errorf("codegen: %s: the click at step %d: %w", file, i, err)
			}
			if expect := newText(before, after); after != nil && expect != "" {
				dec[i] = fmt.Sprintf("I click %s expecting the text %q", target, expect)
			}
			continue
		}
		before, after, err := codegenAround(s, i)
		if err != nil {
			return nil, nil, err
		}
		if before == nil || after == nil {
			continue
		}
		n := byNodeID(before, st.Node)
		if n == nil || observe.IsEditor(observe.Role(n)) || observe.HasAttr(n, "contenteditable") {
			continue // a click into the composer, or on nothing the page shows
		}
		target, err := codegenTarget(before, n, ad)
		if err != nil {
			return nil, nil, fmt.Errorf("codegen: %s: the click at step %d: %w", file, i, err)
		}
		expect := newText(before, after)
		if expect == "" {
			return nil, nil, fmt.Errorf("codegen: %s: the click at step %d on %s showed no new text, and a click step must expect what it shows; record the click where it shows something, or leave it out of the session", file, i, target)
		}
		out[i] = fmt.Sprintf("I click %s expecting the text %q", target, expect)
	}
	return out, dec, nil
}

// codegenAround are the captures before step i (the last at or before it)
// and after it (the last before the next action).
func codegenAround(s *replay.Session, i int) (before, after *observe.Document, err error) {
	parse := func(k *int) (*observe.Document, error) {
		if k == nil || *k < 0 || *k >= len(s.Captures) {
			return nil, nil
		}
		return observe.Parse(s.Captures[*k])
	}
	for j := i - 1; j >= 0; j-- {
		if s.Steps[j].Kind == replay.KindCapture {
			if before, err = parse(s.Steps[j].Capture); err != nil {
				return nil, nil, err
			}
			break
		}
	}
	var last *int
	for j := i + 1; j < len(s.Steps); j++ {
		k := s.Steps[j].Kind
		if k == replay.KindCapture {
			last = s.Steps[j].Capture
			continue
		}
		if k == replay.KindClick || k == replay.KindType || k == replay.KindPress || k == replay.KindNavigate || k == replay.KindDoubleClick {
			break
		}
	}
	after, err = parse(last)
	return before, after, err
}

// codegenTarget is the click's target as a step writes it.
func codegenTarget(d *observe.Document, n *html.Node, ad adapter.Adapter) (string, error) {
	role, name := observe.Role(n), d.Name(n)
	if role == "" || name == "" || strings.Contains(name, `"`) {
		c, _ := infer.Describe(d, n)
		if c.Selector == "" || strings.Contains(c.Selector, `"`) {
			return "", fmt.Errorf("the control it clicked has no accessible name and no selector finds it alone")
		}
		return fmt.Sprintf("the selector %q", c.Selector), nil
	}
	var same []*html.Node
	d.Walk(func(_ *observe.Frame, x *html.Node) bool {
		if d.Hidden(x) {
			return false
		}
		if observe.Role(x) == role && d.Name(x) == name {
			same = append(same, x)
		}
		return true
	})
	t := fmt.Sprintf("the %s %q", role, name)
	if len(same) <= 1 {
		return t, nil
	}
	// one per answer: the newest answer's, when it is in the newest
	r := ad.Groups(d)
	if len(r.Groups) > 0 {
		of := r.GroupOf()
		newest := r.Groups[len(r.Groups)-1].ID
		if of(n) == newest {
			in := 0
			for _, x := range same {
				if of(x) == newest {
					in++
				}
			}
			if in == 1 {
				return t + " in the newest answer", nil
			}
		}
	}
	for k, x := range same {
		if x == n {
			return fmt.Sprintf("the %s %s %q", ordinal(k+1), role, name), nil
		}
	}
	return t, nil
}

func ordinal(k int) string {
	suffix := "th"
	switch {
	case k%100 >= 11 && k%100 <= 13:
	case k%10 == 1:
		suffix = "st"
	case k%10 == 2:
		suffix = "nd"
	case k%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprint(k) + suffix
}

// newText is the first short text after shows that before did not: what a
// click step can expect.
func newText(before, after *observe.Document) string {
	seen := map[string]bool{}
	for _, t := range ownTexts(before) {
		seen[t] = true
	}
	for _, t := range ownTexts(after) {
		if !seen[t] && len(t) >= 2 && len(t) <= 80 && !strings.Contains(t, `"`) {
			return t
		}
	}
	return ""
}

// ownTexts are the visible texts of the elements that hold text of their
// own, in document order.
func ownTexts(d *observe.Document) []string {
	var out []string
	d.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if d.Hidden(n) || n.Data == "script" || n.Data == "style" {
			return false
		}
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data + " ")
			}
		}
		if t := observe.Normalize(b.String()); t != "" {
			out = append(out, t)
		}
		return true
	})
	return out
}

func byNodeID(d *observe.Document, id string) *html.Node {
	var out *html.Node
	d.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if out == nil && observe.Attr(n, capture.AttrNode) == id {
			out = n
		}
		return out == nil
	})
	return out
}
