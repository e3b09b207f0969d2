// Package observe turns a capture into what an agent may see: a bounded,
// ordered list of candidate elements with roles, accessible names and
// snapshot-scoped refs, plus text, tables and headings, each under its own
// limit and with its own truncation facts (SPEC §2, OBS-1 … OBS-10).
//
// Everything here is a pure function of a capture: no I/O, no driver. The
// browser driver and a recording differ only in where the capture came from,
// so replay exercises exactly the code that runs live.
//
// The call sequence is Parse (one parsed tree per frame plus per-document
// indexes: hidden flags computed in one pass, id and label[for] maps), then
// Observe (every candidate in priority order with refs "s<snapshot>e<n>"),
// then bounded reads of the observation: View (the full or the page view),
// Find (with selection facts), SearchText (bounded snippets) and ByRef.
// All walks are iterative and every per-element computation is bounded, so a
// page of any size or depth costs time linear in its size.
//
// Choices where the spec is silent:
//   - Frames: capture frames are observed separately. In a plain .html file
//     (no live state) an iframe's srcdoc is parsed as a child frame; an
//     iframe whose document the capture does not hold (cross-origin, or src
//     in a plain file) is an unread frame, and every read that could have
//     found something in it reports complete:false.
//   - Nesting deeper than the HTML parser's 512 open elements (browsers cap
//     nesting too) is flattened: elements below depth 400 are dropped, the
//     frame records why, and its observation is not complete.
//   - Accessible names are bounded (Limits.NameCharsMax characters, a fixed
//     budget of nodes read per name); what accname 1.2 features are not
//     covered is listed on Document.AccessibleName.
package observe

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
)

// Document is a parsed capture: one parsed HTML tree per frame, with the
// stable node id of every element, the frame it belongs to and its hidden
// state, computed once.
type Document struct {
	URL    string
	Title  string
	Frames []*Frame
	// Unread lists the iframes whose document the capture does not hold.
	Unread []UnreadFrame
	// ClosedRoots lists the elements hosting a closed shadow root, whose
	// content the capture does not hold (capture.AttrShadow): open roots
	// are page, closed ones are named, never read as empty.
	ClosedRoots []ClosedRoot

	media   bool // an img, video or audio element in some frame (HasMedia)
	info    nodeTable
	byID    []map[string]*html.Node   // frame index → id attribute → first element
	labelOf []map[string][]*html.Node // frame index → for attribute → labels
	sheets  []*styleSheet             // frame index → author styles of a plain file
}

// Frame is one parsed document of the page.
type Frame struct {
	ID     string
	Parent string
	Owner  string // node id of the iframe element in the parent frame
	URL    string
	Root   *html.Node
	// Live is true when the frame carries live state from a browser
	// (data-rl-node attributes): hidden state then comes from the browser's
	// computed style.
	Live bool
	// Repaired says why part of the frame was dropped ("" when nothing was).
	Repaired string

	index int
	owner *html.Node // the iframe element, nil for the main frame
	raw   *frameRaw
	fast  *fastTree  // the fast builder's tree, for ParseAfter; nil when html.Parse built it
	walk  []walkMark // the index walk's state at marks of fast, for ParseAfter
	// inherited are the hidden flags the frame inherits from its iframe
	inherited uint8
	// walkFrom is where the index walk resumed (a walk mark's position),
	// -1 when it walked from the root
	walkFrom int
	// keptSeq and keptOpen are, when the walk resumed, the document order
	// of the last element before the mark and the elements open at it
	// (Kept)
	keptSeq  int32
	keptOpen map[*html.Node]bool
}

// UnreadFrame is an iframe whose document is not in the capture.
type UnreadFrame struct {
	Frame  string `json:"frame"` // the frame holding the iframe element
	Node   string `json:"node"`  // the iframe's node id
	Src    string `json:"src,omitempty"`
	Reason string `json:"reason"`
}

// ClosedRoot is an element hosting a closed shadow root: its content is
// the page's own (no script, locator or capture outside it can read it).
type ClosedRoot struct {
	Frame string `json:"frame"`
	Node  string `json:"node"` // the host's node id
	Tag   string `json:"tag"`
}

// closedMark is how a capture names a closed root's host, and closedHost
// the selector of such a host.
const closedMark = capture.AttrShadow + `="closed"`

var closedHost = cascadia.MustCompile(`[` + closedMark + `]`)

// closedRoots lists fr's closed shadow roots; src is its markup (only a
// frame whose markup names one is searched).
func (d *Document) closedRoots(fr *Frame, src string) {
	if !strings.Contains(src, closedMark) {
		return
	}
	frameSelection(fr).FindMatcher(closedHost).Each(func(_ int, s *goquery.Selection) {
		n := s.Get(0)
		d.ClosedRoots = append(d.ClosedRoots, ClosedRoot{Frame: fr.ID, Node: d.NodeID(n), Tag: n.Data})
	})
}

// frameSelection is a goquery selection of the frame's document node.
func frameSelection(fr *Frame) *goquery.Selection {
	return goquery.NewDocumentFromNode(fr.Root).Selection
}

// Select is the elements of every frame that m matches, in frame and
// document order, hidden ones included: a goquery query over the parsed
// trees, for offline questions about a capture (which elements a CSS
// selector names; adapter.Select compiles one under the adapter file's
// rules). A cascadia.Selector is a goquery.Matcher.
func (d *Document) Select(m goquery.Matcher) *goquery.Selection {
	if len(d.Frames) == 0 { // never from Parse: a capture has a frame
		return goquery.NewDocumentFromNode(&html.Node{Type: html.DocumentNode}).Selection
	}
	out := frameSelection(d.Frames[0]).FindMatcher(m)
	for _, fr := range d.Frames[1:] {
		out = out.AddSelection(frameSelection(fr).FindMatcher(m))
	}
	return out
}

// nodeInfo is what the index keeps per element.
type nodeInfo struct {
	seq   int32 // document order within the frame, from 1
	frame int32 // index into Document.Frames
	flags uint8
}

// Hidden-state flags, computed top-down in one pass per frame.
const (
	flagDisplay    uint8 = 1 << iota // not rendered: display:none, hidden, non-rendered content
	flagVisibility                   // computed visibility:hidden or collapse
	flagAria                         // inside aria-hidden="true"
	flagInert                        // inside an inert subtree
)

// maxFrames bounds the frames one document reads (srcdoc frames beyond it
// are unread).
const maxFrames = 64

// maxDepth is the nesting kept when a frame is too deep for the parser.
const maxDepth = 400

// Parse parses every frame of c. Malformed HTML is not an error: the HTML5
// parser repairs it the way a browser does, and nesting too deep for it is
// flattened (Frame.Repaired says so).
func Parse(c *capture.Capture) (*Document, error) {
	return parse(c, nil, false)
}

// ParseAfter parses c as Parse does, reusing the parse of prev, the
// document of an earlier capture of the same page: in each frame whose
// HTML starts with the same bytes as the frame of the same id in prev,
// the nodes built from those bytes are taken over from prev's tree (up to
// the last point where the tree builder's state is provably the same,
// see fastParseTree) and only the rest is parsed. The result is exactly
// Parse(c)'s: the same tree node for node, the same index and
// observation. prev's trees are cut back and taken over, so prev and
// everything read from it (observations, groups) must not be read after
// the call. With a nil prev it parses as Parse does, keeping what a later
// ParseAfter needs to resume (Parse keeps none of it).
func ParseAfter(c *capture.Capture, prev *Document) (*Document, error) {
	return parse(c, prev, true)
}

func parse(c *capture.Capture, prev *Document, marks bool) (*Document, error) {
	if c == nil {
		return nil, errors.New("observe: nil capture")
	}
	if len(c.Frames) == 0 {
		return nil, fmt.Errorf("observe: capture of %s has no frames: %w", c.URL, capture.ErrMalformed)
	}
	size := 0
	for _, f := range c.Frames {
		size += len(f.HTML)
	}
	// about one element per 40 bytes of markup: sizing the index up front
	// saves its rehashing
	if len(c.Frames) >= maxFrameIndex {
		return nil, fmt.Errorf("observe: capture of %s has %d frames: %w", c.URL, len(c.Frames), capture.ErrMalformed)
	}
	d := &Document{URL: c.URL, Title: c.Title}
	d.info.init(min(size/40, 1<<22))
	byFrameID := map[string]*Frame{}
	inCapture := map[string]bool{}
	for _, f := range c.Frames {
		inCapture[f.ID] = true
	}
	type pending struct {
		f   capture.Frame
		src string
	}
	queue := make([]pending, 0, len(c.Frames))
	for _, f := range c.Frames {
		queue = append(queue, pending{f: f, src: f.HTML})
	}
	for qi := 0; qi < len(queue); qi++ {
		p := queue[qi]
		var reuse *fastTree
		var reused *Frame
		if prev != nil {
			// each of prev's trees is taken over at most once
			for _, pf := range prev.Frames {
				if pf.ID == p.f.ID && pf.fast != nil {
					reuse, reused, pf.fast = pf.fast, pf, nil
					break
				}
			}
		}
		root, fast, repaired, err := parseFrame(p.src, reuse, marks)
		if err != nil {
			return nil, fmt.Errorf("observe: frame %s: %w", p.f.ID, err)
		}
		var slabs [][]html.Node
		if fast != nil {
			slabs = fast.slabs
		}
		fr := &Frame{ID: p.f.ID, Parent: p.f.Parent, Owner: p.f.Owner, URL: p.f.URL, Root: root,
			Repaired: repaired, index: len(d.Frames), fast: fast}
		var inherited uint8
		if parent := byFrameID[fr.Parent]; parent != nil {
			fr.owner = d.ownerIn(parent, fr)
			if fr.owner != nil {
				inherited = d.info.at(fr.owner).flags
			}
		}
		fr.inherited = inherited
		from := resumeWalk(prev, reused, fr)
		for i, slab := range slabs {
			// the nodes before the mark are indexed as prev indexed them:
			// prev is dead, the entries of the slabs it shares are taken over
			if from != nil && i < fast.shared {
				if d.info.takeDense(slab, &prev.info) {
					continue
				}
				from = nil // never: prev indexed every slab of its tree
			}
			d.info.addDense(slab)
		}
		d.Frames = append(d.Frames, fr)
		byFrameID[fr.ID] = fr
		srcdocs := d.index(fr, len(p.src), inherited, inCapture, from)
		d.closedRoots(fr, p.src)
		for i, sd := range srcdocs {
			if len(queue) >= maxFrames {
				d.Unread = append(d.Unread, UnreadFrame{Frame: fr.ID, Node: d.NodeID(sd), Src: "about:srcdoc",
					Reason: "more than " + strconv.Itoa(maxFrames) + " frames: not read"})
				continue
			}
			id := fr.ID + ".srcdoc" + strconv.Itoa(i+1)
			inCapture[id] = true
			queue = append(queue, pending{f: capture.Frame{ID: id, Parent: fr.ID, Owner: d.NodeID(sd), URL: "about:srcdoc"}, src: attr(sd, "srcdoc")})
		}
	}
	return d, nil
}

// resumeWalk is where the index walk of fr, whose tree was resumed from
// the tree of pf (a frame of prev), may resume: the last walk mark of pf
// at or before the parse mark the tree resumed from, when pf was a live
// frame in the same place (frame index, inherited flags); nil when the
// walk starts at the root.
func resumeWalk(prev *Document, pf, fr *Frame) *walkResume {
	if pf == nil || fr.fast == nil || fr.fast.resumedAt < 0 || !pf.Live || pf.index != fr.index || pf.inherited != fr.inherited {
		return nil
	}
	var m *walkMark
	for i := range pf.walk {
		if pf.walk[i].pos > fr.fast.resumedAt {
			break
		}
		m = &pf.walk[i]
	}
	if m == nil {
		return nil
	}
	return &walkResume{prev: prev, frame: pf, mark: m}
}

// ParseHTML parses a single-frame page given as HTML.
func ParseHTML(url, src string) (*Document, error) {
	return Parse(capture.New(url, src))
}

// parseFrame parses one frame's HTML; a tree too deep for the parser is
// parsed again with its nesting capped. The tree is always html.Parse's:
// the fast builder builds it for well-formed markup (resuming prev's
// tree where src starts as prev's source did, marking its state for the
// next parse when marks is set) and declines the rest; fast is nil when
// html.Parse built it.
func parseFrame(src string, prev *fastTree, marks bool) (root *html.Node, fast *fastTree, repaired string, err error) {
	resumed := false
	if prev != nil {
		var t *fastTree
		if t, resumed = resumeParse(prev, src); t != nil {
			return t.doc, t, "", nil
		}
	}
	// the state at the mark a parse resumed from was a fresh parse's
	// there: where the resumed parse declined, a fresh one declines too
	if !resumed {
		if t, ok := fastParseTree(src, nil, marks); ok {
			return t.doc, t, "", nil // html.Parse's tree, built faster (fastparse.go)
		}
	}
	root, err = html.Parse(strings.NewReader(src))
	if err == nil {
		return root, nil, "", nil
	}
	capped := capDepth(src, maxDepth)
	root, err2 := html.Parse(strings.NewReader(capped))
	if err2 == nil {
		return root, nil, fmt.Sprintf("nesting deeper than %d elements was flattened (%v)", maxDepth, err), nil
	}
	// Last resort: the text alone.
	root, err3 := html.Parse(strings.NewReader("<pre>" + html.EscapeString(src) + "</pre>"))
	if err3 != nil {
		return nil, nil, "", fmt.Errorf("unparseable even as text: %w", errors.Join(err, err2, err3))
	}
	return root, nil, fmt.Sprintf("markup could not be parsed and was read as text (%v)", err), nil
}

// capDepth re-serialises src with elements below depth max dropped (their
// text kept), tracking open elements the way a lenient tree builder would.
func capDepth(src string, max int) string {
	z := html.NewTokenizer(strings.NewReader(src))
	var b strings.Builder
	b.Grow(len(src))
	var open []string
	dropped := map[string]int{}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return b.String()
			}
			return b.String()
		case html.StartTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if voidTags[tag] {
				b.Write(z.Raw())
				continue
			}
			if len(open) >= max {
				dropped[tag]++
				continue
			}
			open = append(open, tag)
			b.Write(z.Raw())
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if dropped[tag] > 0 {
				dropped[tag]--
				continue
			}
			for i := len(open) - 1; i >= 0; i-- {
				if open[i] == tag {
					open = open[:i]
					b.Write(z.Raw())
					break
				}
			}
		default:
			b.Write(z.Raw())
		}
	}
}

var voidTags = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
	"param": true, "keygen": true,
}

// ownerIn finds the iframe element of parent that holds child.
func (d *Document) ownerIn(parent, child *Frame) *html.Node {
	var found *html.Node
	walk(parent.Root, func(n *html.Node) bool {
		if found != nil {
			return false
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Iframe || n.DataAtom == atom.Frame) {
			if attr(n, capture.AttrFrame) == child.ID || (child.Owner != "" && d.NodeID(n) == child.Owner) {
				found = n
				return false
			}
		}
		return true
	})
	return found
}

func firstSummary(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Summary {
			return c
		}
	}
	return nil
}

// ownFlags computes an element's hidden flags from its parent's, reading
// its attributes once.
func ownFlags(f *Frame, sheet *styleSheet, n *html.Node, parent uint8) uint8 {
	flags := parent
	switch n.DataAtom {
	case atom.Head, atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Title, atom.Meta, atom.Link, atom.Base:
		flags |= flagDisplay
	}
	var style, rlHidden, id, class string
	hiddenAttr, hiddenInput, hasID, hasClass := false, false, false, false
	for _, a := range n.Attr {
		switch a.Key {
		case "id":
			if !hasID {
				id, hasID = a.Val, true
			}
		case "class":
			if !hasClass {
				class, hasClass = a.Val, true
			}
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") {
				flags |= flagAria
			}
		case "inert":
			flags |= flagInert
		case capture.AttrHidden:
			rlHidden = a.Val
		case "hidden":
			hiddenAttr = !strings.EqualFold(a.Val, "until-found")
		case "style":
			style = a.Val
		case "type":
			hiddenInput = n.DataAtom == atom.Input && strings.EqualFold(a.Val, "hidden")
		}
	}
	switch rlHidden {
	case "display":
		flags |= flagDisplay
	case "visibility":
		flags |= flagVisibility
	}
	if f.Live {
		// The browser computed visibility per element: a child without the
		// attribute is visible even under a hidden parent.
		if rlHidden != "visibility" {
			flags &^= flagVisibility
		}
		return flags
	}
	if hiddenAttr || hiddenInput {
		flags |= flagDisplay
	}
	display, visibility := "", ""
	if sheet != nil {
		display, visibility = sheet.displayVisibility(n, id, class)
	}
	if style != "" {
		if v := styleProp(style, "display"); v != "" {
			display = v
		}
		if v := styleProp(style, "visibility"); v != "" {
			visibility = v
		}
	}
	if display == "none" {
		flags |= flagDisplay
	}
	switch visibility {
	case "hidden", "collapse":
		flags |= flagVisibility
	case "visible":
		flags &^= flagVisibility
	}
	return flags
}

// NodeID returns the stable node id of an element: the browser's backend
// node id in a live capture, else "<frame>:<document order>".
func (d *Document) NodeID(n *html.Node) string {
	if v := attr(n, capture.AttrNode); v != "" {
		return v
	}
	in, ok := d.info.get(n)
	if !ok {
		return ""
	}
	return d.Frames[in.frame].ID + ":" + strconv.Itoa(int(in.seq))
}

// HasMedia reports whether some frame holds an img, video or audio
// element, from the index computed by Parse.
func (d *Document) HasMedia() bool { return d.media }

// FrameOf returns the id of the frame that holds n.
func (d *Document) FrameOf(n *html.Node) string {
	if in, ok := d.info.get(n); ok {
		return d.Frames[in.frame].ID
	}
	if n != nil && n.Type != html.ElementNode && n.Parent != nil {
		return d.FrameOf(n.Parent)
	}
	return ""
}

// ByID returns the element with the given id attribute in a frame.
func (d *Document) ByID(frame, id string) *html.Node {
	for _, f := range d.Frames {
		if f.ID == frame {
			return d.byID[f.index][id]
		}
	}
	return nil
}

func (d *Document) byIDIn(n *html.Node, id string) *html.Node {
	in, ok := d.info.get(n)
	if !ok {
		return nil
	}
	return d.byID[in.frame][id]
}

// Kept reports whether the element n and its whole subtree were taken
// over unchanged from the document ParseAfter resumed from: n was closed
// before the mark its frame's index walk resumed at, so its subtree,
// attributes and ancestors' attributes were parsed from bytes both
// captures share, and everything the walk computed for them (hidden
// flags, roles, candidates) is the previous document's. A node of the
// changed part, an element still open at the mark (an ancestor of the
// change), and every node of a document parsed whole are not kept.
// Readers that derived something from a kept subtree alone may keep it.
func (d *Document) Kept(n *html.Node) bool {
	in, ok := d.info.get(n)
	if !ok {
		return false
	}
	f := d.Frames[in.frame]
	return f.walkFrom >= 0 && in.seq <= f.keptSeq && !f.keptOpen[n]
}

// Hidden reports whether n is not shown to a user of the page (see the
// package function Hidden), from the index computed by Parse.
func (d *Document) Hidden(n *html.Node) bool {
	in, ok := d.info.get(n)
	if !ok {
		return Hidden(n)
	}
	return in.flags != 0
}

// flags returns the hidden flags of an element; a text node has its
// parent's.
func (d *Document) flags(n *html.Node) uint8 {
	for n != nil && n.Type != html.ElementNode {
		n = n.Parent
	}
	if n == nil {
		return 0
	}
	if in, ok := d.info.get(n); ok {
		return in.flags
	}
	var f uint8
	if hiddenFromRender(n) {
		f |= flagDisplay
	}
	if ariaHidden(n) {
		f |= flagAria
	}
	return f
}

// WalkElements visits n and its element descendants in document order
// without recursion (deep pages cannot overflow the stack); fn returning
// false skips that element's children.
func WalkElements(n *html.Node, fn func(*html.Node) bool) {
	walk(n, func(c *html.Node) bool { return c.Type != html.ElementNode || fn(c) })
}

// walk visits root and its descendants in document order without recursion;
// fn returning false skips the children of that node.
// It follows the tree's own links (child, sibling, parent), so it
// allocates nothing.
func walk(root *html.Node, fn func(*html.Node) bool) {
	for n := root; n != nil; {
		n = nextInTree(n, root, fn(n))
	}
}

// nextInTree is the node after n in a document-order walk of root's
// subtree (nil at its end), n's children skipped unless descend.
func nextInTree(n, root *html.Node, descend bool) *html.Node {
	if descend && n.FirstChild != nil {
		return n.FirstChild
	}
	for ; n != root; n = n.Parent {
		if n.NextSibling != nil {
			return n.NextSibling
		}
	}
	return nil
}

// Walk visits every element of every frame in document order.
func (d *Document) Walk(fn func(f *Frame, n *html.Node) bool) {
	for _, f := range d.Frames {
		walk(f.Root, func(n *html.Node) bool {
			if n.Type != html.ElementNode {
				return true
			}
			return fn(f, n)
		})
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// Attr returns the value of an attribute of n, "" when absent.
func Attr(n *html.Node, key string) string { return attr(n, key) }

// HasAttr reports whether n carries the attribute.
func HasAttr(n *html.Node, key string) bool { return hasAttr(n, key) }

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return b.String()
}

// Normalize collapses runs of white space to one space and trims the ends,
// the normalisation accessible names and locators compare under.
// It is strings.Join(strings.Fields(s), " ") (unicode.IsSpace white
// space) in one pass and one allocation.
func Normalize(s string) string {
	if isFlat(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		if c < utf8.RuneSelf {
			if c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
				pending = b.Len() > 0
				i++
				continue
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				pending = b.Len() > 0
				i += size
				continue
			}
		}
		if pending {
			b.WriteByte(' ')
			pending = false
		}
		b.WriteString(s[i : i+size])
		i += size
	}
	return b.String()
}

// TruncRunes is s cut to its first max characters (runes); s itself when
// it has no more.
func TruncRunes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}
