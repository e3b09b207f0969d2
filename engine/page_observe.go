package engine

import (
	"context"

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
