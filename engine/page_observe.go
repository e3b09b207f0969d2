package engine

import (
	"context"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// SearchText observes the page afresh and searches its visible text, every
// frame read (OBS-6): bounded snippets around each match, the true match
// count and whether snippets were left out. Complete is false when a frame
// could not be read, so no match then proves nothing (OBS-7). It is a read:
// a blocked task may still search.
func (p *Page) SearchText(ctx context.Context, text string) (observe.TextResult, error) {
	if observe.Normalize(text) == "" {
		return observe.TextResult{}, &Error{Code: InvalidArgument, Op: "searchText", Detail: "the text to search for is empty"}
	}
	o, err := p.observe(ctx)
	if err != nil {
		return observe.TextResult{}, err
	}
	r := o.SearchText(observe.TextQuery{Text: text}, p.task.e.cfg.Limits)
	p.emit("searchText", trace.A("snapshot", o.ID), trace.A("text", r.Query), trace.A("matched", r.TextMatched),
		trace.A("snippets", len(r.Snippets)), trace.A("truncated", r.TextTruncated), trace.A("complete", r.Complete))
	return r, nil
}

// RefOf resolves l in the page's latest observation, without observing
// again, and returns the one match: its ref is one the next action may
// use. It refuses exactly as an action's resolve does (LOC-2): more than
// one match is TARGET_AMBIGUOUS with the candidates described, none is
// TARGET_NOT_FOUND; narrowing (Within, Near, Nth) picks one of several. It
// never falls back to the first of several matches.
func (p *Page) RefOf(ctx context.Context, l locate.Locator) (observe.Element, error) {
	if p.obs == nil {
		return observe.Element{}, &Error{Code: InvalidArgument, Op: "ref", Detail: "nothing was observed on this page since it last navigated; take a snapshot first"}
	}
	el, err := locate.Resolve(p.obs, l)
	if err != nil {
		attrs := []trace.Attr{trace.A("op", "ref"), trace.A("target", Target{Locator: l}), trace.A("code", errcode.Of(err))}
		var le *locate.Error
		if asLocate(err, &le) && le.Count > 0 {
			attrs = append(attrs, trace.A("count", le.Count))
		}
		p.emit("resolve", attrs...)
	}
	return el, err
}
