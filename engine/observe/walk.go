package observe

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
)

// frameRaw is what the one walk over a frame collects for observation, in
// document order: candidates, headings, tables with their cells, and the
// visible text. Names and cell texts are computed later, once the hidden
// flags of the whole frame are known.
type frameRaw struct {
	cands    []rawCand
	headings []rawCand // role "heading"
	tables   []rawTable
	text     string
	// runes is text's character count once counted (frameText.runes)
	runes   int
	counted bool
}

type rawCand struct {
	n     *html.Node
	role  string
	seq   int32 // document order within the frame, as in the index
	nav   bool
	class uint8 // priority class (OBS-2)
	// the accessible name, once an observation computed it
	// (Document.candName); global: it read outside the node's subtree
	// and ancestors (nameOf)
	named, global bool
	name          string
	// built is the candidate's element in the last observation that built
	// it (Observe copies it instead of building it again: every field but
	// the ref and the group is a function of the node, its subtree and
	// ancestors, and its name)
	built *Element
}

type rawTable struct {
	node   *html.Node
	role   string
	parent int // index into tables + 1, 0 for none
	rows   [][]*html.Node
}

// walkCtx is what a node inherits from its ancestors during the walk.
type walkCtx struct {
	flags  uint8
	nav    bool // inside a navigation or complementary landmark
	table  int  // index into the frame's tables + 1, 0 for none
	row    int  // index into that table's rows + 1, 0 for none
	inCell bool // inside a cell of that table
	editor bool // inside a contenteditable editor: no candidates of its own
}

const hideMask = flagDisplay | flagAria | flagInert

// walkOpen is one open ancestor on the index walk's stack: the children
// of an element inherit the context it leaves them, and a visible block
// element ends its line when the walk leaves it.
type walkOpen struct {
	n       *html.Node
	ctx     walkCtx    // what the children inherit
	block   bool       // end the line when leaving
	closed  bool       // closed details: only the summary shows
	summary *html.Node // the summary of closed details
}

// walkMark is the index walk's state at a parse mark (parseMark) of a live
// frame: the walk has visited every node the tree builder made before the
// mark and left every element closed there, and stands at the mark's last
// child (at) with the open elements on its stack. A tree resumed from that
// mark, or a later one, shares all those nodes, so its walk resumes here
// (Document.index with a walkResume): everything the walk computed for a
// node depends only on the node, its attributes and its ancestors (roles,
// hidden flags, ids, labels, candidates, headings, text), except what a
// mark refuses: an open table (rows still to come), an iframe before the
// mark (the capture's frames decide it), a plain file's style sheet and
// closed details. The titles seen are kept to apply the title rule again.
type walkMark struct {
	pos      int // the parse mark's
	at       *html.Node
	stack    []walkOpen
	seq      int32
	text     int // bytes of text written
	line     int
	pending  bool
	cands    int
	headings int
	tables   int
	titles   []*html.Node
	media    bool // an img, video or audio element before the mark
}

// walkResume is where a frame's walk resumes: a walk mark of the frame of
// the previous document whose tree the frame took over.
type walkResume struct {
	prev  *Document
	frame *Frame
	mark  *walkMark
}

// index walks one frame once, without recursion: document order, hidden
// flags, id and label maps, unread iframes, and the raw observation. It
// returns the srcdoc iframes of a plain file, which become frames of their
// own. With from, the walk starts at from's mark with its state (the
// nodes before it indexed as the previous document indexed them).
func (d *Document) index(f *Frame, sizeHint int, inherited uint8, inCapture map[string]bool, from *walkResume) (srcdocs []*html.Node) {
	ids := map[string]*html.Node{}
	labels := map[string][]*html.Node{}
	d.byID = append(d.byID, ids)
	d.labelOf = append(d.labelOf, labels)
	fi := int32(f.index)
	for c := f.Root.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			f.Live = hasAttr(c, capture.AttrNode) // live frames mark their root
			break
		}
	}
	var sheet *styleSheet
	textMax := sizeHint / 4 // visible text is a fraction of the markup
	if !f.Live {
		sheet, textMax = collectStyles(f.Root)
	}
	d.sheets = append(d.sheets, sheet)

	// about one candidate per 200 bytes of markup on a chat page: sized
	// up front, the list does not regrow while the walk fills it
	raw := &frameRaw{cands: make([]rawCand, 0, sizeHint/200+8)}
	f.raw = raw
	var text textLines
	text.b.Grow(min(textMax, sizeHint))
	childCtx := func(p *walkOpen, c *html.Node) walkCtx {
		cctx := p.ctx
		if p.closed && c.Type == html.ElementNode && c != p.summary {
			cctx.flags |= flagDisplay // closed details show their summary only
		}
		return cctx
	}
	// walk marks: where the walk stands at each parse mark of the tree
	var marks []parseMark
	if f.fast != nil && f.Live {
		marks = f.fast.marks
	}
	nextMark := 0
	var titles []*html.Node
	iframes := 0
	media := false

	stack := make([]walkOpen, 0, 64)
	var seq int32
	n, ctx := f.Root, walkCtx{flags: inherited}
	resumed := false
	f.walkFrom = -1
	if from != nil && !f.Live {
		from = nil // a walk mark is of a live frame's walk
	}
	if from != nil {
		m := from.mark
		for _, wm := range from.frame.walk {
			if wm.pos > m.pos {
				break
			}
			f.walk = append(f.walk, wm)
		}
		for nextMark < len(marks) && marks[nextMark].pos <= m.pos {
			nextMark++
		}
		stack = append(stack, m.stack...)
		seq = m.seq
		text.b.WriteString(from.frame.raw.text[:m.text])
		text.line, text.pending = m.line, m.pending
		// the previous document is dead: its lists are taken over
		raw.cands = from.frame.raw.cands[:m.cands]
		raw.headings = from.frame.raw.headings[:m.headings]
		// a name computed on the previous tree stands for a node whose
		// subtree is closed (not open at the mark) and which read nothing
		// else
		open := make(map[*html.Node]bool, len(m.stack))
		for _, o := range m.stack {
			open[o.n] = true
		}
		f.keptSeq, f.keptOpen = m.seq, open
		for _, list := range [][]rawCand{raw.cands, raw.headings} {
			for i := range list {
				if rc := &list[i]; rc.named && (rc.global || open[rc.n]) {
					rc.named, rc.global, rc.name, rc.built = false, false, "", nil
				}
			}
		}
		raw.tables = append(raw.tables, from.frame.raw.tables[:m.tables]...)
		titles = m.titles
		media = m.media
		if f.index == 0 {
			for _, t := range titles {
				if d.Title == "" {
					d.Title = strings.TrimSpace(textOf(t))
				}
			}
		}
		// the ids and labels of the nodes before the mark
		prevIDs, prevLabels := from.prev.byID[from.frame.index], from.prev.labelOf[from.frame.index]
		// (the entries of the nodes before the mark are d's now: taken over
		// from prev with their slabs; nodes of prev's other slabs have none)
		before := func(n *html.Node) bool {
			in, ok := d.info.get(n)
			return ok && in.seq <= m.seq && in.frame == fi
		}
		for id, el := range prevIDs {
			if before(el) {
				ids[id] = el
			}
		}
		for forID, list := range prevLabels {
			k := 0
			for k < len(list) && before(list[k]) {
				k++
			}
			if k > 0 {
				labels[forID] = list[:k:k]
			}
		}
		n, resumed = m.at, true
		f.walkFrom = m.pos
	}
	for n != nil {
		var cur walkOpen // stays zero for nodes whose children are not walked
		if resumed {
			resumed = false
			goto advance
		}
		switch n.Type {
		case html.TextNode:
			if ctx.flags&(hideMask|flagVisibility) == 0 {
				text.write(n.Data)
			}
		case html.ElementNode, html.DocumentNode:
			cur.n = n
			pushKids := true
			if n.Type == html.ElementNode {
				seq++
				ctx.flags = ownFlags(f, sheet, n, ctx.flags)
				d.info.put(n, nodeInfo{seq: seq, frame: fi, flags: ctx.flags})
				if id := attr(n, "id"); id != "" {
					if _, dup := ids[id]; !dup {
						ids[id] = n
					}
				}
				switch n.DataAtom {
				case atom.Img, atom.Video, atom.Audio:
					media = true
				case atom.Label:
					if forID := attr(n, "for"); forID != "" {
						labels[forID] = append(labels[forID], n)
					}
				case atom.Title:
					if f.index == 0 {
						titles = append(titles, n)
						if d.Title == "" {
							d.Title = strings.TrimSpace(textOf(n))
						}
					}
				case atom.Iframe, atom.Frame:
					iframes++
					if sd := d.iframe(f, n, ctx.flags, inCapture); sd != nil {
						srcdocs = append(srcdocs, sd)
					}
					pushKids = false // its content is another frame
				case atom.Details:
					cur.closed = !f.Live && !hasAttr(n, "open")
				}
				if ctx.flags&hideMask == 0 {
					ctx = d.observeElement(raw, n, seq, ctx)
					switch n.DataAtom {
					case atom.Textarea, atom.Select:
						// their text is a value, not page text; the rest of the
						// walk still indexes them
						ctx.flags |= flagVisibility
					}
					if blockish[n.DataAtom] && pushKids {
						text.flush()
						cur.block = true
					}
				}
			}
			if !pushKids {
				cur = walkOpen{}
				break
			}
			cur.ctx = ctx
			if cur.closed {
				cur.summary = firstSummary(n)
			}
			if n.FirstChild != nil {
				stack = append(stack, cur)
				n = n.FirstChild
				ctx = childCtx(&stack[len(stack)-1], n)
				continue
			}
		}
		if cur.block {
			text.flush() // a block without children ends its line at once
		}
	advance:
		// on to the next sibling, leaving the ancestors that have none
		for {
			if nextMark < len(marks) {
				if m := &marks[nextMark]; n == m.lasts[len(m.lasts)-1] {
					nextMark++
					if iframes == 0 && sameOpen(stack, m.chain) && stack[len(stack)-1].ctx.table == 0 {
						f.walk = append(f.walk, walkMark{pos: m.pos, at: n, stack: slices.Clone(stack), seq: seq,
							text: text.b.Len(), line: text.line, pending: text.pending, cands: len(raw.cands),
							headings: len(raw.headings), tables: len(raw.tables), titles: titles[:len(titles):len(titles)], media: media})
					}
				}
			}
			if len(stack) == 0 {
				n = nil
				break
			}
			if n.NextSibling != nil {
				n = n.NextSibling
				ctx = childCtx(&stack[len(stack)-1], n)
				break
			}
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if p.block {
				text.flush()
			}
			n = p.n
		}
	}
	d.info.flush() // reads after Parse never write
	raw.text = text.String()
	d.media = d.media || media
	return srcdocs
}

// sameOpen reports whether the walk's stack holds exactly the chain of a
// parse mark (the document node, then the open elements).
func sameOpen(stack []walkOpen, chain []*html.Node) bool {
	if len(stack) != len(chain) {
		return false
	}
	for i := range stack {
		if stack[i].n != chain[i] {
			return false
		}
	}
	return true
}

// observeElement records a visible element's part in the observation and
// returns the context its children inherit.
func (d *Document) observeElement(raw *frameRaw, n *html.Node, seq int32, ctx walkCtx) walkCtx {
	role := Role(n)
	visible := ctx.flags&flagVisibility == 0
	switch role {
	case "navigation", "complementary":
		ctx.nav = true
	case "heading":
		if visible {
			raw.headings = append(raw.headings, rawCand{n: n, role: "heading"})
		}
	case "table", "grid", "treegrid":
		raw.tables = append(raw.tables, rawTable{node: n, role: role, parent: ctx.table})
		ctx.table, ctx.row, ctx.inCell = len(raw.tables), 0, false
	case "row":
		if ctx.table > 0 && !ctx.inCell {
			t := &raw.tables[ctx.table-1]
			t.rows = append(t.rows, nil)
			ctx.row = len(t.rows)
		}
	case "cell", "gridcell", "columnheader", "rowheader":
		if ctx.table > 0 && ctx.row > 0 && !ctx.inCell {
			t := &raw.tables[ctx.table-1]
			t.rows[ctx.row-1] = append(t.rows[ctx.row-1], n)
			ctx.inCell = true
		}
	}
	if visible && isCandidateRole(role) && !ctx.editor && !(role == "option" && insideSelect(n)) {
		rc := rawCand{n: n, role: role, seq: seq, nav: ctx.nav}
		rc.class = candClass(rc)
		raw.cands = append(raw.cands, rc)
	}
	if isContentEditable(n) {
		ctx.editor = true // one candidate; its text is still page text
	}
	return ctx
}

// iframe notes an iframe whose document is not in the capture, and returns
// it when it is a plain file's srcdoc iframe (parsed as a frame of its own).
func (d *Document) iframe(f *Frame, n *html.Node, flags uint8, inCapture map[string]bool) *html.Node {
	if name := attr(n, capture.AttrFrame); name != "" && inCapture[name] {
		return nil
	}
	if !f.Live && hasAttr(n, "srcdoc") {
		return n
	}
	if flags&hideMask != 0 {
		return nil // a hidden iframe shows nothing
	}
	src := attr(n, "src")
	reason := "the capture holds no document for this iframe (cross-origin or not loaded)"
	if !f.Live {
		if src == "" || src == "about:blank" {
			return nil // an empty plain iframe holds nothing
		}
		reason = "an iframe with src in a plain HTML file is not loaded"
	}
	d.Unread = append(d.Unread, UnreadFrame{Frame: f.ID, Node: d.NodeID(n), Src: TruncRunes(src, 200), Reason: reason})
	return nil
}

// cellText is the visible text of a cell without the text of tables nested
// in it, bounded.
func (d *Document) cellText(cell *html.Node) string {
	var b strings.Builder
	walk(cell, func(n *html.Node) bool {
		if b.Len() > 4*cellCharsCap {
			return false
		}
		switch n.Type {
		case html.TextNode:
			if d.flags(n.Parent)&(hideMask|flagVisibility) == 0 {
				b.WriteString(n.Data)
			}
		case html.ElementNode:
			if n == cell {
				return true
			}
			if d.info.at(n).flags&hideMask != 0 {
				return false
			}
			switch n.DataAtom {
			case atom.Textarea, atom.Select:
				return false
			}
			switch Role(n) {
			case "table", "grid", "treegrid":
				return false
			}
			if blockish[n.DataAtom] {
				b.WriteByte(' ')
			}
		}
		return true
	})
	return TruncRunes(Normalize(b.String()), cellCharsCap)
}

// textLines accumulates visible text one line per block, white space
// collapsed within lines, without a second pass.
type textLines struct {
	b       strings.Builder
	line    int  // bytes of the current line
	pending bool // a space is owed before the next word
}

func (t *textLines) write(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' {
			t.pending = t.line > 0
			continue
		}
		if c < 0x80 {
			// a run of ASCII words joined by single spaces is copied at
			// once: word by word it would come out the same, each space
			// owed and paid before the next word
			j := i + 1
			for j < len(s) {
				if asciiWordByte[s[j]] {
					j++
				} else if s[j] == ' ' && j+1 < len(s) && asciiWordByte[s[j+1]] {
					j += 2
				} else {
					break
				}
			}
			t.word()
			t.b.WriteString(s[i:j])
			t.line += j - i
			i = j - 1
			continue
		}
		if c >= 0x80 {
			// multi-byte: copy the rune; treat Unicode spaces as spaces
			r, size := utf8.DecodeRuneInString(s[i:])
			if isJSSpace(r) && r != 0xa0 || r == 0x85 {
				t.pending = t.line > 0
				i += size - 1
				continue
			}
			t.word()
			t.b.WriteString(s[i : i+size])
			t.line += size
			i += size - 1
			continue
		}
		t.word()
		t.b.WriteByte(c)
		t.line++
	}
}

// isASCIISpace is the white space textLines collapses (HTML's, without
// \v).
// asciiWordByte marks the ASCII bytes textLines copies as words: all but
// the white space it collapses.
var asciiWordByte = func() (t [256]bool) {
	for c := 0; c < 0x80; c++ {
		t[c] = !isASCIISpace(byte(c))
	}
	return t
}()

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'
}

func (t *textLines) word() {
	if t.line == 0 && t.b.Len() > 0 {
		t.b.WriteByte('\n')
	} else if t.pending {
		t.b.WriteByte(' ')
		t.line++
	}
	t.pending = false
}

func (t *textLines) flush() {
	t.line = 0
	t.pending = false
}

func (t *textLines) String() string { return t.b.String() }
