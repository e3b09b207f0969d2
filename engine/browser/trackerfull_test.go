package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/engine/capture"
)

// The tracker's full capture, a test oracle for the tracker's
// serialisation. The incremental capture writes inserted subtrees from the
// tracker's serialisation (tracker.js ser, stateOf); serialising a whole
// document with it (tracker.js full) and reading the backend node ids of
// its elements with one DOM.describeNode of the document (depth -1, no
// piercing; elements matched to the tracker's in preorder by tag, as
// readBackends does for inserted subtrees) must write exactly the capture
// DOMSnapshot.captureSnapshot writes, on any page the tracker does not
// decline. TestCheapFullCaptureMatchesSnapshot checks that on real pages,
// TestIncrementalCaptureMatchesFull after every random edit.
//
// It is not the driver's full capture: on a 2,000-turn chat page it costs
// 1.5x a captureSnapshot capture (BenchmarkFirstCapture), because reading
// every element's backend node id costs Chromium as much as the snapshot
// (DOM.describeNode of the document: 9 MB, ~0.5 s; the snapshot: 6 MB,
// ~0.6 s) and the serialisation adds ~0.2 s of JavaScript.
//
// It declines (errDecline, with the reason) when the page has:
//   - frames (iframe, frame, object, embed, fencedframe, portal);
//   - shadow DOM (a shadow root that is not a user agent's, open or closed,
//     as DOM.describeNode reports it);
//   - whitespace-only text in a display:contents element with no other box,
//     or an element checkVisibility gives no box although neither it nor an
//     ancestor is display:none (content-visibility:hidden, a closed
//     <details>, fallback content of replaced elements): the incremental
//     capture takes a full capture for these too;
//   - a video, audio or img element outside the HTML namespace;
//   - a child list that changed between the serialisation and the id read,
//     or any disagreement between the tracker's elements and
//     DOM.describeNode's (count, tag).

// errDecline says the tracker's full capture cannot be exact for this
// page: the driver takes a captureSnapshot capture.
var errDecline = errors.New("browser: the tracker's full capture declined")

// idNode is the part of a DOM.describeNode node the id read needs.
type idNode struct {
	NodeType      int64    `json:"nodeType"`
	NodeName      string   `json:"nodeName"`
	BackendNodeID int64    `json:"backendNodeId"`
	Children      []idNode `json:"children"`
	ShadowRoots   []struct {
		ShadowRootType string `json:"shadowRootType"`
	} `json:"shadowRoots"`
	ContentDocument *struct{} `json:"contentDocument"`
}

var describeIDs = cdp.Command[dom.DescribeNodeParams, struct {
	Node idNode `json:"node"`
}]{Method: dom.CommandDescribeNode}

// cheapCapture takes the tracker's full capture, changing nothing the
// tracker keeps. An error wrapping errDecline names why it declined.
func (p *Page) cheapCapture(ctx context.Context, t *chromedp.Target, world string) (*capture.Capture, *tree, error) {
	const group = "replaylab-doc"
	defer func() {
		_, _ = cdp.Call(ctx, t, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	}()
	doc, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: trackerExpr + ".mark()", UniqueContextID: world, ObjectGroup: group, Silent: new(true)})
	if err != nil {
		return nil, nil, err
	}
	if doc.ExceptionDetails != nil || doc.Result == nil || doc.Result.ObjectID == "" {
		return nil, nil, fmt.Errorf("%w: no tracker", errDecline)
	}
	// Chromium describes the document while the tracker serialises it
	// (the reply of the one crosses to this process while the other runs);
	// settled then proves that no child list changed in between
	type described struct {
		node idNode
		err  error
	}
	dc := make(chan described, 1)
	go func() {
		d, err := cdp.Call(ctx, t, describeIDs, dom.DescribeNodeParams{ObjectID: doc.Result.ObjectID, Depth: new(int64(-1))})
		dc <- described{d.Node, err}
	}()
	s, err := evalWorld(ctx, t, world, trackerExpr+".full()")
	var f fullDoc
	if err == nil && !strings.HasPrefix(s, "{") {
		f, err = decodeFull(s)
	}
	d := <-dc
	if err != nil {
		if errors.Is(err, errDrift) {
			return nil, nil, fmt.Errorf("%w: %v", errDecline, err)
		}
		return nil, nil, err
	}
	if strings.HasPrefix(s, "{") {
		var r struct {
			Full string `json:"full"`
		}
		_ = json.Unmarshal([]byte(s), &r)
		return nil, nil, fmt.Errorf("%w: %s", errDecline, r.Full)
	}
	if d.err != nil {
		return nil, nil, d.err
	}
	ok, err := evalWorld(ctx, t, world, trackerExpr+".settled()")
	if err != nil {
		return nil, nil, err
	}
	if ok != "true" {
		return nil, nil, fmt.Errorf("%w: changed while read", errDecline)
	}
	tr := f.tree
	if err := matchIDs(tr.root, &d.node); err != nil {
		return nil, nil, err
	}
	tr.number()
	if tr.next != f.n {
		return nil, nil, fmt.Errorf("%w: %d nodes, tracker says %d", errDecline, tr.next, f.n)
	}
	c := &capture.Capture{Version: capture.FormatVersion, URL: f.url, Title: f.title,
		Frames: []capture.Frame{{ID: capture.MainFrame, URL: f.url, HTML: tr.html()}}}
	return c, tr, nil
}

// matchIDs gives the tree's elements the backend node ids of the described
// document's elements, matched in preorder by tag, and renders them.
func matchIDs(root *lnode, doc *idNode) error {
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
	var match func(n *idNode) error
	match = func(n *idNode) error {
		if n.NodeType != 1 {
			return nil
		}
		if n.ContentDocument != nil {
			return fmt.Errorf("%w: frames", errDecline)
		}
		for _, sr := range n.ShadowRoots {
			if sr.ShadowRootType != string(cdp.ShadowRootTypeUserAgent) {
				return fmt.Errorf("%w: shadow", errDecline)
			}
		}
		tag := strings.ToLower(n.NodeName)
		if k >= len(els) || els[k].tag != tag {
			return fmt.Errorf("%w: element %d is not a %s", errDecline, k, tag)
		}
		els[k].backend = n.BackendNodeID
		k++
		if noKids(tag) {
			return nil
		}
		for i := range n.Children {
			if err := match(&n.Children[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if doc.NodeType != 9 {
		return fmt.Errorf("%w: not a document", errDecline)
	}
	for i := range doc.Children {
		if err := match(&doc.Children[i]); err != nil {
			return err
		}
	}
	if k != len(els) {
		return fmt.Errorf("%w: %d elements described, %d serialised", errDecline, k, len(els))
	}
	for _, e := range els {
		e.render()
	}
	return nil
}

// fullDoc is the tracker's full serialisation, decoded.
type fullDoc struct {
	url, title string
	n          int32
	tree       *tree
}

// decodeFull reads tracker.js full's answer: [url, title, n, kids]
// with every node as ser writes it (decodeNode's format). It is a reader
// of exactly what JSON.stringify writes for it, much faster than
// encoding/json on a 2 MB answer; anything else is an error.
func decodeFull(s string) (fullDoc, error) {
	r := &jsonReader{s: s}
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
	f.tree = t
	return f, nil
}

// jsonReader reads the JSON that JSON.stringify writes for the tracker's
// arrays (no whitespace). The first error sticks.
type jsonReader struct {
	s   string
	i   int
	err error
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
// [10, id] or [1, id, tag, attrs, hidden, value|null, checked, selected,
// media|null, kids]. Elements are not rendered: their backend ids come
// later (matchIDs).
func (r *jsonReader) node(parent *lnode) *lnode {
	r.open()
	kind := r.num()
	id := int32(r.num())
	n := &lnode{id: id, kind: uint8(kind), parent: parent}
	switch kind {
	case 3:
		n.setText(r.str())
	case 10:
		n.render()
	case 1:
		n.tag = r.str()
		r.open()
		for !r.close() {
			n.attrs = append(n.attrs, r.str())
		}
		s := &n.st
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
