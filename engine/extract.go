package engine

import (
	"context"
	"fmt"

	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// What an extract reads.
const (
	ExtractText   = "text"   // the visible text, cut to the text limits
	ExtractTables = "tables" // the tables, cut to the table, row and column limits
	ExtractSearch = "search" // bounded snippets around each match of Query
)

// ExtractRequest names one bounded read of the page's content.
type ExtractRequest struct {
	// What is ExtractText, ExtractTables or ExtractSearch.
	What string `json:"what"`
	// Query is the text to search for (ExtractSearch only).
	Query string `json:"query,omitempty"`
}

// ExtractLimits are the limits an extract was cut to, so a reader knows
// what "truncated" was measured against.
type ExtractLimits struct {
	TextCharsMax       int `json:"textCharsMax"`
	MergedTextCharsMax int `json:"mergedTextCharsMax"`
	TablesMax          int `json:"tablesMax"`
	MergedTablesMax    int `json:"mergedTablesMax"`
	TableRowsMax       int `json:"tableRowsMax"`
	TableColsMax       int `json:"tableColsMax"`
	TableCellCharsMax  int `json:"tableCellCharsMax"`
	SnippetsMax        int `json:"snippetsMax"`
	SnippetCharsMax    int `json:"snippetCharsMax"`
}

// Extract is one bounded read with its truncation facts. Complete is
// false when a limit bit or a frame was not read: then an absent value is
// not proven absent and a partial table is not the whole table (OBS-7,
// OBS-8).
type Extract struct {
	Snapshot int    `json:"snapshot"`
	What     string `json:"what"`
	URL      string `json:"url"`
	Complete bool   `json:"complete"`

	Text      string        `json:"text,omitempty"`
	TextCount observe.Count `json:"textCount"`

	Tables     []observe.Table `json:"tables,omitempty"`
	TableCount observe.Count   `json:"tableCount"`

	Search *observe.TextResult `json:"search,omitempty"`

	Limits ExtractLimits `json:"limits"`
}

// Extract reads the page's text, tables or a text search afresh, bounded
// by the full view's limits (Config.Limits). It is a read: a blocked task
// may extract, and the loop monitor does not count it as an action.
func (p *Page) Extract(ctx context.Context, req ExtractRequest) (*Extract, error) {
	switch req.What {
	case ExtractText, ExtractTables:
	case ExtractSearch:
		if observe.Normalize(req.Query) == "" {
			return nil, &Error{Code: InvalidArgument, Op: "extract", Detail: "a search needs a query"}
		}
	default:
		return nil, &Error{Code: InvalidArgument, Op: "extract", Detail: fmt.Sprintf("what is %q; want text, tables or search", req.What)}
	}
	o, err := p.observe(ctx)
	if err != nil {
		return nil, err
	}
	lim := p.task.e.cfg.Limits
	x := &Extract{Snapshot: o.ID, What: req.What, URL: o.URL, Limits: ExtractLimits{
		TextCharsMax: lim.TextCharsMax, MergedTextCharsMax: lim.MergedTextCharsMax,
		TablesMax: lim.TablesMax, MergedTablesMax: lim.MergedTablesMax,
		TableRowsMax: lim.TableRowsMax, TableColsMax: lim.TableColsMax, TableCellCharsMax: lim.TableCellCharsMax,
		SnippetsMax: lim.SnippetsMax, SnippetCharsMax: lim.SnippetCharsMax,
	}}
	s := o.View(observe.ViewFull, lim)
	attrs := []trace.Attr{trace.A("snapshot", o.ID), trace.A("what", req.What)}
	switch req.What {
	case ExtractText:
		x.Text, x.TextCount = s.Text, s.Counts.Text
		x.Complete = !s.Counts.Text.Truncated && o.Whole()
		attrs = append(attrs, trace.A("chars", fmt.Sprintf("%d/%d", x.TextCount.Returned, x.TextCount.Total)),
			trace.A("truncated", x.TextCount.Truncated))
	case ExtractTables:
		x.Tables, x.TableCount = s.Tables, s.Counts.Tables
		x.Complete = !s.Counts.Tables.Truncated && o.Whole()
		rowsCut := 0
		for _, t := range s.Tables {
			if !t.Complete {
				x.Complete = false
				rowsCut++
			}
		}
		attrs = append(attrs, trace.A("tables", fmt.Sprintf("%d/%d", x.TableCount.Returned, x.TableCount.Total)),
			trace.A("truncated", x.TableCount.Truncated), trace.A("partialTables", rowsCut))
	case ExtractSearch:
		r := o.SearchText(observe.TextQuery{Text: req.Query}, lim)
		x.Search = &r
		x.Complete = r.Complete && !r.TextTruncated
		attrs = append(attrs, trace.A("text", r.Query), trace.A("matched", r.TextMatched),
			trace.A("snippets", len(r.Snippets)), trace.A("truncated", r.TextTruncated))
	}
	attrs = append(attrs, trace.A("complete", x.Complete))
	p.emit("extract", attrs...)
	return x, nil
}
