package adapter

import (
	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/observe"
)

// Select is the elements of doc that the CSS selector sel matches, in
// frame and document order, hidden ones included: a goquery query over
// the capture's parsed frames (observe.Document.Select), for offline
// questions about a recorded capture (a validator's selector checks, a
// site profile's controls). sel is compiled under CompileSelector's rules;
// an empty, oversized, too costly or invalid selector is its error.
func Select(doc *observe.Document, sel string) (*goquery.Selection, error) {
	m, err := CompileSelector(sel)
	if err != nil {
		return nil, err
	}
	return doc.Select(cascadia.Selector(m.Match)), nil
}

// SelectCandidates is the candidates of o (o.All, in its priority order)
// whose element the CSS selector sel matches, and how many elements of
// the page it matches in all, candidates or not (hidden, or nothing an
// agent acts on). Errors are Select's.
func SelectCandidates(o *observe.Observation, sel string) (candidates []observe.Element, matched int, err error) {
	s, err := Select(o.Doc, sel)
	if err != nil {
		return nil, 0, err
	}
	in := make(map[*html.Node]bool, s.Length())
	for _, n := range s.Nodes {
		in[n] = true
	}
	for _, e := range o.All {
		if n := e.HTMLNode(); n != nil && in[n] {
			candidates = append(candidates, e)
		}
	}
	return candidates, s.Length(), nil
}
