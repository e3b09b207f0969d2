package observe

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// fastParse builds the tree html.Parse builds for src, for the markup a
// capture consists of (a serialised DOM: every element closed in order,
// attributes quoted), in about half html.Parse's time and memory: nodes and
// attributes come from two slabs sized from the markup, and names, text and
// attribute values are substrings of src (atom strings for known names)
// unless an entity must be decoded.
//
// It is a subset of the HTML5 tree-construction algorithm as
// golang.org/x/net/html implements it, token by token: ok is false at the
// first token whose handling it cannot prove identical (an end tag that is
// not the current node's, an implied end tag or element, misnesting that
// the adoption agency or foster parenting would repair, templates, MathML,
// select, frameset, CDATA, script escapes, NUL or carriage return anywhere,
// an attribute entity whose decoding depends on the attribute rules, ...),
// and the caller then parses with html.Parse. Within the subset the tree is
// html.Parse's node for node: types, names, atoms, namespaces, attributes
// (formatting elements' attributes sorted as html.Parse sorts them), text
// (merged and with pre/textarea's first newline dropped as html.Parse does).
// fastparse_test.go proves it against html.Parse on the seeded chat pages,
// every capture in recordings/, the conformance pages, and a fuzz target.
func fastParse(src string) (*html.Node, bool) {
	root, _, ok := fastParseSlabs(src)
	return root, ok
}

// fastParseSlabs is fastParse that also returns the slabs holding every
// node of the tree, so the document's index can address its nodes by
// position (nodeTable.addDense).
func fastParseSlabs(src string) (*html.Node, [][]html.Node, bool) {
	t, ok := fastParseTree(src, nil, false)
	if !ok {
		return nil, nil, false
	}
	return t.doc, t.slabs, true
}

// fastTree is a tree the fast builder made, with what a later parse of a
// similar source needs to resume where the two sources still agree
// (fastParseTree with prev).
type fastTree struct {
	src   string
	doc   *html.Node
	slabs [][]html.Node // every slab holding the tree's nodes, the last one partly filled
	marks []parseMark   // in source order
	// resumedAt is the position of the mark the tree was resumed from (its
	// nodes before it are the previous tree's), -1 for a fresh parse;
	// shared is the number of slabs (the first ones) the trees share
	resumedAt int
	shared    int
}

// parseMark is the builder's whole state at a point of the source where
// every token before pos is consumed: the tree builder is a function of
// this state and the bytes from pos on, so a source with the same bytes
// before pos resumes here with the same result.
//
// Marks are taken only where the current node's last child is an element
// (closed: it is not open above the current node) and no raw text is
// pending, so no node made before the mark is changed after it except by
// appending children to the open elements (chain: the document node and
// the open elements; lasts: each one's last child at the mark). Rolling a
// tree back to a mark is cutting those children lists at lasts.
type parseMark struct {
	pos   int
	chain []*html.Node // the document node, then the open elements
	lasts []*html.Node // the last child of each chain node at the mark
	afe   []*html.Node
	form  *html.Node
	mode  fastMode
	orig  fastMode
	slabs int // slabs holding the nodes made before the mark
}

// fastParseTree builds src's tree as fastParse does. With prev (the tree
// of an earlier source, built by fastParseTree), it resumes from prev's
// last mark inside the bytes both sources share from the start: prev's
// nodes before the mark become the new tree's (prev's tree is cut back to
// the mark, so prev must not be read afterwards, whatever the outcome)
// and only the rest of src is tokenised. The tree is the same as a fresh
// parse's node for node (fastparse_test.go: FuzzSpliceParse and the
// differential tests); ok false means html.Parse must build it. A fresh
// parse takes marks only when marks is set (a parse no later one resumes
// needs none).
func fastParseTree(src string, prev *fastTree, marks bool) (*fastTree, bool) {
	if prev != nil {
		if t, resumed := resumeParse(prev, src); resumed || t != nil {
			return t, t != nil
		}
	}
	if strings.IndexByte(src, 0) >= 0 || strings.IndexByte(src, '\r') >= 0 {
		return nil, false // the tokenizer rewrites both
	}
	p := &fastParser{src: src, resumedAt: -1}
	// Every element and comment starts with '<', and text nodes sit
	// between tags: the count of '<' bounds the nodes of a capture well.
	p.nodes = make([]html.Node, 0, strings.Count(src, "<")+8)
	p.attrs = make([]html.Attribute, 0, strings.Count(src, "=")+8)
	p.oe = make([]*html.Node, 0, 32)
	p.doc = p.node()
	p.doc.Type = html.DocumentNode
	p.markStep = markStep(len(src))
	p.nextMark = p.markStep
	if !marks {
		p.nextMark = len(src) + 1
	}
	return p.run()
}

// markStep is the distance between marks: about 256 marks a source, at
// least 4 KB apart, so a resumed parse re-reads at most ~0.4% of a large
// source (or 4 KB) before the first changed byte.
func markStep(size int) int {
	if markStepForTest > 0 {
		return markStepForTest
	}
	return max(4096, size/256)
}

// markStepForTest, when set, is the distance between marks (1: a mark at
// every resumable point), so the differential tests and the fuzzer resume
// small documents at every point they can.
var markStepForTest int

// maxSlabs bounds the slabs a resumed tree may span (each resumed parse
// adds one); past it the caller parses afresh, which keeps the index's
// slab lookup short and the dead nodes of old slabs few.
const maxSlabs = 24

// resumeParse is fastParseTree with prev: t is the tree (nil when the
// builder declined), resumed says whether prev's tree was taken over
// (false: no mark fitted, prev is untouched and a fresh parse may take
// src).
func resumeParse(prev *fastTree, src string) (t *fastTree, resumed bool) {
	common := commonPrefix(prev.src, src)
	i := sort.Search(len(prev.marks), func(i int) bool { return prev.marks[i].pos > common }) - 1
	if i < 0 || prev.marks[i].slabs >= maxSlabs {
		return nil, false
	}
	m := &prev.marks[i]
	tail := src[m.pos:]
	if strings.IndexByte(tail, 0) >= 0 || strings.IndexByte(tail, '\r') >= 0 {
		return nil, false // the bytes before the mark are prev's: free of both
	}
	// cut prev's tree back to the mark
	for k, n := range m.chain {
		last := m.lasts[k]
		n.LastChild = last
		last.NextSibling = nil
	}
	p := &fastParser{src: src, pos: m.pos, doc: m.chain[0], form: m.form, mode: m.mode, orig: m.orig, resumedAt: m.pos}
	p.oe = append(make([]*html.Node, 0, max(32, len(m.chain))), m.chain[1:]...)
	p.afe = slices.Clone(m.afe)
	p.nodes = make([]html.Node, 0, strings.Count(tail, "<")+8)
	p.attrs = make([]html.Attribute, 0, strings.Count(tail, "=")+8)
	p.slabs = slices.Clone(prev.slabs[:m.slabs])
	p.shared = m.slabs
	p.marks = slices.Clone(prev.marks[:i+1])
	p.markStep = markStep(len(src))
	p.nextMark = m.pos + p.markStep
	t, _ = p.run()
	return t, true
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for step := 4096; i+step <= n && a[i:i+step] == b[i:i+step]; i += step {
	}
	for ; i+64 <= n && a[i:i+64] == b[i:i+64]; i += 64 {
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// run tokenises from p.pos to the end, marking the state as it goes.
func (p *fastParser) run() (*fastTree, bool) {
	var t fastTok
	for {
		if !p.next(&t) || !p.process(&t) {
			return nil, false
		}
		if t.kind == tkEOF {
			return &fastTree{src: p.src, doc: p.doc, slabs: append(p.slabs, p.nodes), marks: p.marks, resumedAt: p.resumedAt, shared: p.shared}, true
		}
		if p.pos >= p.nextMark {
			p.mark()
		}
	}
}

// mark records the state after the token just consumed when it is a
// resumable point (parseMark).
func (p *fastParser) mark() {
	if p.rawTag != "" || p.mode == modeText {
		return
	}
	top := p.top()
	if top.LastChild == nil || top.LastChild.Type != html.ElementNode {
		return
	}
	m := parseMark{pos: p.pos, afe: slices.Clone(p.afe), form: p.form, mode: p.mode, orig: p.orig, slabs: len(p.slabs) + 1}
	m.chain = make([]*html.Node, 0, len(p.oe)+1)
	m.chain = append(append(m.chain, p.doc), p.oe...)
	m.lasts = make([]*html.Node, len(m.chain))
	for k, n := range m.chain {
		m.lasts[k] = n.LastChild
		if n.LastChild == nil {
			return // an open element without children: not a mark
		}
	}
	p.marks = append(p.marks, m)
	p.nextMark = p.pos + p.markStep
}

type tokKind uint8

const (
	tkEOF tokKind = iota
	tkText
	tkStart
	tkEnd
	tkComment
	tkDoctype
)

type fastTok struct {
	kind        tokKind
	selfClosing bool
	a           atom.Atom
	name        string // tag name, lower-cased
	data        string // text or comment, entities decoded
	attr        []html.Attribute
}

type fastMode uint8

const (
	modeInitial fastMode = iota
	modeBeforeHTML
	modeBeforeHead
	modeInHead
	modeAfterHead
	modeInBody
	modeText
	modeInTable
	modeInTableBody
	modeInRow
	modeInCell
	modeAfterBody
	modeAfterAfterBody
)

type fastParser struct {
	src    string
	pos    int
	rawTag string // the element whose raw text or RCDATA comes next

	doc   *html.Node
	nodes []html.Node      // slab
	slabs [][]html.Node    // full slabs before nodes
	attrs []html.Attribute // slab
	oe    []*html.Node     // open elements
	afe   []*html.Node     // active formatting elements, nil for a marker
	form  *html.Node
	mode  fastMode
	orig  fastMode // the mode text mode returns to

	marks     []parseMark
	resumedAt int
	shared    int // slabs taken over from the previous tree
	markStep  int
	nextMark  int // the position after which the next mark is taken
}

// maxFastDepth keeps the open elements under html.Parse's limit of 512,
// so a page that deep is html.Parse's to refuse.
const maxFastDepth = 500

func (p *fastParser) node() *html.Node {
	if len(p.nodes) == cap(p.nodes) {
		p.slabs = append(p.slabs, p.nodes)
		p.nodes = make([]html.Node, 0, cap(p.nodes)/2+64)
	}
	p.nodes = p.nodes[:len(p.nodes)+1]
	return &p.nodes[len(p.nodes)-1]
}

func (p *fastParser) top() *html.Node {
	if len(p.oe) > 0 {
		return p.oe[len(p.oe)-1]
	}
	return p.doc
}

func appendChild(parent, n *html.Node) {
	n.Parent = parent
	if last := parent.LastChild; last != nil {
		last.NextSibling = n
		n.PrevSibling = last
	} else {
		parent.FirstChild = n
	}
	parent.LastChild = n
}

func (p *fastParser) pop() { p.oe = p.oe[:len(p.oe)-1] }

// addElement appends an element for t to the current node and opens it.
func (p *fastParser) addElement(t *fastTok) (*html.Node, bool) {
	if len(p.oe) >= maxFastDepth {
		return nil, false
	}
	n := p.node()
	n.Type = html.ElementNode
	n.DataAtom = t.a
	n.Data = t.name
	n.Attr = t.attr
	appendChild(p.top(), n)
	p.oe = append(p.oe, n)
	return n, true
}

func (p *fastParser) addText(s string) {
	if s == "" {
		return
	}
	top := p.top()
	if last := top.LastChild; last != nil && last.Type == html.TextNode {
		last.Data += s
		return
	}
	n := p.node()
	n.Type = html.TextNode
	n.Data = s
	appendChild(top, n)
}

func (p *fastParser) addComment(parent *html.Node, s string) {
	n := p.node()
	n.Type = html.CommentNode
	n.Data = s
	appendChild(parent, n)
}

// process runs t through the tree builder until it is consumed; false
// when html.Parse must build the tree instead.
func (p *fastParser) process(t *fastTok) bool {
	for {
		if top := p.top(); top.Namespace != "" && t.kind != tkEOF &&
			!(svgIntegrationPoint(top) && (t.kind == tkStart || t.kind == tkText)) {
			return p.foreign(t, top)
		}
		done, ok := p.step(t)
		if !ok {
			return false
		}
		if done {
			return true
		}
	}
}

func svgIntegrationPoint(n *html.Node) bool {
	if n.Namespace != "svg" {
		return false
	}
	switch n.Data {
	case "desc", "foreignObject", "title":
		return true
	}
	return false
}

// step handles t in the current insertion mode: consumed says whether t
// is done (false: reprocess it in the new mode), ok false means bail out.
func (p *fastParser) step(t *fastTok) (consumed, ok bool) {
	switch p.mode {
	case modeInitial:
		switch t.kind {
		case tkText:
			return true, isWS(t.data)
		case tkComment:
			p.addComment(p.doc, t.data)
			return true, true
		case tkDoctype:
			n := p.node()
			n.Type = html.DoctypeNode
			n.Data = "html"
			appendChild(p.doc, n)
			p.mode = modeBeforeHTML
			return true, true
		}
		p.mode = modeBeforeHTML // no doctype: quirks, which only matters for a table in a p (refused below)
		return false, true
	case modeBeforeHTML:
		switch t.kind {
		case tkText:
			return true, isWS(t.data)
		case tkComment:
			p.addComment(p.doc, t.data)
			return true, true
		case tkStart:
			if t.a == atom.Html {
				_, ok := p.addElement(t)
				p.mode = modeBeforeHead
				return true, ok
			}
		}
		return false, false
	case modeBeforeHead:
		switch t.kind {
		case tkText:
			return true, isWS(t.data)
		case tkComment:
			p.addComment(p.top(), t.data)
			return true, true
		case tkStart:
			if t.a == atom.Head {
				_, ok := p.addElement(t)
				p.mode = modeInHead
				return true, ok
			}
		}
		return false, false
	case modeInHead:
		switch t.kind {
		case tkText:
			return true, p.leadingWS(t.data)
		case tkComment:
			p.addComment(p.top(), t.data)
			return true, true
		case tkStart:
			switch t.a {
			case atom.Base, atom.Basefont, atom.Bgsound, atom.Link, atom.Meta:
				_, ok := p.addElement(t)
				p.pop()
				return true, ok
			case atom.Noscript, atom.Script, atom.Title, atom.Noframes, atom.Style:
				return true, p.textElement(t)
			}
		case tkEnd:
			if t.a == atom.Head {
				p.pop()
				p.mode = modeAfterHead
				return true, true
			}
		}
		return false, false
	case modeAfterHead:
		switch t.kind {
		case tkText:
			return true, p.leadingWS(t.data)
		case tkComment:
			p.addComment(p.top(), t.data)
			return true, true
		case tkStart:
			if t.a == atom.Body {
				_, ok := p.addElement(t)
				p.mode = modeInBody
				return true, ok
			}
		}
		return false, false
	case modeText:
		switch t.kind {
		case tkText:
			d := t.data
			if top := p.top(); top.DataAtom == atom.Textarea && top.FirstChild == nil && d[0] == '\n' {
				d = d[1:]
			}
			p.addText(d)
			return true, true
		case tkEnd:
			p.pop()
			p.mode = p.orig
			return true, true
		}
		return false, false
	case modeInBody:
		return p.body(t)
	case modeInTable, modeInTableBody, modeInRow:
		return p.table(t)
	case modeInCell:
		switch t.kind {
		case tkStart:
			switch t.a {
			case atom.Caption, atom.Col, atom.Colgroup, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr:
				return false, false
			}
		case tkEnd:
			switch t.a {
			case atom.Td, atom.Th:
				top := p.top()
				if top.DataAtom != t.a || top.Namespace != "" {
					return false, false
				}
				p.pop()
				for len(p.afe) > 0 {
					n := p.afe[len(p.afe)-1]
					p.afe = p.afe[:len(p.afe)-1]
					if n == nil {
						break
					}
				}
				p.mode = modeInRow
				return true, true
			case atom.Body, atom.Caption, atom.Col, atom.Colgroup, atom.Html, atom.Table, atom.Tbody, atom.Tfoot, atom.Thead, atom.Tr:
				return false, false
			}
		}
		return p.body(t)
	case modeAfterBody, modeAfterAfterBody:
		switch t.kind {
		case tkEOF:
			return true, true
		case tkText:
			if !isWS(t.data) {
				return false, false
			}
			p.addText(t.data) // in-body rules: into the current node (body)
			return true, true
		case tkComment:
			if p.mode == modeAfterBody {
				p.addComment(p.oe[0], t.data)
			} else {
				p.addComment(p.doc, t.data)
			}
			return true, true
		case tkEnd:
			if t.a == atom.Html && p.mode == modeAfterBody {
				p.mode = modeAfterAfterBody
				return true, true
			}
		}
		return false, false
	}
	return false, false
}

// leadingWS handles text in head modes: its leading white space goes to
// the current node; anything after it would imply end tags.
func (p *fastParser) leadingWS(d string) bool {
	s := strings.TrimLeft(d, fastWS)
	p.addText(d[:len(d)-len(s)])
	return s == ""
}

const fastWS = " \t\r\n\f"

func isWS(s string) bool { return strings.TrimLeft(s, fastWS) == "" }

// textElement opens an element whose content is raw text or RCDATA.
func (p *fastParser) textElement(t *fastTok) bool {
	if _, ok := p.addElement(t); !ok {
		return false
	}
	p.orig = p.mode
	p.mode = modeText
	return true
}

// inScope reports whether an HTML element with tag a is in the given scope
// (html.Parse's indexOfElementInScope).
func (p *fastParser) inScope(s fastScope, a atom.Atom) bool {
	for i := len(p.oe) - 1; i >= 0; i-- {
		n := p.oe[i]
		tag := n.DataAtom
		if n.Namespace == "" {
			if tag == a {
				return true
			}
			switch s {
			case buttonScope:
				if tag == atom.Button {
					return false
				}
			case listItemScope:
				if tag == atom.Ol || tag == atom.Ul {
					return false
				}
			}
			switch tag {
			case atom.Applet, atom.Caption, atom.Html, atom.Table, atom.Td, atom.Th, atom.Marquee, atom.Object, atom.Template, atom.Select:
				return false
			}
		} else if n.Namespace == "svg" {
			switch tag {
			case atom.Desc, atom.ForeignObject, atom.Title:
				return false
			}
		} else {
			return false // MathML never gets here; be safe
		}
	}
	return false
}

type fastScope uint8

const (
	defaultScope fastScope = iota
	buttonScope
	listItemScope
)

var fastSpecial = func() map[atom.Atom]bool {
	m := map[atom.Atom]bool{}
	for _, s := range strings.Fields(`address applet area article aside base basefont bgsound blockquote body br
		button caption center col colgroup dd details dir div dl dt embed fieldset figcaption figure footer
		form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li link
		listing main marquee menu meta nav noembed noframes noscript object ol p param plaintext pre script
		section select source style summary table tbody td template textarea tfoot th thead title tr track
		ul wbr xmp`) {
		m[atom.Lookup([]byte(s))] = true
	}
	return m
}()

// listItemOpen is html.Parse's search for an open li (dd, dt) that a new
// one would close.
func (p *fastParser) listItemOpen(a, b atom.Atom) bool {
	for i := len(p.oe) - 1; i >= 0; i-- {
		n := p.oe[i]
		switch n.DataAtom {
		case a, b:
			return true
		case atom.Address, atom.Div, atom.P:
			continue
		}
		if n.Namespace == "" && fastSpecial[n.DataAtom] && n.Data == n.DataAtom.String() {
			return false
		}
		if n.Namespace != "" {
			return true // foreign special elements: not proven, bail
		}
	}
	return false
}

func isFormatting(a atom.Atom) bool {
	switch a {
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.S, atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}

func attrCompare(x, y html.Attribute) int {
	if c := strings.Compare(x.Namespace, y.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(x.Key, y.Key); c != 0 {
		return c
	}
	return strings.Compare(x.Val, y.Val)
}

// body is the in-body insertion mode for the tokens the subset handles.
func (p *fastParser) body(t *fastTok) (consumed, ok bool) {
	switch t.kind {
	case tkEOF:
		return true, true
	case tkText:
		d := t.data
		if top := p.top(); (top.DataAtom == atom.Pre || top.DataAtom == atom.Listing) && top.FirstChild == nil && d[0] == '\n' {
			d = d[1:]
		}
		p.addText(d)
		return true, true
	case tkComment:
		p.addComment(p.top(), t.data)
		return true, true
	case tkStart:
		return true, p.bodyStart(t)
	case tkEnd:
		return true, p.bodyEnd(t)
	}
	return false, false
}

func (p *fastParser) bodyStart(t *fastTok) bool {
	if p.top().Namespace != "" {
		return false // inside an SVG integration point
	}
	switch t.a {
	case atom.Html, atom.Body, atom.Frameset, atom.Head, atom.Template, atom.Plaintext, atom.Nobr,
		atom.Applet, atom.Marquee, atom.Object, atom.Image, atom.Xmp, atom.Select, atom.Option,
		atom.Optgroup, atom.Rb, atom.Rtc, atom.Rp, atom.Rt, atom.Math, atom.Caption, atom.Col,
		atom.Colgroup, atom.Frame, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr:
		return false
	case atom.Base, atom.Basefont, atom.Bgsound, atom.Link, atom.Meta,
		atom.Area, atom.Br, atom.Embed, atom.Img, atom.Keygen, atom.Wbr, atom.Input, atom.Param, atom.Source, atom.Track:
		_, ok := p.addElement(t)
		p.pop()
		return ok
	case atom.Hr:
		if p.inScope(buttonScope, atom.P) {
			return false
		}
		_, ok := p.addElement(t)
		p.pop()
		return ok
	case atom.Noframes, atom.Script, atom.Style, atom.Title, atom.Textarea, atom.Iframe, atom.Noembed, atom.Noscript:
		return p.textElement(t)
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Center, atom.Details, atom.Dialog,
		atom.Dir, atom.Div, atom.Dl, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Header,
		atom.Hgroup, atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P, atom.Search, atom.Section, atom.Summary,
		atom.Ul, atom.Pre, atom.Listing:
		if p.inScope(buttonScope, atom.P) {
			return false
		}
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if p.inScope(buttonScope, atom.P) {
			return false
		}
		switch p.top().DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return false
		}
	case atom.Form:
		if p.form != nil || p.inScope(buttonScope, atom.P) {
			return false
		}
		n, ok := p.addElement(t)
		p.form = n
		return ok
	case atom.Li:
		if p.listItemOpen(atom.Li, atom.Li) || p.inScope(buttonScope, atom.P) {
			return false
		}
	case atom.Dd, atom.Dt:
		if p.listItemOpen(atom.Dd, atom.Dt) || p.inScope(buttonScope, atom.P) {
			return false
		}
	case atom.Button:
		if p.inScope(defaultScope, atom.Button) {
			return false
		}
	case atom.Table:
		if p.inScope(buttonScope, atom.P) {
			return false
		}
		_, ok := p.addElement(t)
		p.mode = modeInTable
		return ok
	case atom.Svg:
		adjustSVGAttrs(t.attr)
		n, ok := p.addElement(t)
		if !ok {
			return false
		}
		n.Namespace = "svg"
		if t.selfClosing {
			p.pop()
		}
		return true
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.S, atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		return p.addFormatting(t)
	}
	_, ok := p.addElement(t)
	return ok
}

// addFormatting opens a formatting element and enters it in the active
// formatting elements, attributes sorted as html.Parse sorts them.
func (p *fastParser) addFormatting(t *fastTok) bool {
	same := 0
	for i := len(p.afe) - 1; i >= 0 && p.afe[i] != nil; i-- {
		if p.afe[i].DataAtom == atom.A && t.a == atom.A {
			return false // an open a: the adoption agency would close it
		}
	}
	slices.SortFunc(t.attr, attrCompare)
	for i := len(p.afe) - 1; i >= 0 && p.afe[i] != nil; i-- {
		if n := p.afe[i]; n.DataAtom == t.a && slices.Equal(n.Attr, t.attr) {
			same++
		}
	}
	if same >= 3 {
		return false // Noah's Ark clause
	}
	n, ok := p.addElement(t)
	if !ok {
		return false
	}
	p.afe = append(p.afe, n)
	return true
}

func (p *fastParser) bodyEnd(t *fastTok) bool {
	top := p.top()
	switch t.a {
	case atom.Body:
		if top.DataAtom != atom.Body || top.Namespace != "" {
			return false
		}
		p.mode = modeAfterBody
		return true
	case atom.Html, atom.Br, atom.Template:
		return false
	case atom.Form:
		if p.form == nil || top != p.form {
			return false
		}
		p.form = nil
		p.pop()
		return true
	}
	if top.Type != html.ElementNode || top.Namespace != "" || top.DataAtom != t.a || (t.a == 0 && top.Data != t.name) {
		return false
	}
	if isFormatting(t.a) {
		i := len(p.afe) - 1
		for ; i >= 0 && p.afe[i] != nil && p.afe[i].DataAtom != t.a; i-- {
		}
		if i < 0 || p.afe[i] != top {
			return false
		}
		p.afe = append(p.afe[:i], p.afe[i+1:]...)
	}
	p.pop()
	return true
}

// table handles the in-table, in-table-body and in-row modes.
func (p *fastParser) table(t *fastTok) (consumed, ok bool) {
	top := p.top()
	switch t.kind {
	case tkText:
		switch top.DataAtom {
		case atom.Table, atom.Tbody, atom.Tfoot, atom.Thead, atom.Tr:
			if strings.Trim(t.data, fastWS) == "" {
				p.addText(t.data)
				return true, true
			}
		}
		return false, false
	case tkComment:
		p.addComment(top, t.data)
		return true, true
	case tkStart:
		switch p.mode {
		case modeInTable:
			if top.DataAtom != atom.Table {
				return false, false
			}
			switch t.a {
			case atom.Tbody, atom.Thead, atom.Tfoot:
				_, ok := p.addElement(t)
				p.mode = modeInTableBody
				return true, ok
			case atom.Tr, atom.Td, atom.Th:
				_, ok := p.addElement(&fastTok{kind: tkStart, a: atom.Tbody, name: "tbody"})
				p.mode = modeInTableBody
				return false, ok
			}
		case modeInTableBody:
			switch top.DataAtom {
			case atom.Tbody, atom.Thead, atom.Tfoot:
			default:
				return false, false
			}
			switch t.a {
			case atom.Tr:
				_, ok := p.addElement(t)
				p.mode = modeInRow
				return true, ok
			case atom.Td, atom.Th:
				_, ok := p.addElement(&fastTok{kind: tkStart, a: atom.Tr, name: "tr"})
				p.mode = modeInRow
				return false, ok
			}
		case modeInRow:
			if top.DataAtom != atom.Tr {
				return false, false
			}
			switch t.a {
			case atom.Td, atom.Th:
				_, ok := p.addElement(t)
				p.afe = append(p.afe, nil)
				p.mode = modeInCell
				return true, ok
			}
		}
		return false, false
	case tkEnd:
		if top.Namespace != "" {
			return false, false
		}
		switch p.mode {
		case modeInTable:
			if t.a == atom.Table && top.DataAtom == atom.Table {
				p.pop()
				return true, p.resetMode()
			}
		case modeInTableBody:
			switch top.DataAtom {
			case atom.Tbody, atom.Thead, atom.Tfoot:
			default:
				return false, false
			}
			if t.a == top.DataAtom || t.a == atom.Table {
				p.pop()
				p.mode = modeInTable
				return t.a != atom.Table, true
			}
		case modeInRow:
			if top.DataAtom == atom.Tr && (t.a == atom.Tr || t.a == atom.Table) {
				p.pop()
				p.mode = modeInTableBody
				return t.a == atom.Tr, true
			}
		}
		return false, false
	}
	return false, false
}

// resetMode is html.Parse's resetInsertionMode after a table closed.
func (p *fastParser) resetMode() bool {
	for i := len(p.oe) - 1; i >= 0; i-- {
		switch p.oe[i].DataAtom {
		case atom.Td, atom.Th:
			p.mode = modeInCell
		case atom.Tr:
			p.mode = modeInRow
		case atom.Tbody, atom.Thead, atom.Tfoot:
			p.mode = modeInTableBody
		case atom.Table:
			p.mode = modeInTable
		case atom.Body:
			p.mode = modeInBody
		case atom.Caption, atom.Colgroup, atom.Template, atom.Head, atom.Frameset, atom.Html, atom.Select:
			return false
		default:
			if i == 0 {
				p.mode = modeInBody
				return true
			}
			continue
		}
		return true
	}
	return false
}

// foreign handles a token in SVG content.
func (p *fastParser) foreign(t *fastTok, top *html.Node) bool {
	switch t.kind {
	case tkText:
		p.addText(t.data)
		return true
	case tkComment:
		p.addComment(top, t.data)
		return true
	case tkStart:
		if fastBreakout[t.name] || t.a == atom.Font || top.Namespace != "svg" {
			return false
		}
		if x := fastSVGTagNames[t.name]; x != "" {
			t.name = x
			t.a = atom.Lookup([]byte(x))
		}
		adjustSVGAttrs(t.attr)
		n, ok := p.addElement(t)
		if !ok {
			return false
		}
		n.Namespace = "svg"
		p.rawTag = "" // no raw text in foreign content (an SVG style or title)
		if t.selfClosing {
			p.pop()
		}
		return true
	case tkEnd:
		if strings.EqualFold(top.Data, t.name) {
			p.pop()
			return true
		}
	}
	return false
}

// adjustSVGAttrs is html.Parse's adjustAttributeNames for SVG plus
// adjustForeignAttributes.
func adjustSVGAttrs(aa []html.Attribute) {
	for i := range aa {
		if x, ok := fastSVGAttrNames[aa[i].Key]; ok {
			aa[i].Key = x
		}
		switch k := aa[i].Key; k {
		case "xlink:actuate", "xlink:arcrole", "xlink:href", "xlink:role", "xlink:show",
			"xlink:title", "xlink:type", "xml:lang", "xml:space", "xmlns:xlink":
			j := strings.IndexByte(k, ':')
			aa[i].Namespace = k[:j]
			aa[i].Key = k[j+1:]
		}
	}
}

// next reads the next token the way html.Tokenizer does, for the forms a
// serialised DOM uses; false at anything else.
func (p *fastParser) next(t *fastTok) bool {
	s, i := p.src, p.pos
	*t = fastTok{}
	if tag := p.rawTag; tag != "" {
		p.rawTag = ""
		end := rawTextEnd(s, i, tag)
		if end < 0 {
			return false
		}
		if end > i {
			d := s[i:end]
			switch tag {
			case "script":
				if strings.Contains(d, "<!--") {
					return false // script data escape states
				}
			case "title", "textarea":
				d = html.UnescapeString(d)
			case "plaintext":
				return false
			}
			t.kind, t.data = tkText, d
			p.pos = end
			return true
		}
	}
	if i >= len(s) {
		t.kind = tkEOF
		return true
	}
	if !tagOpen(s, i) {
		j := i
		for {
			k := strings.IndexByte(s[j:], '<')
			if k < 0 {
				j = len(s)
				break
			}
			j += k
			if tagOpen(s, j) {
				break
			}
			j++
		}
		t.kind, t.data = tkText, s[i:j]
		if strings.IndexByte(t.data, '&') >= 0 {
			t.data = html.UnescapeString(t.data)
		}
		p.pos = j
		return true
	}
	switch c := s[i+1]; {
	case isLetter(c):
		return p.startTag(t)
	case c == '/':
		if i+2 >= len(s) || !isLetter(s[i+2]) {
			return false
		}
		j := i + 2
		for j < len(s) && !isTagNameEnd(s[j]) {
			j++
		}
		if j >= len(s) || s[j] != '>' {
			return false
		}
		t.kind = tkEnd
		t.name, t.a = tagName(s[i+2 : j])
		p.pos = j + 1
		return true
	case c == '!':
		if strings.HasPrefix(s[i:], "<!--") {
			j := i + 4
			k := strings.Index(s[j:], "-->")
			if k < 0 {
				return false
			}
			d := s[j : j+k]
			if d != "" && (d[0] == '>' || d[0] == '-' || d[len(d)-1] == '-' || strings.Contains(d, "--")) {
				return false
			}
			t.kind, t.data = tkComment, d
			if strings.IndexByte(d, '&') >= 0 {
				t.data = html.UnescapeString(d)
			}
			p.pos = j + k + 3
			return true
		}
		if p.mode == modeInitial && len(s)-i >= 15 && asciiLower(s[i:i+15]) == "<!doctype html>" {
			t.kind = tkDoctype
			p.pos = i + 15
			return true
		}
	}
	return false
}

// tagOpen reports whether the '<' at s[i] starts a tag, comment or
// declaration (else it is text).
func tagOpen(s string, i int) bool {
	if s[i] != '<' || i+1 >= len(s) {
		return false
	}
	c := s[i+1]
	return isLetter(c) || c == '/' || c == '!' || c == '?'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isTagNameEnd(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		return true
	}
	return false
}

func isTokWS(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '\f':
		return true
	}
	return false
}

// rawTextEnd is where the raw text or RCDATA of tag that starts at i
// ends: at "</tag" followed by white space, '/' or '>'. -1 when the input
// ends first.
func rawTextEnd(s string, i int, tag string) int {
	for {
		k := strings.Index(s[i:], "</")
		if k < 0 {
			return -1
		}
		j := i + k + 2
		if j+len(tag) >= len(s) {
			return -1
		}
		match := true
		for n := 0; n < len(tag); n++ {
			if c := s[j+n]; c != tag[n] && c != tag[n]-('a'-'A') {
				match = false
				break
			}
		}
		if match && isTagNameEnd(s[j+len(tag)]) {
			return i + k
		}
		i = i + k + 1
	}
}

// tagName returns the lower-cased name and its atom; a known name is the
// atom's string, an unknown one a substring of the input when it is
// lower-case already.
func tagName(raw string) (string, atom.Atom) {
	name := asciiLower(raw)
	if a := atom.Lookup(unsafe.Slice(unsafe.StringData(name), len(name))); a != 0 {
		return a.String(), a
	}
	return name, 0
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// startTag reads a start tag at p.pos the way html.Tokenizer's
// readStartTag does (names, attribute keys and values, duplicates dropped,
// the self-closing flag), and notes raw-text elements.
func (p *fastParser) startTag(t *fastTok) bool {
	s := p.src
	i := p.pos + 1
	ns := i
	for i < len(s) && !isTagNameEnd(s[i]) {
		i++
	}
	if i >= len(s) {
		return false
	}
	t.kind = tkStart
	t.name, t.a = tagName(s[ns:i])
	if isTokWS(s[i]) {
		i++
	}
	first := len(p.attrs)
	lastValEnd := -1
	for {
		for i < len(s) && isTokWS(s[i]) {
			i++
		}
		if i >= len(s) {
			return false
		}
		if s[i] == '>' {
			i++
			break
		}
		// readTagAttrKey
		ks := i
		for {
			if i >= len(s) {
				return false
			}
			c := s[i]
			if c == '=' && i == ks {
				i++
				continue
			}
			if c == '=' || isTagNameEnd(c) {
				break
			}
			i++
		}
		ke := i
		// readTagAttrVal
		vs, ve := i, i
		for i < len(s) && isTokWS(s[i]) {
			i++
		}
		if i >= len(s) {
			return false
		}
		switch s[i] {
		case '/':
			i++
		case '=':
			i++
			for i < len(s) && isTokWS(s[i]) {
				i++
			}
			if i >= len(s) {
				return false
			}
			switch q := s[i]; q {
			case '>':
			case '"', '\'':
				k := strings.IndexByte(s[i+1:], q)
				if k < 0 {
					return false
				}
				vs, ve = i+1, i+1+k
				i = ve + 1
			default:
				vs = i
				for i < len(s) && !isTokWS(s[i]) && s[i] != '>' {
					i++
				}
				if i >= len(s) {
					return false
				}
				ve = i
			}
		}
		if ke > ks {
			key := asciiLower(s[ks:ke])
			dup := false
			for _, a := range p.attrs[first:] {
				if a.Key == key {
					dup = true
					break
				}
			}
			if !dup {
				val, ok := unescapeAttr(s[vs:ve])
				if !ok {
					return false
				}
				if a := atom.Lookup(unsafe.Slice(unsafe.StringData(key), len(key))); a != 0 {
					key = a.String()
				}
				if len(p.attrs) == cap(p.attrs) {
					// a new slab; this tag's attributes move with it
					grown := make([]html.Attribute, len(p.attrs)-first, cap(p.attrs)/2+64)
					copy(grown, p.attrs[first:])
					p.attrs, first = grown, 0
				}
				p.attrs = append(p.attrs, html.Attribute{Key: key, Val: val})
				lastValEnd = ve
			}
		}
	}
	if n := len(p.attrs) - first; n > 0 {
		t.attr = p.attrs[first:len(p.attrs):len(p.attrs)]
	}
	t.selfClosing = s[i-2] == '/' && (t.attr == nil || i-2 != lastValEnd-1)
	p.pos = i
	switch t.name {
	case "iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea", "title", "xmp":
		p.rawTag = t.name
	}
	return true
}

// unescapeAttr decodes an attribute value's character references when
// html.Tokenizer's attribute rules decode them as its text rules do (every
// '&' starts a numeric reference, no reference, or a named reference with
// its ';' in the table); false otherwise.
func unescapeAttr(v string) (string, bool) {
	i := strings.IndexByte(v, '&')
	if i < 0 {
		return v, true
	}
	for i >= 0 {
		j := i + 1
		if j < len(v) && isAlnum(v[j]) {
			k := j
			for k < len(v) && isAlnum(v[k]) {
				k++
			}
			if k >= len(v) || v[k] != ';' {
				return "", false
			}
			ref := v[i : k+1]
			if d := html.UnescapeString(ref); d == ref || utf8.RuneCountInString(d) > 2 {
				return "", false
			}
		}
		next := strings.IndexByte(v[j:], '&')
		if next < 0 {
			break
		}
		i = j + next
	}
	return html.UnescapeString(v), true
}

func isAlnum(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' }
