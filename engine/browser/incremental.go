package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/engine/capture"
)

// The incremental capture. After a full capture (DOMSnapshot.captureSnapshot)
// of a page the driver keeps its main document as a tree (livetree.go),
// and the page's tracker (tracker.js, in the isolated world next to the
// change observer) numbers the same nodes in the same order. A later
// capture asks the tracker what changed since the last one:
//
//   - child lists that changed, with the nodes inserted into them
//     serialised (tag, attributes, text, live state); their backend node
//     ids come from one DOM.describeNode of each inserted subtree, so node
//     ids mean what they mean in a full capture;
//   - attributes and texts that changed (mutation records);
//   - the live state of every element whose state differs from what the
//     kept capture holds: a state pass over every element of the document
//     re-reads computed hidden (checkVisibility, so a class, a style, a
//     stylesheet or a pseudo-class that hides a subtree is seen wherever it
//     comes from), values, checked, selected and media readiness.
//
// The driver patches its tree and writes the frame's HTML again, copying
// the subtrees nothing changed in from the last HTML as byte ranges
// (livetree.go html). A capture after a small change transfers and decodes
// only the changed subtrees, and one with nothing changed returns the last
// capture. One evaluation returns the delta and handles of the inserted
// subtrees' roots; the form and media elements the state pass checks on
// every capture are kept in a set (tracker.js watch), not queried from the
// whole document.
//
// A full capture is taken instead (and the tracker restarted) for: the
// first capture of a document and after a navigation; a page with frames
// (iframe, frame, object, embed: their documents are not tracked) or that
// has had shadow DOM (the capture is the composed tree, which only the
// snapshot writes; tracker.js observes every open root for changes); an element
// checkVisibility gives no box although neither it nor an ancestor is
// display:none (content-visibility:hidden, a closed <details>, fallback
// content of replaced elements: the snapshot may give it a layout box);
// whitespace-only text in a display:contents element; a Refresh
// (a wait's deadline fell due: the read the engine trusts whatever the
// observer said); the tracker overflowing (more than 200,000 changed nodes
// between two captures); and whenever the tracker and the tree disagree
// (an unknown node, a node under another parent than the tree says, the
// DOM changing inside an inserted subtree while its ids were read).
//
// A shadow root attached to an element already in the page (a custom
// element upgraded when it is defined) makes no DOM mutation: the page
// world's attachShadow hook (live.go shadowHookScript) announces it, open
// or closed, and the next capture is a full one. The layout size written on img and
// video elements whose media state could not be read is that of the last
// full capture.

// checkSplice makes every incremental capture compare its spliced HTML
// (tree.html) with a write of every node (tree.writeAll) and fall back to
// a full capture, with that reason, when they differ (the property test
// turns it on and fails on such a fallback).
var checkSplice atomic.Bool

// trackerScript is the change observer and the tracker (tracker.js).
const trackerExpr = "globalThis.__replaylabTracker"

// live is the kept capture of a tracked page.
type live struct {
	tree  *tree
	world string // unique id of the isolated world the tracker runs in
	last  *capture.Capture
	own   bool // the tracker wrote the full capture (own.go): its ids are the node ids
}

// Stats counts the captures of a page by kind (tests and benchmarks).
type Stats struct {
	Full, Incremental, Reused int
	// Own counts the full captures the tracker wrote itself (own.go), of
	// Full; Declined counts, by reason, those it declined (a
	// captureSnapshot capture was taken instead).
	Own      int
	Declined map[string]int
	// Fallbacks counts incremental captures that fell back to a full one,
	// by reason.
	Fallbacks map[string]int
	// Passes counts the incremental captures' state passes by scope:
	// "scoped" checked only where the DOM changed; the others checked the
	// whole document, and say why.
	Passes map[string]int
	// TrackerMS is the time the page's tracker spent in its incremental
	// captures, in total.
	TrackerMS float64
}

// CaptureStats returns the page's capture counts so far.
func (p *Page) CaptureStats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Fallbacks = maps.Clone(p.stats.Fallbacks)
	s.Passes = maps.Clone(p.stats.Passes)
	s.Declined = maps.Clone(p.stats.Declined)
	return s
}

func (p *Page) count(f func(s *Stats)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stats.Fallbacks == nil {
		p.stats.Fallbacks, p.stats.Passes, p.stats.Declined = map[string]int{}, map[string]int{}, map[string]int{}
	}
	f(&p.stats)
}

// evalWorld evaluates expr in the tracker's world and returns its string
// result.
func evalWorld(ctx context.Context, t *chromedp.Target, world, expr string) (string, error) {
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, UniqueContextID: world, ReturnByValue: new(true), Silent: new(true)})
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", fmt.Errorf("%w: %s: %s", errDrift, expr, res.ExceptionDetails.Text)
	}
	if res.Result == nil {
		return "", fmt.Errorf("%w: %s: no result", errDrift, expr)
	}
	s, err := unquoteJSON(res.Result.Value)
	if err != nil {
		return string(res.Result.Value), nil
	}
	return s, nil
}

// fullCapture takes a full capture and (re)starts the tracker on it: the
// tracker's own (own.go) where it does not decline, else one
// DOMSnapshot.captureSnapshot.
func (p *Page) fullCapture(ctx context.Context, t *chromedp.Target) (*capture.Capture, error) {
	p.live = nil
	world := p.world()
	if world != "" && !snapshotOnly.Load() {
		c, tr, err := p.ownCapture(ctx, t, world)
		if err == nil {
			p.count(func(s *Stats) { s.Full++; s.Own++ })
			p.live = &live{tree: tr, world: world, last: c, own: true}
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		reason := strings.TrimPrefix(err.Error(), errDecline.Error()+": ")
		p.count(func(s *Stats) { s.Declined[reason]++ })
	}
	var begun struct {
		N    int32  `json:"n"`
		Base int32  `json:"base"`
		Hash uint32 `json:"hash"`
	}
	ok := false
	if world != "" {
		if s, err := evalWorld(ctx, t, world, trackerExpr+".begin("+strconv.FormatInt(int64(p.nextID), 10)+")"); err == nil && json.Unmarshal([]byte(s), &begun) == nil && begun.Base > 0 {
			ok = true
		}
	}
	c, tr, err := snapshot(ctx, t)
	if err != nil {
		return nil, err
	}
	p.count(func(s *Stats) { s.Full++ })
	if ok {
		p.nextID = max(p.nextID, begun.N)
		if tr != nil {
			tr.number(begun.Base)
		}
	}
	if ok && tr != nil && !tr.shadowed && len(c.Frames) == 1 && tr.next == begun.N && tr.shape == begun.Hash {
		keys, err := json.Marshal(tr.keys())
		if err == nil {
			if s, err := evalWorld(ctx, t, world, trackerExpr+".commit("+string(keys)+")"); err == nil && s == "true" {
				p.live = &live{tree: tr, world: world, last: c}
				return c, nil
			}
		}
	}
	if ok {
		_, _ = evalWorld(ctx, t, world, trackerExpr+".stop()")
	}
	return c, nil
}

// delta is the tracker's answer (tracker.js delta).
type delta struct {
	Full  string              `json:"full"`
	URL   string              `json:"url"`
	Title string              `json:"title"`
	Kids  [][]json.RawMessage `json:"kids"`
	Texts [][]json.RawMessage `json:"texts"`
	Attrs [][]json.RawMessage `json:"attrs"`
	State [][]json.RawMessage `json:"state"`
	Roots int                 `json:"roots"`
	Next  int32               `json:"next"` // the tracker's next id
	Pass  string              `json:"pass"` // how the state pass chose its scope
	MS    float64             `json:"ms"`   // time the tracker took
}

// incrementalCapture brings the kept tree up to date from the tracker. An
// error wrapping errDrift means: take a full capture.
func (p *Page) incrementalCapture(ctx context.Context, t *chromedp.Target) (*capture.Capture, error) {
	lv := p.live
	if lv.world != p.world() {
		return nil, fmt.Errorf("%w: navigated", errDrift)
	}
	s, rootObjs, group, err := p.evalDelta(ctx, t, lv.world)
	if group != "" {
		// the inserted subtrees' handles, once their ids are read: released
		// without waiting (a group of this capture's own name)
		defer func() {
			go func() {
				_, _ = cdp.Call(p.ctx, t, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
			}()
		}()
	}
	if err != nil {
		return nil, err
	}
	var d delta
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return nil, fmt.Errorf("%w: %v", errDrift, err)
	}
	if d.Full != "" {
		return nil, fmt.Errorf("%w: %s", errDrift, d.Full)
	}
	tr := lv.tree
	p.nextID = max(p.nextID, d.Next)
	// decode the inserted subtrees first: their elements need backend ids
	type kidList struct {
		parent *lnode
		items  []any // int32 (a kept node) or *lnode (inserted)
	}
	var lists []kidList
	var roots []*lnode
	for _, k := range d.Kids {
		if len(k) != 2 {
			return nil, fmt.Errorf("%w: bad child list", errDrift)
		}
		var pid int32
		var items []json.RawMessage
		if json.Unmarshal(k[0], &pid) != nil || json.Unmarshal(k[1], &items) != nil {
			return nil, fmt.Errorf("%w: bad child list", errDrift)
		}
		par := tr.byID[pid]
		if par == nil || (par.kind != 1 && par.kind != 9) {
			return nil, fmt.Errorf("%w: unknown parent %d", errDrift, pid)
		}
		kl := kidList{parent: par}
		for _, it := range items {
			if len(it) > 0 && it[0] != '[' {
				var id int32
				if json.Unmarshal(it, &id) != nil {
					return nil, fmt.Errorf("%w: bad child", errDrift)
				}
				kl.items = append(kl.items, id)
				continue
			}
			n, err := decodeNode(it, par)
			if err != nil {
				return nil, err
			}
			if n.kind == 1 {
				roots = append(roots, n)
			}
			kl.items = append(kl.items, n)
		}
		lists = append(lists, kl)
	}
	if len(roots) != d.Roots {
		return nil, fmt.Errorf("%w: %d inserted subtrees, tracker says %d", errDrift, len(roots), d.Roots)
	}
	if lv.own {
		// the tracker's ids are the node ids: nothing to read
		for _, r := range roots {
			r.renderAll()
		}
	} else if len(roots) > 0 {
		if len(rootObjs) != len(roots) {
			return nil, fmt.Errorf("%w: %d of %d inserted subtrees", errDrift, len(rootObjs), len(roots))
		}
		if err := readBackends(ctx, t, lv.world, roots, rootObjs); err != nil {
			return nil, err
		}
	}
	// apply: child lists (every removal before any insertion, so a node
	// moved between two lists keeps its id), texts, attributes, states
	for _, kl := range lists {
		old := kl.parent.kids
		kept := map[*lnode]bool{}
		kids := make([]*lnode, 0, len(kl.items))
		for _, it := range kl.items {
			switch v := it.(type) {
			case int32:
				c := tr.byID[v]
				if c == nil || c.parent != kl.parent {
					return nil, fmt.Errorf("%w: node %d is not a child of %d", errDrift, v, kl.parent.id)
				}
				kept[c] = true
				kids = append(kids, c)
			case *lnode:
				kids = append(kids, v)
			}
		}
		for _, c := range old {
			if !kept[c] {
				tr.forget(c)
				c.parent = nil
			}
		}
		kl.parent.kids = kids
		tr.touch(kl.parent)
	}
	for _, kl := range lists {
		for _, it := range kl.items {
			if n, ok := it.(*lnode); ok {
				if err := tr.adopt(n); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, x := range d.Texts {
		var id int32
		var text string
		if len(x) != 2 || json.Unmarshal(x[0], &id) != nil || json.Unmarshal(x[1], &text) != nil {
			return nil, fmt.Errorf("%w: bad text", errDrift)
		}
		n := tr.byID[id]
		if n == nil || n.kind != 3 {
			return nil, fmt.Errorf("%w: text %d unknown", errDrift, id)
		}
		n.setText(text)
		tr.touch(n)
	}
	dirty := map[*lnode]bool{}
	for _, x := range d.Attrs {
		var id int32
		var attrs []string
		if len(x) != 2 || json.Unmarshal(x[0], &id) != nil || json.Unmarshal(x[1], &attrs) != nil {
			return nil, fmt.Errorf("%w: bad attributes", errDrift)
		}
		n := tr.byID[id]
		if n == nil || n.kind != 1 {
			return nil, fmt.Errorf("%w: element %d unknown", errDrift, id)
		}
		n.attrs = attrs
		dirty[n] = true
	}
	for _, x := range d.State {
		var id int32
		if len(x) != 6 || json.Unmarshal(x[0], &id) != nil {
			return nil, fmt.Errorf("%w: bad state", errDrift)
		}
		n := tr.byID[id]
		if n == nil || n.kind != 1 {
			return nil, fmt.Errorf("%w: element %d unknown", errDrift, id)
		}
		if err := decodeState(&n.st, x[1:]); err != nil {
			return nil, err
		}
		dirty[n] = true
	}
	for n := range dirty {
		n.render()
		tr.touch(n)
	}
	p.count(func(s *Stats) { s.Incremental++; s.Passes[d.Pass]++; s.TrackerMS += d.MS })
	if len(lists) == 0 && len(d.Texts) == 0 && len(dirty) == 0 && lv.last != nil && lv.last.URL == d.URL && lv.last.Title == d.Title {
		p.count(func(s *Stats) { s.Reused++ })
		return lv.last, nil
	}
	out := tr.html()
	if checkSplice.Load() && out != tr.writeAll() {
		return nil, fmt.Errorf("%w: the spliced HTML differs from a write of every node", errDrift)
	}
	c := &capture.Capture{Version: capture.FormatVersion, URL: d.URL, Title: d.Title,
		Frames: []capture.Frame{{ID: capture.MainFrame, URL: d.URL, HTML: out}}}
	lv.last = c
	return c, nil
}

// adopt numbers an inserted subtree into the tree.
func (t *tree) adopt(n *lnode) error {
	if _, dup := t.byID[n.id]; dup {
		return fmt.Errorf("%w: node %d inserted twice", errDrift, n.id)
	}
	t.byID[n.id] = n
	for _, c := range n.kids {
		if err := t.adopt(c); err != nil {
			return err
		}
	}
	return nil
}

// decodeNode decodes a node the tracker serialised (tracker.js ser).
func decodeNode(raw json.RawMessage, parent *lnode) (*lnode, error) {
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil || len(a) < 2 {
		return nil, fmt.Errorf("%w: bad node", errDrift)
	}
	var kind uint8
	var id int32
	if json.Unmarshal(a[0], &kind) != nil || json.Unmarshal(a[1], &id) != nil {
		return nil, fmt.Errorf("%w: bad node", errDrift)
	}
	n := &lnode{id: id, kind: kind, parent: parent}
	switch kind {
	case 3:
		var text string
		if len(a) != 3 || json.Unmarshal(a[2], &text) != nil {
			return nil, fmt.Errorf("%w: bad text node", errDrift)
		}
		n.setText(text)
	case 10:
		n.render()
	case 1:
		// [1, id, tag, attrs, kids] in the default state, else [1, id,
		// tag, attrs, hidden, value, checked, selected, media, kids]
		if (len(a) != 5 && len(a) != 10) || json.Unmarshal(a[2], &n.tag) != nil || json.Unmarshal(a[3], &n.attrs) != nil {
			return nil, fmt.Errorf("%w: bad element", errDrift)
		}
		if len(a) == 10 {
			if err := decodeState(&n.st, a[4:9]); err != nil {
				return nil, err
			}
		}
		var kids []json.RawMessage
		if json.Unmarshal(a[len(a)-1], &kids) != nil {
			return nil, fmt.Errorf("%w: bad element", errDrift)
		}
		for _, k := range kids {
			c, err := decodeNode(k, n)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, c)
		}
	default:
		return nil, fmt.Errorf("%w: node kind %d", errDrift, kind)
	}
	return n, nil
}

// decodeState reads [hidden, value|null, checked, selected, media|null].
func decodeState(s *lstate, a []json.RawMessage) error {
	if len(a) != 5 {
		return fmt.Errorf("%w: bad state", errDrift)
	}
	var value *string
	var media []any
	var st lstate
	if json.Unmarshal(a[0], &st.hidden) != nil || json.Unmarshal(a[1], &value) != nil || json.Unmarshal(a[2], &st.checked) != nil ||
		json.Unmarshal(a[3], &st.selected) != nil || json.Unmarshal(a[4], &media) != nil {
		return fmt.Errorf("%w: bad state", errDrift)
	}
	if value != nil {
		st.hasValue, st.value = true, *value
	}
	if media != nil {
		if len(media) != 4 {
			return fmt.Errorf("%w: bad media state", errDrift)
		}
		ready, _ := media[0].(string)
		src, _ := media[1].(string)
		w, _ := media[2].(float64)
		h, _ := media[3].(float64)
		st.media = &mediaState{ready: ready, src: src, w: int(w), h: int(h)}
	} else {
		st.hasCurSrc, st.curSrc, st.layoutSize = s.hasCurSrc, s.curSrc, s.layoutSize
	}
	st.frame = s.frame
	*s = st
	return nil
}

// evalDelta runs the tracker's delta and returns its answer and, when it
// serialised inserted subtrees, handles of their roots in the object group
// it names (to release).
func (p *Page) evalDelta(ctx context.Context, t *chromedp.Target, world string) (string, []runtime.RemoteObjectID, string, error) {
	group := "replaylab-roots-" + strconv.FormatUint(p.groups.Add(1), 10)
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: trackerExpr + ".deltaRoots()", UniqueContextID: world, ObjectGroup: group, Silent: new(true)})
	if err != nil {
		return "", nil, "", err
	}
	if res.ExceptionDetails != nil {
		return "", nil, "", fmt.Errorf("%w: delta: %s", errDrift, res.ExceptionDetails.Text)
	}
	if res.Result == nil {
		return "", nil, "", fmt.Errorf("%w: delta: no result", errDrift)
	}
	var s string
	if res.Result.Type == runtime.RemoteObjectTypeString {
		if err := json.Unmarshal(res.Result.Value, &s); err != nil {
			return "", nil, "", fmt.Errorf("%w: delta: %v", errDrift, err)
		}
		return s, nil, "", nil
	}
	if res.Result.ObjectID == "" {
		return "", nil, "", fmt.Errorf("%w: delta: %s", errDrift, res.Result.Type)
	}
	props, err := cdp.Call(ctx, t, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: new(true)})
	if err != nil {
		return "", nil, group, err
	}
	var objs []runtime.RemoteObjectID
	found := 0
	for _, pd := range props.Result {
		i, err := strconv.Atoi(pd.Name)
		if err != nil || i < 0 || pd.Value == nil {
			continue
		}
		if i == 0 {
			if json.Unmarshal(pd.Value.Value, &s) != nil {
				return "", nil, group, fmt.Errorf("%w: delta: no answer", errDrift)
			}
			continue
		}
		for len(objs) < i {
			objs = append(objs, "")
		}
		if pd.Value.ObjectID != "" {
			objs[i-1] = pd.Value.ObjectID
			found++
		}
	}
	if found != len(objs) || s == "" {
		return "", nil, group, fmt.Errorf("%w: %d of %d inserted subtrees", errDrift, found, len(objs))
	}
	return s, objs, group, nil
}

// readBackends reads the backend node ids of the inserted subtrees: one
// DOM.describeNode per subtree (objs: handles of their roots), its
// elements matched to the tracker's in preorder by tag; then the tracker
// verifies that no child list inside them changed meanwhile.
func readBackends(ctx context.Context, t *chromedp.Target, world string, roots []*lnode, objs []runtime.RemoteObjectID) error {
	for i, root := range roots {
		d, err := cdp.Call(ctx, t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: objs[i], Depth: new(int64(-1)), Pierce: new(true)})
		if err != nil {
			return err
		}
		var els []*lnode
		var collect func(n *lnode)
		collect = func(n *lnode) {
			if n.kind == 1 {
				els = append(els, n)
			}
			for _, c := range n.kids {
				collect(c)
			}
		}
		collect(root)
		k := 0
		var match func(n *cdp.Node) error
		match = func(n *cdp.Node) error {
			if n.NodeType != 1 {
				return nil
			}
			if n.ContentDocument != nil {
				return fmt.Errorf("%w: frames", errDrift)
			}
			for _, sr := range n.ShadowRoots {
				if sr.ShadowRootType != cdp.ShadowRootTypeUserAgent { // inputs, media: not in a capture
					return fmt.Errorf("%w: shadow", errDrift)
				}
			}
			tag := strings.ToLower(n.NodeName)
			if k >= len(els) || els[k].tag != tag {
				return fmt.Errorf("%w: inserted subtree changed", errDrift)
			}
			els[k].backend = int64(n.BackendNodeID)
			k++
			if noKids(tag) {
				return nil
			}
			for _, c := range n.Children {
				if err := match(c); err != nil {
					return err
				}
			}
			return nil
		}
		if err := match(d.Node); err != nil {
			return err
		}
		if k != len(els) {
			return fmt.Errorf("%w: inserted subtree changed", errDrift)
		}
		for _, e := range els {
			e.render()
		}
	}
	s, err := evalWorld(ctx, t, world, trackerExpr+".verify()")
	if err != nil {
		return err
	}
	if s != "true" {
		return fmt.Errorf("%w: changed while read", errDrift)
	}
	return nil
}
