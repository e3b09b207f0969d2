package observe

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
)

// Limits bound what one view returns. Each limit that bites sets its own
// truncation flag and keeps the true total (OBS-3). Per-frame limits apply
// to each frame; merged limits to all frames together (OBS-9). A zero field
// means zero: start from DefaultLimits or PageLimits and change fields.
type Limits struct {
	ElementsMax       int // candidates per frame
	TextCharsMax      int // characters of visible text per frame
	TablesMax         int // tables per frame
	TableRowsMax      int // rows per table
	TableColsMax      int // columns (cells) per row
	TableCellCharsMax int // characters per cell
	HeadingsMax       int // headings per frame

	MergedElementsMax  int // candidates across frames
	MergedTextCharsMax int // characters across frames
	MergedTablesMax    int // tables across frames
	MergedHeadingsMax  int // headings across frames

	SnippetsMax     int // snippets one text search returns
	SnippetCharsMax int // characters of one snippet, the match included

	// Recent says which end a limit keeps when it bites: false keeps the
	// first items in page order (the full view), true the most recent —
	// the end of each frame's text, the last headings and tables, and,
	// within the priority class the element limit cuts, the last
	// candidates in page order (those of the newest turns). Priority
	// between classes (OBS-2) holds either way, and every count and flag
	// is the same: only which items are returned changes.
	Recent bool
}

// DefaultLimits is the full view (SPEC OBS-3). The merged element limit is
// not in the spec; it is the per-frame one, so merging frames never widens
// the list.
var DefaultLimits = Limits{
	ElementsMax:       60,
	TextCharsMax:      4000,
	TablesMax:         4,
	TableRowsMax:      20,
	TableColsMax:      8,
	TableCellCharsMax: 200,
	HeadingsMax:       30,

	MergedElementsMax:  60,
	MergedTextCharsMax: 8000,
	MergedTablesMax:    6,
	MergedHeadingsMax:  40,

	SnippetsMax:     10,
	SnippetCharsMax: 160,
}

// PageLimits is the shorter view the page API's snapshot returns (OBS-4):
// 30 elements and 1,500 characters, per frame and merged; 10 headings and
// 2 tables, so that with the answer groups the engine adds the page view
// of a long chat stays under 8 KB of JSON. It shows the present (Recent):
// the composer and controls first, then the newest turns' controls, the
// end of the text, the last headings and tables.
var PageLimits = Limits{
	ElementsMax:       30,
	TextCharsMax:      1500,
	TablesMax:         2,
	TableRowsMax:      20,
	TableColsMax:      8,
	TableCellCharsMax: 200,
	HeadingsMax:       10,

	MergedElementsMax:  30,
	MergedTextCharsMax: 1500,
	MergedTablesMax:    2,
	MergedHeadingsMax:  10,

	SnippetsMax:     10,
	SnippetCharsMax: 160,

	Recent: true,
}

// DefaultFindLimit and MaxFindLimit bound one page of find results.
const (
	DefaultFindLimit = 20
	MaxFindLimit     = 100
)

// Views name the two bounded views; a snapshot always says which it is.
const (
	ViewFull = "full"
	ViewPage = "page"
)

// Element is one candidate an agent may act on. Its JSON leaves out the
// frame when it is the main frame (the view's bytes are an agent's
// budget); decoding restores it.
type Element struct {
	Ref   string `json:"ref"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	Frame string `json:"frame,omitempty"`
	Group string `json:"group,omitempty"`
	// Context says where the element is, nearest first — its table row
	// or list item (their text), its group or fieldset, the heading it
	// is under and its landmark — so look-alikes (two "Delete" buttons,
	// one per row) can be told apart (AGT-3). Views fill it for
	// elements outside answer groups (a group id already places those),
	// finds and ambiguity errors for every match.
	Context string `json:"context,omitempty"`
	// Order is the element's position among all candidates in page
	// order (frames in document order), from 1: the list itself is in
	// priority order (OBS-2).
	Order    int    `json:"order"`
	Href     string `json:"href,omitempty"`
	Value    string `json:"value,omitempty"`
	Checked  *bool  `json:"checked,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`

	// Node is the stable node id the driver acts on. It is not shown to
	// agents: they act through refs.
	Node string `json:"-"`
	// Sensitive marks password, one-time-code and card fields.
	Sensitive bool `json:"-"`

	value    string // the real value, even for sensitive fields
	node     *html.Node
	class    uint8 // priority class (OBS-2)
	expanded bool  // aria-expanded="true", or an open <details>
	field    bool  // an <input>, <textarea> or <select>
}

// elementJSON is Element's JSON shape.
type elementJSON Element

// MarshalJSON writes the element, its frame left out when it is the main
// frame.
func (e Element) MarshalJSON() ([]byte, error) {
	if e.Frame == capture.MainFrame {
		e.Frame = ""
	}
	return json.Marshal(elementJSON(e))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (e *Element) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, (*elementJSON)(e)); err != nil {
		return err
	}
	if e.Frame == "" {
		e.Frame = capture.MainFrame
	}
	return nil
}

// RealValue is the element's live value, unmasked; only verification uses
// it, and it never goes into a trace.
func (e Element) RealValue() string { return e.value }

// HTMLNode is the parsed element behind the candidate.
func (e Element) HTMLNode() *html.Node { return e.node }

// Expanded reports whether the element says it is expanded:
// aria-expanded="true", or a <details> that is open.
func (e *Element) Expanded() bool { return e.expanded }

// IsFormField reports whether the element is an <input>, <textarea> or
// <select>: the elements that hold a value a user typed or chose.
func (e *Element) IsFormField() bool { return e.field }

// Count is one limit's truncation fact.
type Count struct {
	Returned  int  `json:"returned"`
	Total     int  `json:"total"`
	Truncated bool `json:"truncated"`
}

func (c *Count) add(took bool) {
	c.Total++
	if took {
		c.Returned++
	}
	c.Truncated = c.Returned < c.Total
}

// Heading is one heading of the page. Its JSON leaves out the main
// frame, as an Element's does.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Frame string `json:"frame,omitempty"`
}

type headingJSON Heading

// MarshalJSON writes the heading, its frame left out when it is the main
// frame.
func (h Heading) MarshalJSON() ([]byte, error) {
	if h.Frame == capture.MainFrame {
		h.Frame = ""
	}
	return json.Marshal(headingJSON(h))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (h *Heading) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, (*headingJSON)(h)); err != nil {
		return err
	}
	if h.Frame == "" {
		h.Frame = capture.MainFrame
	}
	return nil
}

// Table is one table (<table> or role table, grid or treegrid) with the
// rows and cells it owns: a nested table's rows belong to the nested table
// only. Rows and Cols say whether the row and column limits bit; Complete
// is false when any did, and no total is ever computed from a partial
// table.
//
// Its JSON leaves out the main frame and, for a complete table, rowCount,
// colCount and complete: a table without them is whole, its rows and
// columns all returned. Decoding restores them.
type Table struct {
	Index    int        `json:"index"` // position among the frame's tables, from 1
	Frame    string     `json:"frame,omitempty"`
	Role     string     `json:"role"`
	Name     string     `json:"name,omitempty"`
	Parent   int        `json:"parent,omitempty"` // Index of the enclosing table, 0 for none
	Rows     [][]string `json:"rows"`
	RowCount Count      `json:"rowCount,omitzero"`
	ColCount Count      `json:"colCount,omitzero"`
	Complete bool       `json:"complete,omitempty"`
}

// tableJSON is Table's JSON shape.
type tableJSON struct {
	Index    int        `json:"index"`
	Frame    string     `json:"frame,omitempty"`
	Role     string     `json:"role"`
	Name     string     `json:"name,omitempty"`
	Parent   int        `json:"parent,omitempty"`
	Rows     [][]string `json:"rows"`
	RowCount *Count     `json:"rowCount,omitempty"`
	ColCount *Count     `json:"colCount,omitempty"`
	Complete *bool      `json:"complete,omitempty"`
}

// MarshalJSON writes the table, its frame left out when it is the main
// frame and its counts left out when it is complete.
func (t Table) MarshalJSON() ([]byte, error) {
	out := tableJSON{Index: t.Index, Frame: t.Frame, Role: t.Role, Name: t.Name, Parent: t.Parent, Rows: t.Rows}
	if out.Frame == capture.MainFrame {
		out.Frame = ""
	}
	if !t.Complete {
		rc, cc, complete := t.RowCount, t.ColCount, false
		out.RowCount, out.ColCount, out.Complete = &rc, &cc, &complete
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote: a table without counts is
// complete, every row and column returned.
func (t *Table) UnmarshalJSON(data []byte) error {
	var in tableJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*t = Table{Index: in.Index, Frame: in.Frame, Role: in.Role, Name: in.Name, Parent: in.Parent, Rows: in.Rows}
	if t.Frame == "" {
		t.Frame = capture.MainFrame
	}
	if in.RowCount == nil && in.ColCount == nil && in.Complete == nil {
		cols := 0
		for _, r := range t.Rows {
			cols = max(cols, len(r))
		}
		t.RowCount = Count{Returned: len(t.Rows), Total: len(t.Rows)}
		t.ColCount = Count{Returned: cols, Total: cols}
		t.Complete = true
		return nil
	}
	if in.RowCount != nil {
		t.RowCount = *in.RowCount
	}
	if in.ColCount != nil {
		t.ColCount = *in.ColCount
	}
	if in.Complete != nil {
		t.Complete = *in.Complete
	}
	return nil
}

// Options are the inputs of an observation that do not come from the
// capture itself.
type Options struct {
	// GroupOf names the answer group an element belongs to ("" for none).
	GroupOf func(*html.Node) string
	// GroupRoots, when set, are the roots of the answer groups GroupOf
	// names (a group of sibling nodes has several): an element's group
	// is that of its nearest ancestor-or-self among them. Observe then
	// finds each candidate's group by its place in document order
	// instead of asking GroupOf, and asks GroupOf only when the roots
	// nest, repeat or are not elements of the document.
	GroupRoots []GroupRoot
}

// GroupRoot is the root node of an answer group, with the group's id.
type GroupRoot struct {
	Node *html.Node
	ID   string
}

// groupSpan is a group root's subtree as the range of document order its
// elements take in their frame.
type groupSpan struct {
	lo, hi int32
	id     string
}

// groupSpans returns, per frame, the subtrees of roots in document order,
// or nil when a root is no element of doc or two subtrees overlap (a root
// inside another, a root given twice under two ids).
func (d *Document) groupSpans(roots []GroupRoot) [][]groupSpan {
	spans := make([][]groupSpan, len(d.Frames))
	for _, r := range roots {
		if r.Node == nil || r.Node.Type != html.ElementNode {
			return nil
		}
		in, ok := d.info.get(r.Node)
		if !ok {
			return nil
		}
		// the subtree's last element in document order
		last := r.Node
		for {
			var c *html.Node
			for c = last.LastChild; c != nil && c.Type != html.ElementNode; c = c.PrevSibling {
			}
			if c == nil {
				break
			}
			last = c
		}
		end, ok := d.info.get(last)
		if !ok || end.frame != in.frame || end.seq < in.seq {
			return nil
		}
		spans[in.frame] = append(spans[in.frame], groupSpan{lo: in.seq, hi: end.seq, id: r.ID})
	}
	for k, list := range spans {
		slices.SortFunc(list, func(a, b groupSpan) int { return int(a.lo) - int(b.lo) })
		out := list[:0]
		for _, s := range list {
			if n := len(out); n > 0 && s.lo <= out[n-1].hi {
				if s == out[n-1] {
					continue // the same root twice (a group's first node and its nodes)
				}
				return nil
			}
			out = append(out, s)
		}
		spans[k] = out
	}
	return spans
}

// groupAt is the id of the span of list holding document order seq.
func groupAt(list []groupSpan, seq int32) string {
	i, _ := slices.BinarySearchFunc(list, seq, func(s groupSpan, seq int32) int { return int(s.lo) - int(seq) })
	// list[i-1] is the last span starting at or before seq (an exact match is list[i])
	if i < len(list) && list[i].lo == seq {
		return list[i].id
	}
	if i > 0 && seq <= list[i-1].hi {
		return list[i-1].id
	}
	return ""
}

// Observation is everything the engine made of one capture: the full,
// prioritised candidate list with snapshot-scoped refs, the headings,
// tables and visible text of every frame. Views, finds and text searches
// are bounded reads of it.
type Observation struct {
	ID    int
	URL   string
	Title string
	Doc   *Document
	All   []Element // every candidate, in priority order

	headings []Heading
	tables   []obsTable
	texts    []frameText
	// containers' text, kept while contexts are computed (Context)
	ctxTexts map[*html.Node]string
}

type frameText struct {
	frame string
	text  string
	raw   *frameRaw // where the text's character count is kept
}

type obsTable struct {
	frame  string
	role   string
	name   string
	parent int // index into tables + 1, 0 for none
	rows   [][]string
}

// runes is the text's character count (runeCount), counted once per
// document.
func (ft frameText) runes() int {
	if ft.raw == nil || ft.raw.text != ft.text {
		return runeCount(ft.text)
	}
	if !ft.raw.counted {
		ft.raw.runes, ft.raw.counted = runeCount(ft.text), true
	}
	return ft.raw.runes
}

// Priority classes (OBS-2): editors, then selectable inputs, then other
// controls, then controls inside navigation and complementary landmarks,
// so neither a long sidebar nor a footer can push the composer or its send
// button out of a bounded view.
const (
	classEditor = iota
	classInput
	classControl
	classNav
)

// cellCharsCap bounds the cell text an observation keeps; views cut it
// further to Limits.TableCellCharsMax.
const cellCharsCap = 1000

// Observe builds the observation with snapshot id id. Refs are "s<id>e<n>"
// so a ref names the snapshot it came from (ID-1). The accessible names it
// computes are kept in doc, so a later observation of doc (or of the
// document ParseAfter makes from it) reuses them: observe one document
// from one goroutine at a time.
func Observe(doc *Document, id int, opts Options) *Observation {
	o := &Observation{ID: id, URL: doc.URL, Title: doc.Title, Doc: doc}
	total := 0
	for _, f := range doc.Frames {
		o.texts = append(o.texts, frameText{frame: f.ID, text: f.raw.text, raw: f.raw})
		total += len(f.raw.cands)
		for i := range f.raw.headings {
			h := &f.raw.headings[i]
			o.headings = append(o.headings, Heading{Level: headingLevel(h.n), Text: doc.candName(h), Frame: f.ID})
		}
		base := len(o.tables)
		for _, t := range f.raw.tables {
			ot := obsTable{frame: f.ID, role: t.role, name: doc.name(t.node, t.role), rows: make([][]string, len(t.rows))}
			if t.parent > 0 {
				ot.parent = base + t.parent
			}
			for i, r := range t.rows {
				ot.rows[i] = make([]string, len(r))
				for k, cell := range r {
					ot.rows[i][k] = doc.cellText(cell)
				}
			}
			o.tables = append(o.tables, ot)
		}
	}
	// Priority order (OBS-2) by a counting sort over the four classes,
	// stable in document order, building each element once in place.
	o.All = make([]Element, 0, total)
	var spans [][]groupSpan
	if opts.GroupRoots != nil {
		spans = doc.groupSpans(opts.GroupRoots)
	}
	groupOf := func(k int, rc *rawCand) string {
		if spans != nil {
			return groupAt(spans[k], rc.seq)
		}
		if opts.GroupOf != nil {
			return opts.GroupOf(rc.n)
		}
		return ""
	}
	var ids idPacker
	prefix := "s" + strconv.Itoa(id) + "e"
	bases := make([]int, len(doc.Frames))
	for k := 1; k < len(doc.Frames); k++ {
		bases[k] = bases[k-1] + len(doc.Frames[k-1].raw.cands)
	}
	for class := uint8(classEditor); class <= classNav; class++ {
		for k, f := range doc.Frames {
			for i := range f.raw.cands {
				rc := &f.raw.cands[i]
				if rc.class != class {
					continue
				}
				o.All = append(o.All, Element{})
				el := &o.All[len(o.All)-1]
				reused := rc.built != nil && rc.named
				if reused {
					// an earlier observation of this document, or of the
					// one ParseAfter took this node over from, built it
					*el = *rc.built
				} else {
					fillElement(el, doc, f, rc)
				}
				el.Group = groupOf(k, rc)
				rc.built = el
				el.class = class
				el.Order = bases[k] + i + 1
				// the ref and (in a plain file) the node id are short
				// strings made for every candidate: packed, they share
				// one allocation per chunk (o.All never moves: its
				// capacity is total)
				ids.b = append(ids.b, prefix...)
				ids.b = strconv.AppendInt(ids.b, int64(len(o.All)), 10)
				ids.add(&el.Ref)
				if reused {
					// the node id came with the element
				} else if v := attr(rc.n, capture.AttrNode); v != "" {
					el.Node = v
				} else {
					// as NodeID: the frame's id and the document order
					ids.b = append(ids.b, f.ID...)
					ids.b = append(ids.b, ':')
					ids.b = strconv.AppendInt(ids.b, int64(rc.seq), 10)
					ids.add(&el.Node)
				}
			}
		}
	}
	ids.flush()
	return o
}

// Reissue returns o as the observation with snapshot id id: the same
// document, candidates, headings, tables and text, with fresh refs
// "s<id>e<n>" (ID-1: every ref of o's snapshot, or any earlier one, is
// then stale, exactly as after Observe). It is Observe(o.Doc, id, opts)
// with o's options, for a page read again unchanged, without computing
// roles, names and values again. o is not changed.
func (o *Observation) Reissue(id int) *Observation {
	r := *o
	r.ID = id
	r.All = make([]Element, len(o.All))
	copy(r.All, o.All)
	var ids idPacker
	prefix := "s" + strconv.Itoa(id) + "e"
	for i := range r.All {
		ids.b = append(ids.b, prefix...)
		ids.b = strconv.AppendInt(ids.b, int64(i+1), 10)
		ids.add(&r.All[i].Ref)
	}
	ids.flush()
	return &r
}

// idPacker builds many short strings into one buffer and gives them a
// shared backing string per chunk of idChunk strings, so a large page
// costs one allocation per chunk instead of one or two per string.
type idPacker struct {
	b    []byte
	dst  []*string
	ends []int
}

const idChunk = 256

// add makes the bytes written since the last add the next string, stored
// into *dst at the next flush.
func (p *idPacker) add(dst *string) {
	p.dst = append(p.dst, dst)
	p.ends = append(p.ends, len(p.b))
	if len(p.dst) == idChunk {
		p.flush()
	}
}

func (p *idPacker) flush() {
	s := string(p.b)
	start := 0
	for i, dst := range p.dst {
		*dst = s[start:p.ends[i]]
		start = p.ends[i]
	}
	p.b, p.dst, p.ends = p.b[:0], p.dst[:0], p.ends[:0]
}

func candClass(rc rawCand) uint8 {
	switch {
	case isEditorRole(rc.role):
		return classEditor
	case isInputRole(rc.role):
		return classInput
	case rc.nav:
		return classNav
	}
	return classControl
}

func fillElement(el *Element, doc *Document, f *Frame, rc *rawCand) {
	n, role := rc.n, rc.role
	*el = Element{Role: role, Name: doc.candName(rc), Frame: f.ID, node: n} // Node: set by Observe
	if role == "link" {
		el.Href = TruncRunes(attr(n, "href"), 2048)
	}
	if isEditorRole(role) {
		el.value = Value(n)
		el.Sensitive = sensitive(n)
		el.Value = TruncRunes(el.value, 2048)
		if el.Sensitive && el.Value != "" {
			el.Value = "********"
		}
	}
	if c, ok := Checked(n); ok {
		el.Checked = &c
	}
	// one pass over the attributes for the flags (the node is in cache
	// now; the loop monitor reads them for every element of every read)
	for _, a := range n.Attr {
		switch a.Key {
		case "disabled":
			el.Disabled = true
		case "aria-disabled":
			el.Disabled = el.Disabled || a.Val == "true"
		case "aria-expanded":
			el.expanded = a.Val == "true"
		case "open":
			el.expanded = el.expanded || n.Data == "details"
		}
	}
	el.field = n.Data == "input" || n.Data == "textarea" || n.Data == "select"
}

func insideSelect(n *html.Node) bool {
	steps := 0
	for p := n.Parent; p != nil && steps < maxAncestors; p = p.Parent {
		steps++
		if p.Type == html.ElementNode && (p.DataAtom == atom.Select || p.DataAtom == atom.Datalist) {
			return true
		}
	}
	return false
}

func headingLevel(n *html.Node) int {
	if v := attr(n, "aria-level"); v != "" {
		if l, err := strconv.Atoi(v); err == nil && l > 0 {
			return l
		}
	}
	switch n.DataAtom {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 2
}

// sensitive reports password, one-time-code and card fields, whose values
// are masked in every view and never traced.
func sensitive(n *html.Node) bool {
	if strings.EqualFold(attr(n, "type"), "password") {
		return true
	}
	ac := strings.ToLower(attr(n, "autocomplete"))
	for _, s := range []string{"password", "one-time-code", "cc-number", "cc-csc", "cc-exp"} {
		if strings.Contains(ac, s) {
			return true
		}
	}
	return false
}

// Snapshot is a bounded view of an observation. It always says which view
// it is; Complete is true only when no limit bit and every frame was read,
// so one view is never presented as the whole page (OBS-4, OBS-7).
type Snapshot struct {
	ID       int    `json:"snapshot"`
	View     string `json:"view"`
	URL      string `json:"url"`
	Title    string `json:"title,omitempty"`
	Complete bool   `json:"complete"`
	// Recent is set when the view keeps the most recent items where a
	// limit bites (Limits.Recent): the text is each frame's end.
	Recent   bool      `json:"recent,omitempty"`
	Elements []Element `json:"elements"`
	Text     string    `json:"text"`
	Headings []Heading `json:"headings"`
	Tables   []Table   `json:"tables"`
	Counts   Counts    `json:"counts"`
	// Frames are each frame's own counts. A view of one main frame read
	// whole leaves them out of its JSON (they equal Counts); decoding
	// restores them (RestoreFrames).
	Frames []FrameFacts  `json:"frames,omitempty"`
	Unread []UnreadFrame `json:"unreadFrames,omitempty"`
	// ClosedRoots are the elements hosting a closed shadow root, whose
	// content no observation holds (named, never read as empty).
	ClosedRoots []ClosedRoot `json:"closedShadowRoots,omitempty"`
}

// Counts are the truncation facts of every limit in a view, merged across
// frames.
type Counts struct {
	Elements Count `json:"elements"`
	Text     Count `json:"text"`
	Headings Count `json:"headings"`
	Tables   Count `json:"tables"`
	Frames   int   `json:"frames"`
	// FramesUnread counts iframes whose document the capture does not
	// hold; left out of the JSON when none.
	FramesUnread int `json:"framesUnread,omitempty"`
}

// FrameFacts are one frame's own counts, before merging.
type FrameFacts struct {
	ID       string `json:"id"`
	Parent   string `json:"parent,omitempty"`
	URL      string `json:"url"`
	Elements Count  `json:"elements"`
	Text     Count  `json:"text"`
	Headings Count  `json:"headings"`
	Tables   Count  `json:"tables"`
	Repaired string `json:"repaired,omitempty"`
}

// Whole reports whether every frame was read whole: no unread iframe and
// no frame cut while parsing.
func (o *Observation) Whole() bool {
	if len(o.Doc.Unread) > 0 {
		return false
	}
	for _, f := range o.Doc.Frames {
		if f.Repaired != "" {
			return false
		}
	}
	return true
}

// View returns the bounded view with the given limits: each frame is cut to
// the per-frame limits, then the frames are merged under the merged limits
// in priority order.
func (o *Observation) View(view string, lim Limits) *Snapshot { return o.view(view, lim, true) }

// TextAndTables is the Text and the Tables of View(ViewFull, lim) alone:
// what a change monitor compares, without the view's elements (their
// copies and contexts) or headings.
func (o *Observation) TextAndTables(lim Limits) (string, []Table) {
	s := o.view(ViewFull, lim, false)
	return s.Text, s.Tables
}

// view builds View's snapshot; without elements it leaves the elements
// and headings out (the text and tables do not depend on them).
func (o *Observation) view(view string, lim Limits, elements bool) *Snapshot {
	s := &Snapshot{ID: o.ID, View: view, URL: o.URL, Title: o.Title,
		Elements: []Element{}, Headings: []Heading{}, Tables: []Table{}, Frames: []FrameFacts{}, Unread: o.Doc.Unread,
		ClosedRoots: o.Doc.ClosedRoots}
	s.Counts.Frames = len(o.Doc.Frames)
	s.Counts.FramesUnread = len(o.Doc.Unread)
	facts := map[string]*FrameFacts{}
	for _, f := range o.Doc.Frames {
		s.Frames = append(s.Frames, FrameFacts{ID: f.ID, Parent: f.Parent, URL: f.URL, Repaired: f.Repaired})
	}
	for i := range s.Frames {
		facts[s.Frames[i].ID] = &s.Frames[i]
	}
	// the elements of a frame mostly follow one another: remember the
	// last frame looked up
	lastFrame, lastFacts := "", (*FrameFacts)(nil)
	factsOf := func(frame string) *FrameFacts {
		if lastFacts == nil || frame != lastFrame {
			lastFrame, lastFacts = frame, facts[frame]
		}
		return lastFacts
	}

	s.Recent = lim.Recent
	if elements {
		o.viewElements(s, lim, factsOf)
	}

	var texts []string
	used := 0
	for _, ft := range o.texts {
		total := ft.runes()
		ff := facts[ft.frame]
		frameTake := min(total, max(lim.TextCharsMax, 0))
		take := min(frameTake, max(lim.MergedTextCharsMax-used, 0))
		ff.Text = Count{Returned: frameTake, Total: total, Truncated: frameTake < total}
		if take > 0 && lim.Recent {
			texts = append(texts, lastRunes(ft.text, take, total))
		} else if take > 0 {
			texts = append(texts, TruncRunes(ft.text, take))
		}
		used += take
		s.Counts.Text.Total += total
	}
	s.Text = strings.Join(texts, "\n")
	s.Counts.Text.Returned = used
	s.Counts.Text.Truncated = used < s.Counts.Text.Total

	if elements {
		hFrames := make([]string, len(o.headings))
		for i, h := range o.headings {
			hFrames[i] = h.Frame
		}
		hFrame, hTook := keep(hFrames, lim.HeadingsMax, lim.MergedHeadingsMax, lim.Recent)
		for i, h := range o.headings {
			facts[h.Frame].Headings.add(hFrame[i])
			s.Counts.Headings.add(hTook[i])
			if hTook[i] {
				s.Headings = append(s.Headings, h)
			}
		}
	}

	tablesComplete := true
	perFrameIndex := map[string]int{}
	globalToLocal := make([]int, len(o.tables))
	tFrames := make([]string, len(o.tables))
	for i, t := range o.tables {
		tFrames[i] = t.frame
	}
	tFrame, tTook := keep(tFrames, lim.TablesMax, lim.MergedTablesMax, lim.Recent)
	for i, t := range o.tables {
		perFrameIndex[t.frame]++
		globalToLocal[i] = perFrameIndex[t.frame]
		facts[t.frame].Tables.add(tFrame[i])
		s.Counts.Tables.add(tTook[i])
		if !tTook[i] {
			continue
		}
		tv := Table{Index: globalToLocal[i], Frame: t.frame, Role: t.role, Name: t.name, Rows: [][]string{}}
		if t.parent > 0 {
			tv.Parent = globalToLocal[t.parent-1]
		}
		cols := 0
		for _, r := range t.rows {
			cols = max(cols, len(r))
		}
		tv.RowCount.Total = len(t.rows)
		tv.ColCount.Total = cols
		for ri, r := range t.rows {
			if ri >= lim.TableRowsMax {
				break
			}
			row := make([]string, 0, min(len(r), max(lim.TableColsMax, 0)))
			for ci, cell := range r {
				if ci >= lim.TableColsMax {
					break
				}
				row = append(row, TruncRunes(cell, max(lim.TableCellCharsMax, 0)))
			}
			tv.Rows = append(tv.Rows, row)
			tv.ColCount.Returned = max(tv.ColCount.Returned, len(row))
		}
		tv.RowCount.Returned = len(tv.Rows)
		tv.RowCount.Truncated = tv.RowCount.Returned < tv.RowCount.Total
		tv.ColCount.Truncated = tv.ColCount.Returned < tv.ColCount.Total
		tv.Complete = !tv.RowCount.Truncated && !tv.ColCount.Truncated
		if !tv.Complete {
			tablesComplete = false
		}
		s.Tables = append(s.Tables, tv)
	}

	s.Complete = !s.Counts.Elements.Truncated && !s.Counts.Text.Truncated && !s.Counts.Headings.Truncated &&
		!s.Counts.Tables.Truncated && tablesComplete && o.Whole()
	return s
}

// keep decides which of a list of items (named by their frames, in page
// order) a view returns: at most perFrame of each frame, then at most
// merged of those. It returns, per item, whether the frame's limit kept it
// and whether it is returned. recent keeps the last items instead of the
// first.
func keep(frames []string, perFrame, merged int, recent bool) (frameTook, took []bool) {
	frameTook, took = make([]bool, len(frames)), make([]bool, len(frames))
	count := map[string]int{}
	if recent {
		for _, f := range frames {
			count[f]++
		}
	}
	seen := map[string]int{}
	kept := 0
	for i, f := range frames {
		pos := seen[f]
		seen[f]++
		if recent {
			frameTook[i] = count[f]-pos <= perFrame
		} else {
			frameTook[i] = pos < perFrame
		}
		if frameTook[i] {
			kept++
		}
	}
	n := 0
	for i := range frames {
		if !frameTook[i] {
			continue
		}
		if recent {
			took[i] = kept-n <= merged
		} else {
			took[i] = n < merged
		}
		n++
	}
	return frameTook, took
}

// recentElements picks the elements of a Recent view: the priority
// classes in order (OBS-2), each taken whole while it fits; the class the
// limit cuts keeps its last candidates in page order. The per-frame limit
// picks within each frame, then the merged limit among those.
func (o *Observation) recentElements(lim Limits) (frameTook, took []bool) {
	frameTook, took = make([]bool, len(o.All)), make([]bool, len(o.All))
	// each element's frame as an index (frames in order of appearance)
	fidx := make([]int32, len(o.All))
	var frames []string
	last, lastK := "", -1
	for i := range o.All {
		if f := o.All[i].Frame; lastK < 0 || f != last {
			if lastK = slices.Index(frames, f); lastK < 0 {
				frames = append(frames, f)
				lastK = len(frames) - 1
			}
			last = f
		}
		fidx[i] = int32(lastK)
	}
	// per frame and class: how many candidates, and each frame's quota
	// per class, classes in priority order
	const classes = classNav + 1
	perClass := make([][classes]int, len(frames))
	for i := range o.All {
		perClass[fidx[i]][o.All[i].class]++
	}
	quota := make([][classes]int, len(frames))
	for k := range frames {
		left := max(lim.ElementsMax, 0)
		for class := range classes {
			quota[k][class] = min(perClass[k][class], left)
			left -= quota[k][class]
		}
	}
	seen := make([][classes]int, len(frames))
	var classTotal [classes]int
	for i := range o.All {
		k, class := fidx[i], o.All[i].class
		pos := seen[k][class]
		seen[k][class]++
		frameTook[i] = perClass[k][class]-pos <= quota[k][class]
		if frameTook[i] {
			classTotal[class]++
		}
	}
	// merged: the same over the frame-kept candidates of every frame
	var mquota [classes]int
	mleft := max(lim.MergedElementsMax, 0)
	for class := range mquota {
		mquota[class] = min(classTotal[class], mleft)
		mleft -= mquota[class]
	}
	var mseen [classes]int
	for i := range o.All {
		if !frameTook[i] {
			continue
		}
		class := o.All[i].class
		took[i] = classTotal[class]-mseen[class] <= mquota[class]
		mseen[class]++
	}
	return frameTook, took
}

// lastRunes returns the last n of s's total characters, walking back
// from the end (an invalid byte is one character, as in runeCount).
func lastRunes(s string, n, total int) string {
	if n >= total {
		return s
	}
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		if s[i-1] < utf8.RuneSelf {
			i--
			continue
		}
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// runeCount counts characters as ranging over s does (an invalid byte is
// one).
func runeCount(s string) int {
	n := 0
	for len(s) > 0 {
		// eight ASCII bytes at a time are eight characters
		for len(s) >= 8 && (s[0]|s[1]|s[2]|s[3]|s[4]|s[5]|s[6]|s[7]) < utf8.RuneSelf {
			n += 8
			s = s[8:]
		}
		if len(s) == 0 {
			break
		}
		if s[0] < utf8.RuneSelf {
			n++
			s = s[1:]
			continue
		}
		_, size := utf8.DecodeRuneInString(s)
		n++
		s = s[size:]
	}
	return n
}

// Query is a find: every field is optional; Name matches exactly after
// whitespace normalisation, Text matches a case-insensitive substring of
// the name or (non-sensitive) value, Href matches exactly.
type Query struct {
	Role   string `json:"role,omitempty"`
	Name   string `json:"name,omitempty"`
	Text   string `json:"text,omitempty"`
	Href   string `json:"href,omitempty"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// Selection are the facts of a find (OBS-5): total candidates in scope,
// how many matched, the page returned and whether more matches follow.
type Selection struct {
	Total   int  `json:"total"`
	Matched int  `json:"matched"`
	Offset  int  `json:"offset"`
	Limit   int  `json:"limit"`
	HasMore bool `json:"hasMore"`
}

// FindResult is one page of matches.
type FindResult struct {
	Selection Selection `json:"selection"`
	Items     []Element `json:"items"`
	// Complete is false when a frame could not be read (or was cut), so an
	// empty result does not prove absence (OBS-7).
	Complete bool `json:"complete"`
}

// ErrFindLimit and ErrFindOffset report bad find arguments.
type findError string

func (e findError) Error() string { return string(e) }

// Find runs q over every candidate of the observation. The scope is the
// whole candidate list, never a bounded view of it.
func (o *Observation) Find(q Query) (FindResult, error) {
	if q.Offset < 0 {
		return FindResult{}, findError("observe: find offset " + strconv.Itoa(q.Offset) + " is negative")
	}
	if q.Limit == 0 {
		q.Limit = DefaultFindLimit
	}
	if q.Limit < 0 || q.Limit > MaxFindLimit {
		return FindResult{}, findError("observe: find limit " + strconv.Itoa(q.Limit) + " outside 1.." + strconv.Itoa(MaxFindLimit))
	}
	name := Normalize(q.Name)
	text := strings.ToLower(Normalize(q.Text))
	r := FindResult{Items: []Element{}, Complete: o.Whole()}
	r.Selection.Total = len(o.All)
	r.Selection.Offset = q.Offset
	r.Selection.Limit = q.Limit
	for _, e := range o.All {
		if q.Role != "" && e.Role != q.Role {
			continue
		}
		if q.Name != "" && e.Name != name {
			continue
		}
		if q.Href != "" && e.Href != q.Href {
			continue
		}
		if text != "" && !strings.Contains(strings.ToLower(e.Name), text) && (e.Sensitive || !strings.Contains(strings.ToLower(e.Value), text)) {
			continue
		}
		r.Selection.Matched++
		if r.Selection.Matched > q.Offset && len(r.Items) < q.Limit {
			e.Context = o.Context(e)
			r.Items = append(r.Items, e)
		}
	}
	r.Selection.HasMore = r.Selection.Matched > q.Offset+len(r.Items)
	return r, nil
}

// ByRef returns the element a ref names in this observation.
func (o *Observation) ByRef(ref string) (Element, bool) {
	if RefSnapshot(ref) != o.ID {
		return Element{}, false
	}
	rest := ref[strings.IndexByte(ref, 'e')+1:]
	i, err := strconv.Atoi(rest)
	if err != nil || i < 1 || i > len(o.All) || o.All[i-1].Ref != ref {
		return Element{}, false
	}
	return o.All[i-1], true
}

// RefSnapshot returns the snapshot id a ref was issued by, or -1 when the
// ref is not of the form s<id>e<n>.
func RefSnapshot(ref string) int {
	rest, ok := strings.CutPrefix(ref, "s")
	if !ok {
		return -1
	}
	sid, n, ok := strings.Cut(rest, "e")
	if !ok {
		return -1
	}
	id, err := strconv.Atoi(sid)
	if err != nil || id < 0 {
		return -1
	}
	if k, err := strconv.Atoi(n); err != nil || k < 1 {
		return -1
	}
	return id
}

// OneFrame reports whether the view's frames say nothing its counts do
// not: one main frame at the view's URL, read whole.
func (s *Snapshot) OneFrame() bool {
	if len(s.Frames) != 1 || len(s.Unread) > 0 {
		return false
	}
	f := s.Frames[0]
	return f.ID == capture.MainFrame && f.Parent == "" && f.URL == s.URL && f.Repaired == ""
}

// RestoreFrames puts back the one frame's facts a view's JSON left out
// (see OneFrame).
func (s *Snapshot) RestoreFrames() {
	if len(s.Frames) == 0 && s.Counts.Frames == 1 && s.Counts.FramesUnread == 0 {
		s.Frames = []FrameFacts{{ID: capture.MainFrame, URL: s.URL, Elements: s.Counts.Elements, Text: s.Counts.Text,
			Headings: s.Counts.Headings, Tables: s.Counts.Tables}}
	}
}

// viewElements puts the view's elements into s under lim, counting them in
// the frames' facts.
func (o *Observation) viewElements(s *Snapshot, lim Limits, factsOf func(string) *FrameFacts) {
	var frameTook, took []bool
	if lim.Recent {
		frameTook, took = o.recentElements(lim)
	}
	for i := range o.All {
		e := &o.All[i] // elements are large: copied only into the view
		ff := factsOf(e.Frame)
		var ft, mt bool
		if lim.Recent {
			ft, mt = frameTook[i], took[i]
		} else {
			ft = ff.Elements.Returned < lim.ElementsMax
			mt = ft && len(s.Elements) < lim.MergedElementsMax
		}
		ff.Elements.add(ft)
		s.Counts.Elements.add(mt)
		if mt {
			s.Elements = append(s.Elements, *e)
			if e.Group == "" {
				s.Elements[len(s.Elements)-1].Context = o.Context(*e)
			}
		}
	}
}
