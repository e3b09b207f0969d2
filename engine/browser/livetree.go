package browser

import (
	"errors"
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/replaylab/replaylab/engine/capture"
)

// A tree is one document of a capture as the browser driver keeps it: the
// nodes a capture frame serialises (elements, text, doctype), each with
// the live state written into it, so the frame's HTML can be written again
// after a change to some of them (the incremental capture, incremental.go)
// through the same code that wrote the full capture.
//
// Nodes are numbered by the page's tracker (tracker.js). A tree the
// tracker wrote itself (own) holds the tracker's ids, which are also the
// capture's node ids ("t" and the number). A tree from a captureSnapshot
// capture is numbered in the order of the capture (preorder from the
// tracker's base; the document is 0), which is also the order in which the
// tracker numbers them when it starts; later nodes get the tracker's next
// numbers; its node ids are backend node ids.
type tree struct {
	root  *lnode
	byID  map[int32]*lnode
	next  int32 // the number the next node would get
	shape uint32
	own   bool // the tracker's ids are the node ids
	// shadowed: the document had shadow DOM in its full capture; such a
	// page is always captured in full (the tracker cannot see closed
	// shadow roots).
	shadowed bool
	// last is the HTML html wrote last; every node written since keeps its
	// span in it (lnode.off, lnode.len), so the next write copies the
	// subtrees nothing changed in (touch marks what changed).
	last string
	// nodes is how many nodes a decoded serialisation held (decodeFull),
	// the size index makes byID for; 0 when unknown
	nodes int
}

type lnode struct {
	id      int32
	kind    uint8 // 1 element, 3 text, 9 document, 10 doctype
	tag     string
	attrs   []string // name, value, name, value, … as the DOM has them (the page's data-rl-* too)
	backend int64
	st      lstate
	// out is the serialised start tag of an element and the escaped text
	// of a text node.
	out    string
	kids   []*lnode
	parent *lnode
	// the node's span in the tree's last HTML: off is its start relative
	// to its parent's start, len its length; spanned says it was written.
	// dirty: its own output or its child list changed since; below: a
	// node under it is dirty.
	off, len              int
	spanned, dirty, below bool
}

// lstate is the live state a capture writes on an element.
type lstate struct {
	hidden   string // "", "display", "visibility"
	hasValue bool
	value    string
	checked  bool
	selected bool
	media    *mediaState
	// without a matching media state (full capture only): the current
	// source and the layout size the snapshot had
	hasCurSrc  bool
	curSrc     string
	layoutSize string
	frame      string // AttrFrame
	closed     bool   // AttrShadow="closed": the element hosts a closed shadow root
}

// key is the live state as the tracker compares it (tracker.js keyOf).
func (s *lstate) key() string {
	var b strings.Builder
	b.WriteString(s.hidden)
	b.WriteByte('|')
	if s.hasValue {
		b.WriteByte('v')
		b.WriteString(s.value)
	}
	b.WriteByte('|')
	if s.checked {
		b.WriteByte('1')
	}
	b.WriteByte('|')
	if s.selected {
		b.WriteByte('1')
	}
	b.WriteByte('|')
	if m := s.media; m != nil {
		b.WriteString(m.ready)
		b.WriteByte(2)
		b.WriteString(m.src)
		b.WriteByte(2)
		b.WriteString(m.size())
	}
	return b.String()
}

const defaultKey = "||||"

func (n *lnode) attr(key string) string {
	for k := 0; k+1 < len(n.attrs); k += 2 {
		if strings.EqualFold(n.attrs[k], key) {
			return n.attrs[k+1]
		}
	}
	return ""
}

// noKids are the elements whose children a capture does not serialise.
func noKids(tag string) bool {
	return voidElements[tag] || tag == "script" || tag == "style" || tag == "iframe"
}

// render writes the element's start tag (or the text) into n.out.
func (n *lnode) render() {
	switch n.kind {
	case 3:
		return // set when the text is set
	case 10:
		n.out = "<!DOCTYPE html>"
		return
	case 1:
	default:
		return
	}
	var b strings.Builder
	tag := n.tag
	b.WriteByte('<')
	b.WriteString(tag)
	for k := 0; k+1 < len(n.attrs); k += 2 {
		if strings.HasPrefix(n.attrs[k], "data-rl-") {
			continue // never trust the page's own copies of our attributes
		}
		writeAttr(&b, n.attrs[k], n.attrs[k+1])
	}
	if n.backend != 0 {
		writeAttr(&b, capture.AttrNode, strconv.FormatInt(n.backend, 10))
	} else {
		writeAttr(&b, capture.AttrNode, trackedID(n.id))
	}
	s := &n.st
	if s.hasValue {
		writeAttr(&b, capture.AttrValue, s.value)
	}
	if tag == "input" {
		if typ := strings.ToLower(n.attr("type")); typ == "checkbox" || typ == "radio" {
			writeAttr(&b, capture.AttrChecked, strconv.FormatBool(s.checked))
		}
	}
	if tag == "option" {
		writeAttr(&b, capture.AttrSelected, strconv.FormatBool(s.selected))
	}
	if m := s.media; m != nil {
		writeAttr(&b, capture.AttrMediaReady, m.ready)
		if m.src != "" {
			writeAttr(&b, capture.AttrMediaSrc, m.src)
		}
		writeAttr(&b, capture.AttrSize, m.size())
	} else {
		if s.hasCurSrc && (tag == "img" || tag == "video" || tag == "audio") {
			writeAttr(&b, capture.AttrMediaSrc, s.curSrc)
		}
		if s.layoutSize != "" && (tag == "img" || tag == "video") {
			writeAttr(&b, capture.AttrSize, s.layoutSize)
		}
	}
	if s.hidden != "" {
		writeAttr(&b, capture.AttrHidden, s.hidden)
	}
	if s.frame != "" {
		writeAttr(&b, capture.AttrFrame, s.frame)
	}
	if s.closed {
		writeAttr(&b, capture.AttrShadow, "closed")
	}
	b.WriteByte('>')
	n.out = b.String()
}

func (n *lnode) setText(s string) { n.out = html.EscapeString(s) }

// touch records that n's own output (start tag, text) or its child list
// changed: the next html writes n (and the nodes above it) again.
func (t *tree) touch(n *lnode) {
	n.dirty = true
	for a := n.parent; a != nil && !a.below; a = a.parent {
		a.below = true
	}
}

// html writes the document. A subtree in which nothing was touched since
// the last write is copied from the last HTML as a byte range, so after a
// small change the write costs what changed (and a copy), not a
// serialisation of every node; the result is what a write of every node
// (writeAll) gives.
func (t *tree) html() string {
	var b strings.Builder
	if t.last == "" {
		b.Grow(t.size(t.root))
	} else {
		b.Grow(len(t.last) + 4096)
	}
	t.splice(&b, t.root, 0)
	t.last = b.String()
	return t.last
}

// splice writes n, whose span in the last HTML starts at old.
func (t *tree) splice(b *strings.Builder, n *lnode, old int) {
	start := b.Len()
	if n.spanned && !n.dirty && !n.below {
		b.WriteString(t.last[old : old+n.len])
		return
	}
	switch n.kind {
	case 3, 10:
		b.WriteString(n.out)
	case 1, 9:
		if n.kind == 1 {
			b.WriteString(n.out)
		}
		if n.kind == 9 || !voidElements[n.tag] {
			for _, c := range n.kids {
				from := old + c.off // the child's old start (meaningful when it was written)
				c.off = b.Len() - start
				t.splice(b, c, from)
			}
			if n.kind == 1 {
				b.WriteString("</")
				b.WriteString(n.tag)
				b.WriteByte('>')
			}
		}
	}
	n.len = b.Len() - start
	n.spanned, n.dirty, n.below = true, false, false
}

// writeAll writes the document node by node, copying nothing (the tests
// compare html with it).
func (t *tree) writeAll() string {
	var b strings.Builder
	b.Grow(t.size(t.root))
	t.write(&b, t.root)
	return b.String()
}

func (t *tree) size(n *lnode) int {
	s := len(n.out)
	if n.kind == 1 {
		s += len(n.tag) + 3
	}
	for _, c := range n.kids {
		s += t.size(c)
	}
	return s
}

func (t *tree) write(b *strings.Builder, n *lnode) {
	switch n.kind {
	case 9:
		for _, c := range n.kids {
			t.write(b, c)
		}
	case 3, 10:
		b.WriteString(n.out)
	case 1:
		b.WriteString(n.out)
		if voidElements[n.tag] {
			return
		}
		for _, c := range n.kids {
			t.write(b, c)
		}
		b.WriteString("</")
		b.WriteString(n.tag)
		b.WriteByte('>')
	}
}

// trackedPrefix starts the node id of an element the tracker numbered
// (own mode), the number following; a backend node id is a bare number.
const trackedPrefix = "t"

func trackedID(id int32) string { return trackedPrefix + strconv.FormatInt(int64(id), 10) }

// number gives every node its number in preorder (the document 0, the
// others from base) and computes the shape hash the tracker computes
// (tracker.js begin).
func (t *tree) number(base int32) {
	t.byID = map[int32]*lnode{}
	id := int32(0)
	h := uint32(0x811c9dc5)
	mix := func(s string) {
		for i := 0; i < len(s); i++ {
			h ^= uint32(s[i])
			h *= 0x01000193
		}
	}
	var rec func(n *lnode)
	rec = func(n *lnode) {
		n.id = id
		t.byID[id] = n
		if id == 0 {
			id = base
		} else {
			id++
		}
		for _, c := range n.kids {
			switch c.kind {
			case 3:
				mix("#")
			case 10:
				mix("!")
			case 1:
				mix("<")
				mix(c.tag)
			}
			rec(c)
			if c.kind == 1 {
				mix(">")
			}
		}
	}
	rec(t.root)
	t.next = id
	t.shape = h
}

// renderAll renders every element of n's subtree.
func (n *lnode) renderAll() {
	if n.kind == 1 {
		n.render()
	}
	for _, c := range n.kids {
		c.renderAll()
	}
}

// index fills byID from the ids the tracker gave the nodes (own mode) and
// renders every element; an id given twice is a drift.
func (t *tree) index() error {
	t.byID = make(map[int32]*lnode, t.nodes+1)
	t.byID[0] = t.root
	var rec func(n *lnode) error
	rec = func(n *lnode) error {
		for _, c := range n.kids {
			if _, dup := t.byID[c.id]; dup || c.id <= 0 {
				return fmt.Errorf("%w: node id %d given twice", errDrift, c.id)
			}
			t.byID[c.id] = c
			if c.kind == 1 {
				c.render()
			}
			if err := rec(c); err != nil {
				return err
			}
		}
		return nil
	}
	return rec(t.root)
}

// keys lists [id, key] of every element whose live state is not the
// default, for the tracker's commit.
func (t *tree) keys() [][2]any {
	var out [][2]any
	for id, n := range t.byID {
		if n.kind != 1 {
			continue
		}
		if k := n.st.key(); k != defaultKey {
			out = append(out, [2]any{id, k})
		}
	}
	return out
}

// errDrift says the kept tree and the page's tracker no longer agree: the
// driver takes a full capture.
var errDrift = errors.New("browser: incremental capture drifted from the page")

// forget removes a subtree's numbers.
func (t *tree) forget(n *lnode) {
	delete(t.byID, n.id)
	for _, c := range n.kids {
		t.forget(c)
	}
}
