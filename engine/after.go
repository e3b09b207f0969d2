package engine

import (
	"context"
	"fmt"
	"strconv"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// After is the page state an action left (AGT-2): the snapshot whose refs
// are now the page's, and the elements an agent needs next — the page
// view's controls (editors first, then the newest ones) and the acted-on
// element's neighbours in page order — so the next action needs no
// snapshot call. Refs of every earlier snapshot are stale (ID-1).
type After struct {
	Snapshot int    `json:"snapshot"`
	URL      string `json:"url"`
	Title    string `json:"title,omitempty"`
	// Elements are the page view's elements, then the acted-on element's
	// neighbours the view left out.
	Elements []observe.Element `json:"elements"`
	// ElementCount is what Elements holds of the page's candidates.
	ElementCount observe.Count `json:"elementCount"`
	// Acted is the ref of the element the action went to, in this
	// snapshot, when it is still there.
	Acted string `json:"acted,omitempty"`
}

// AfterNeighbours is how many elements before and after the acted-on one
// (in page order) an After adds to the page view's.
const AfterNeighbours = 3

// After returns the page as the last action left it: the page's last
// read (a fill's verification, the read that met a click's expectation),
// with no read of its own, so the state is the one the action's outcome
// was decided on (after a navigation, a first read of the new page). When the page's latest snapshot observed that read, it
// is the one returned; otherwise the read is observed as a new snapshot.
func (p *Page) After(ctx context.Context) (*After, error) {
	doc, groups := p.last.doc, p.last.groups
	if doc == nil || p.obs == nil {
		// nothing read since a navigation: read the new page
		var err error
		if doc, groups, err = p.read(ctx); err != nil {
			return nil, err
		}
	}
	o := p.obs
	if o == nil || o.Doc != doc {
		o = p.observeRead(doc, groups)
	}
	view := o.View(observe.ViewPage, p.task.e.cfg.PageLimits)
	a := &After{Snapshot: o.ID, URL: o.URL, Title: o.Title, Elements: view.Elements}
	in := make(map[string]bool, len(view.Elements))
	for _, e := range view.Elements {
		in[e.Ref] = true
	}
	acted := -1
	for _, e := range o.All {
		if p.acted != "" && e.Node == p.acted {
			acted, a.Acted = e.Order, e.Ref
			break
		}
	}
	if acted > 0 {
		for _, e := range o.All {
			if d := e.Order - acted; d >= -AfterNeighbours && d <= AfterNeighbours && !in[e.Ref] {
				if e.Group == "" {
					e.Context = o.Context(e)
				}
				a.Elements = append(a.Elements, e)
			}
		}
	}
	a.ElementCount = observe.Count{Returned: len(a.Elements), Total: len(o.All), Truncated: len(a.Elements) < len(o.All)}
	p.emit("after", trace.A("snapshot", o.ID), trace.A("elements", fmt.Sprintf("%d/%d", len(a.Elements), len(o.All))))
	return a, nil
}

// GroupText is one page of an answer group's full text (AGT-4): the
// characters from offset, at most limit of them.
type GroupText struct {
	Group   string `json:"group"`
	Text    string `json:"text"`
	Offset  int    `json:"offset"`
	Total   int    `json:"total"` // characters of the whole text
	HasMore bool   `json:"hasMore"`
}

// GroupText limits: the default and largest page, in characters.
const (
	DefaultGroupTextChars = 4000
	MaxGroupTextChars     = 16000
)

// GroupNotFound: no answer group with that id is on the page.
const GroupNotFound = errcode.GroupNotFound

// ReadGroup reads the page afresh and returns limit characters of the
// group's text from offset (0: DefaultGroupTextChars).
func (p *Page) ReadGroup(ctx context.Context, id string, offset, limit int) (GroupText, error) {
	if limit == 0 {
		limit = DefaultGroupTextChars
	}
	if offset < 0 || limit < 0 || limit > MaxGroupTextChars {
		return GroupText{}, &Error{Code: InvalidArgument, Op: "readAnswer",
			Detail: "offset must be 0 or more and limit 1.." + strconv.Itoa(MaxGroupTextChars)}
	}
	_, groups, err := p.read(ctx)
	if err != nil {
		return GroupText{}, err
	}
	var g *adapter.Group
	for i := range groups.Groups {
		if groups.Groups[i].ID == id {
			g = &groups.Groups[i]
			break
		}
	}
	if g == nil {
		return GroupText{}, &Error{Code: GroupNotFound, Op: "readAnswer", Detail: fmt.Sprintf("no answer group %q on the page", id)}
	}
	g.Load()
	r := []rune(g.Text)
	out := GroupText{Group: id, Offset: offset, Total: len(r)}
	if offset < len(r) {
		end := min(len(r), offset+limit)
		out.Text = string(r[offset:end])
		out.HasMore = end < len(r)
	}
	p.emit("readAnswer", trace.A("group", id), trace.A("offset", offset), trace.A("chars", len([]rune(out.Text))), trace.A("total", out.Total))
	return out, nil
}
