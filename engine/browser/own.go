package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/engine/capture"
)

// The tracker's own capture. On a document the tracker can write in full
// (no frames, no shadow DOM, no defined custom element, none of the
// layout cases only DOMSnapshot.captureSnapshot can tell: tracker.js
// capture), a full capture is the tracker's serialisation of the document
// and its ids are the capture's node ids (trackedPrefix and the number):
// no captureSnapshot, no layout pass beyond the style checkVisibility
// needs, no backend node id read. An action resolves such an id to the
// element when it needs it (resolve). The incremental captures that
// follow need no DOM.describeNode of inserted subtrees either.
//
// Elsewhere a full capture is a captureSnapshot capture whose node ids are
// backend node ids, as before; the tracker follows it in the snapshot mode
// (begin, commit). Ids of the two kinds never collide (the prefix), and
// the tracker never gives an id twice within a page (ids start after the
// last one the page's earlier documents gave), so an id from an earlier
// document, or from before the page switched kinds, names no node.

// snapshotOnly turns the tracker's own capture off: every full capture is
// a captureSnapshot one (tests and benchmarks compare the two).
var snapshotOnly atomic.Bool

// errDecline says the tracker's full capture cannot be exact for this
// page: the driver takes a captureSnapshot capture.
var errDecline = errors.New("browser: the tracker's full capture declined")

// ownCapture takes the tracker's own capture, starting the tracker in own
// mode on it. An error wrapping errDecline names why the tracker declined.
func (p *Page) ownCapture(ctx context.Context, t *chromedp.Target, world string) (*capture.Capture, *tree, error) {
	s, err := evalWorld(ctx, t, world, trackerExpr+".capture("+strconv.FormatInt(int64(p.nextID), 10)+")")
	if err != nil {
		return nil, nil, err
	}
	if strings.HasPrefix(s, "{") {
		var r struct {
			Full string `json:"full"`
		}
		_ = json.Unmarshal([]byte(s), &r)
		return nil, nil, fmt.Errorf("%w: %s", errDecline, r.Full)
	}
	f, err := decodeFull(s)
	if err != nil {
		return nil, nil, err
	}
	tr := f.tree
	tr.own = true
	if err := tr.index(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errDecline, err)
	}
	tr.next = f.n
	p.nextID = max(p.nextID, f.n)
	c := &capture.Capture{Version: capture.FormatVersion, URL: f.url, Title: f.title,
		Frames: []capture.Frame{{ID: capture.MainFrame, URL: f.url, HTML: tr.html()}}}
	return c, tr, nil
}

// nodeRef is a node id an action addresses: a backend node id, or the
// number of an element the tracker numbered (own mode).
type nodeRef struct {
	backend cdp.BackendNodeID
	tracked int32
}

// parseNode reads a capture's node id.
func parseNode(node string) (nodeRef, error) {
	num, own := strings.CutPrefix(node, trackedPrefix)
	id, err := strconv.ParseInt(num, 10, 32)
	if err != nil || id <= 0 || num != strconv.FormatInt(id, 10) {
		return nodeRef{}, fmt.Errorf("browser: %q is not a node id of a browser capture", node)
	}
	if own {
		return nodeRef{tracked: int32(id)}, nil
	}
	return nodeRef{backend: cdp.BackendNodeID(id)}, nil
}

// resolved is a node an action addresses, as the DOM commands take it:
// a backend node id or a handle of the element.
type resolved struct {
	backend cdp.BackendNodeID
	obj     runtime.RemoteObjectID
}

// resolve finds the node an action addresses. A tracked id is asked of
// the tracker of the page's current document (one evaluation, a handle in
// an object group release drops); an id no node of it has any more is an
// error, as a backend node id of a node that is gone is.
func (p *Page) resolve(ctx context.Context, t *chromedp.Target, node string, r nodeRef) (resolved, func(), error) {
	if r.tracked == 0 {
		return resolved{backend: r.backend}, func() {}, nil
	}
	group := "replaylab-act-" + strconv.FormatUint(p.groups.Add(1), 10)
	release := func() { // without waiting, as the incremental capture's
		go func() {
			_, _ = cdp.Call(p.ctx, t, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
		}()
	}
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: trackerExpr + ".node(" + strconv.FormatInt(int64(r.tracked), 10) + ")",
		UniqueContextID: p.world(), ObjectGroup: group, Silent: new(true)})
	if err != nil {
		return resolved{}, func() {}, fmt.Errorf("browser: node %s: %w", node, err)
	}
	if res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
		release()
		return resolved{}, func() {}, fmt.Errorf("browser: node %s is not in the page", node)
	}
	return resolved{obj: res.Result.ObjectID}, release, nil
}

// fullDoc is the tracker's full serialisation, decoded.
type fullDoc struct {
	url, title string
	n          int32
	tree       *tree
}

// decodeFull reads tracker.js full's (and capture's) answer: [url,
// title, n, kids] with every node as ser writes it in a whole-document
// serialisation (decodeNode's format, with ids and strings written as
// tracker.js whole says). It is a reader of exactly what JSON.stringify
// writes for it, much faster than encoding/json on a 2 MB answer;
// anything else is an error.
func decodeFull(s string) (fullDoc, error) {
	r := &jsonReader{s: s, whole: true}
	var f fullDoc
	r.open()
	f.url = r.str()
	f.title = r.str()
	f.n = int32(r.num())
	t := &tree{root: &lnode{kind: 9}}
	r.open()
	for !r.close() {
		n := r.node(t.root)
		t.root.kids = append(t.root.kids, n)
	}
	if !r.close() {
		r.fail()
	}
	if r.err != nil {
		return fullDoc{}, r.err
	}
	t.nodes = r.nodes
	f.tree = t
	return f, nil
}

// jsonReader reads the JSON that JSON.stringify writes for the tracker's
// arrays (no whitespace). The first error sticks.
type jsonReader struct {
	s   string
	i   int
	err error
	// whole: a whole-document serialisation (tracker.js whole), whose
	// strings in tag, attribute and text positions are numbered in tab,
	// and whose ids are differences, prev the last id read
	whole bool
	tab   []string
	prev  int32
	nodes int // how many nodes node has read
}

// sref reads a string in an interned position: the string, numbered next,
// or the number of one read before.
func (r *jsonReader) sref() string {
	if !r.whole || r.i < len(r.s) && r.s[r.i] == '"' {
		v := r.str()
		if r.whole && r.err == nil {
			r.tab = append(r.tab, v)
		}
		return v
	}
	k := r.num()
	if r.err != nil || k < 0 || k >= int64(len(r.tab)) {
		r.fail()
		return ""
	}
	return r.tab[k]
}

// id reads a node's id.
func (r *jsonReader) id() int32 {
	v := r.num()
	if !r.whole {
		return int32(v)
	}
	id := r.prev + 1 + int32(v)
	r.prev = id
	return id
}

func (r *jsonReader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("%w: bad full serialisation at byte %d", errDecline, r.i)
	}
	r.i = len(r.s)
}

func (r *jsonReader) comma() {
	if r.i < len(r.s) && r.s[r.i] == ',' {
		r.i++
	}
}

func (r *jsonReader) open() {
	if r.i < len(r.s) && r.s[r.i] == '[' {
		r.i++
		return
	}
	r.fail()
}

// state reads an element's live state: hidden, value|null, checked,
// selected, media|null.
func (r *jsonReader) state(s *lstate) {
	s.hidden = r.str()
	if !r.null() {
		s.hasValue, s.value = true, r.str()
	}
	s.checked = r.boolean()
	s.selected = r.boolean()
	if !r.null() {
		r.open()
		m := &mediaState{}
		m.ready = r.str()
		m.src = r.str()
		m.w = int(r.num())
		m.h = int(r.num())
		if !r.close() {
			r.fail()
		}
		s.media = m
	}
}

// close reads a closing bracket (and the comma after it) if one is next.
func (r *jsonReader) close() bool {
	if r.err != nil {
		return true
	}
	if r.i < len(r.s) && r.s[r.i] == ']' {
		r.i++
		r.comma()
		return true
	}
	return false
}

func (r *jsonReader) null() bool {
	if strings.HasPrefix(r.s[r.i:], "null") {
		r.i += 4
		r.comma()
		return true
	}
	return false
}

func (r *jsonReader) boolean() bool {
	switch {
	case strings.HasPrefix(r.s[r.i:], "true"):
		r.i += 4
		r.comma()
		return true
	case strings.HasPrefix(r.s[r.i:], "false"):
		r.i += 5
		r.comma()
		return false
	}
	r.fail()
	return false
}

func (r *jsonReader) num() int64 {
	j := r.i
	for j < len(r.s) && (r.s[j] == '-' || r.s[j] >= '0' && r.s[j] <= '9') {
		j++
	}
	// a JSON number the tracker writes for a size may have a fraction
	k := j
	for k < len(r.s) && (r.s[k] == '.' || r.s[k] == 'e' || r.s[k] == 'E' || r.s[k] == '+' || r.s[k] == '-' || r.s[k] >= '0' && r.s[k] <= '9') {
		k++
	}
	if k != j {
		v, err := strconv.ParseFloat(r.s[r.i:k], 64)
		if err != nil {
			r.fail()
			return 0
		}
		r.i = k
		r.comma()
		return int64(v)
	}
	v, err := strconv.ParseInt(r.s[r.i:j], 10, 64)
	if err != nil {
		r.fail()
		return 0
	}
	r.i = j
	r.comma()
	return v
}

func (r *jsonReader) str() string {
	if r.i >= len(r.s) || r.s[r.i] != '"' {
		r.fail()
		return ""
	}
	j := r.i + 1
	esc := false
	for j < len(r.s) && r.s[j] != '"' {
		if r.s[j] == '\\' {
			esc = true
			j++
		}
		j++
	}
	if j >= len(r.s) {
		r.fail()
		return ""
	}
	var v string
	if !esc {
		v = r.s[r.i+1 : j]
		if !utf8.ValidString(v) {
			r.fail()
			return ""
		}
	} else if err := json.Unmarshal([]byte(r.s[r.i:j+1]), &v); err != nil {
		r.fail()
		return ""
	}
	r.i = j + 1
	r.comma()
	return v
}

// node reads one node as tracker.js ser writes it: [3, id, text],
// [10, id], [1, id, tag, attrs, kids] (the default state) or [1, id,
// tag, attrs, hidden, value|null, checked, selected, media|null, kids].
// Elements are not rendered: their backend ids come later (matchIDs).
func (r *jsonReader) node(parent *lnode) *lnode {
	r.open()
	r.nodes++
	kind := r.num()
	id := r.id()
	n := &lnode{id: id, kind: uint8(kind), parent: parent}
	switch kind {
	case 3:
		n.setText(r.sref())
	case 10:
		n.render()
	case 1:
		n.tag = r.sref()
		r.open()
		for !r.close() {
			n.attrs = append(n.attrs, r.sref())
		}
		if r.i < len(r.s) && r.s[r.i] != '[' { // else the default state, the kids next
			r.state(&n.st)
		}
		r.open()
		for !r.close() {
			n.kids = append(n.kids, r.node(n))
		}
	default:
		r.fail()
	}
	if !r.close() {
		r.fail()
	}
	return n
}
