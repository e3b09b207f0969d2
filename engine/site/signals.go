package site

import (
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/observe"
)

// Reader returns the adapter the engine reads p's pages with: p's adapter,
// plus p's page-level signals. While a failure signal is on the page
// (outside the hidden parts), the result says so (adapter.Result.Failure)
// and the newest assistant group — when it comes after the last user turn
// — has failed (LIB-5); else, while a generating
// signal is, that group is generating; the signal is the evidence.
// Without signals it is p.Adapter itself.
func (p *Profile) Reader() adapter.Adapter {
	if p.Generating.Empty() && p.Failed.Empty() {
		return p.Adapter
	}
	return &reader{p: p}
}

type reader struct{ p *Profile }

func (r *reader) Name() string { return r.p.Adapter.Name() }

func (r *reader) Groups(doc *observe.Document) adapter.Result {
	res := r.p.Adapter.Groups(doc)
	failure := signal(doc, r.p.Failed, r.p.failSels)
	if failure != "" {
		// the page's failure, whether or not an answer group shows it:
		// a library that adds no answer on an error (LIB-5)
		res.Failure = "page failure signal " + failure
	}
	n := len(res.Groups)
	if n == 0 {
		return res
	}
	last := &res.Groups[n-1]
	if last.Node == nil {
		return res
	}
	last.Load()
	if last.State != adapter.StateComplete && last.State != adapter.StateGenerating {
		return res // the adapter read a final state of its own
	}
	for _, u := range res.Users {
		if precedes(last.Node, u) {
			return res // the newest turn is the user's: no group answers it yet
		}
	}
	if failure != "" {
		last.State = adapter.StateFailed
		last.Evidence = res.Failure
		return res
	}
	if last.State != adapter.StateComplete {
		return res
	}
	if ev := r.p.PageSignal(doc); ev != "" {
		last.State = adapter.StateGenerating
		last.Evidence = "page signal " + ev
	}
	return res
}

// PageSignal returns the evidence of the first page-level generating
// signal present on doc, "" for none.
func (p *Profile) PageSignal(doc *observe.Document) string {
	return signal(doc, p.Generating, p.sels)
}

// PageFailure returns the evidence of the first page-level failure signal
// present on doc, "" for none.
func (p *Profile) PageFailure(doc *observe.Document) string {
	return signal(doc, p.Failed, p.failSels)
}

// signal returns the evidence of the first of s present on doc (sels are
// s.Selectors compiled), "" for none.
func signal(doc *observe.Document, s Signals, sels []cascadia.Matcher) string {
	if s.Empty() {
		return ""
	}
	for _, f := range doc.Frames {
		found := ""
		observe.WalkElements(f.Root, func(n *html.Node) bool {
			if found != "" || doc.Hidden(n) {
				return false
			}
			for i, sel := range sels {
				if sel != nil && sel.Match(n) {
					found = "selector " + `"` + s.Selectors[i] + `"`
					return false
				}
			}
			if len(s.Controls) > 0 {
				role := observe.Role(n)
				for _, c := range s.Controls {
					if role == c.Role && (c.Name == "" || strings.EqualFold(observe.Normalize(doc.Name(n)), observe.Normalize(c.Name))) {
						found = "control " + c.String()
						return false
					}
				}
			}
			return true
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// precedes reports whether a comes before b in document order (b not
// inside a).
func precedes(a, b *html.Node) bool {
	pa, pb := path(a), path(b)
	i := 0
	for i < len(pa) && i < len(pb) && pa[i] == pb[i] {
		i++
	}
	if i == len(pa) || i == len(pb) {
		return false // one holds the other
	}
	for c := pa[i].NextSibling; c != nil; c = c.NextSibling {
		if c == pb[i] {
			return true
		}
	}
	return false
}

// path lists n's ancestors from the root down to n.
func path(n *html.Node) []*html.Node {
	var out []*html.Node
	for c := n; c != nil; c = c.Parent {
		out = append(out, c)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
