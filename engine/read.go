package engine

import (
	"context"
	"fmt"
	"strconv"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
)

// read captures the page and finds its groups without issuing a snapshot.
func (p *Page) read(ctx context.Context) (*observe.Document, adapter.Result, error) {
	c, err := p.d.Capture(ctx)
	if err != nil {
		return nil, adapter.Result{}, fmt.Errorf("engine: capture: %w", err)
	}
	if c == p.last.c {
		// the driver saw no change: the same capture, the same parse
		return p.last.doc, p.last.groups, nil
	}
	// the page changed: the new parse takes over the last one's nodes for
	// the bytes each frame's HTML still shares with it (ParseAfter), so a
	// streamed paragraph costs about its own parse. The last document is
	// then dead: nothing reads it after a new read (p.obs keeps only what
	// ByRef and the actions read: strings and attributes, which the
	// take-over leaves as they were).
	doc, err := observe.ParseAfter(c, p.last.doc)
	prev := p.last.groups
	p.last = lastRead{}
	if err != nil {
		return nil, adapter.Result{}, err
	}
	// groups are found with ids and nodes; their text, state and media
	// are read only for those a view or a wait returns. The turns the new
	// parse kept from the last one keep their ids (adapter.LazyAfter).
	groups := adapter.LazyAfter(p.task.e.cfg.Adapter, doc, prev)
	p.last = lastRead{c: c, doc: doc, groups: groups}
	return doc, groups, nil
}

// ReadAhead reads the page ahead of the next call, as a server idle
// between calls does after the page changed (Notifier): the capture, its
// parse, its groups and their observation, so a snapshot, find or action
// that then finds the page as read reuses them, and one that finds it
// changed again resumes from them. It issues no snapshot (every ref stays
// as it was), emits no trace event and tells the monitor nothing: what a
// call returns is what it would have returned without it. An error is
// only a read that did not happen; the next call reads the page itself.
// Like every other operation, it runs alone on the page.
func (p *Page) ReadAhead(ctx context.Context) error {
	doc, groups, err := p.read(ctx)
	if err != nil {
		return err
	}
	if l := &p.last; l.doc == doc && l.obs == nil {
		// the next snapshot reissues it under its own id
		l.obs, l.mon = p.observeDoc(doc, groups, p.seq+1)
	}
	return nil
}

// observeDoc observes a read under snapshot id id, with the monitor's view
// of it.
func (p *Page) observeDoc(doc *observe.Document, groups adapter.Result, id int) (*observe.Observation, monitor.Observation) {
	o := observe.Observe(doc, id, observe.Options{GroupOf: groups.GroupOf(), GroupRoots: groups.GroupRoots()})
	return o, monitorObservation(p.Name, o, groups)
}

// observe takes a new snapshot: every earlier ref becomes stale.
func (p *Page) observe(ctx context.Context) (*observe.Observation, error) {
	doc, groups, err := p.read(ctx)
	if err != nil {
		return nil, err
	}
	return p.observeRead(doc, groups), nil
}

// observeRead takes a new snapshot of a read the page made.
func (p *Page) observeRead(doc *observe.Document, groups adapter.Result) *observe.Observation {
	p.seq++
	var mo monitor.Observation
	if l := &p.last; l.obs != nil && l.doc == doc {
		// the same parse and groups: the same observation under the new
		// snapshot id (every earlier ref stale, ID-1), the same monitor view
		p.obs = l.obs.Reissue(p.seq)
		mo = l.mon
		mo.SnapshotID = strconv.Itoa(p.seq)
	} else {
		p.obs, mo = p.observeDoc(doc, groups, p.seq)
		if l.doc == doc {
			l.obs, l.mon = p.obs, mo
		}
	}
	p.groups = groups
	p.noteObservation(mo)
	return p.obs
}

// boundGroups keeps the last GroupsMax groups and cuts each text to
// TextCharsMax characters (marking the group TextTruncated).
func boundGroups(all []adapter.Group, lim GroupLimits) ([]adapter.Group, observe.Count) {
	c := observe.Count{Total: len(all)}
	start := max(0, len(all)-lim.GroupsMax)
	out := make([]adapter.Group, 0, len(all)-start)
	for i := start; i < len(all); i++ {
		all[i].Load()
	}
	for _, g := range all[start:] {
		if t := observe.TruncRunes(g.Text, lim.TextCharsMax); len(t) < len(g.Text) {
			g.Text = t
			g.TextTruncated = true
			c.Truncated = true
		}
		out = append(out, g)
	}
	c.Returned = len(out)
	c.Truncated = c.Truncated || c.Returned < c.Total
	return out, c
}

// lastRead is a page's last capture with its parse and groups: a driver
// that returns the same capture again (nothing changed) costs no parse,
// and a snapshot of it no observation: obs, the last observation of doc,
// is reissued with the new snapshot id (observe.Observation.Reissue), and
// mon is its monitor view.
type lastRead struct {
	c      *capture.Capture
	doc    *observe.Document
	groups adapter.Result
	obs    *observe.Observation // nil until a snapshot observed doc
	mon    monitor.Observation
}
