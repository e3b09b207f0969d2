package observe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Limits bound what one observation returns. Every limit that bites sets
// its own truncation flag and keeps the true total (OBS-3). Per-frame limits
// apply to each frame; merged limits to all frames together.
type Limits struct {
	ElementsMax  int // candidates per frame
	TextCharsMax int // characters of text per frame
	TablesMax    int // tables per frame
	TableRowsMax int // rows per table
	TableColsMax int // columns per table
	HeadingsMax  int // headings per frame

	MergedElementsMax  int
	MergedTextCharsMax int
	MergedTablesMax    int
	MergedHeadingsMax  int
}

// DefaultLimits is the full view (SPEC OBS-3).
var DefaultLimits = Limits{
	ElementsMax:  60,
	TextCharsMax: 4000,
	TablesMax:    4,
	TableRowsMax: 20,
	TableColsMax: 8,
	HeadingsMax:  30,

	MergedElementsMax:  60,
	MergedTextCharsMax: 8000,
	MergedTablesMax:    6,
	MergedHeadingsMax:  40,
}

// PageLimits is the shorter view the page API's snapshot returns (OBS-4).
var PageLimits = Limits{
	ElementsMax:  30,
	TextCharsMax: 1500,
	TablesMax:    4,
	TableRowsMax: 20,
	TableColsMax: 8,
	HeadingsMax:  30,

	MergedElementsMax:  30,
	MergedTextCharsMax: 1500,
	MergedTablesMax:    6,
	MergedHeadingsMax:  40,
}

// Views name the two bounded views; a snapshot always says which it is.
const (
	ViewFull = "full"
	ViewPage = "page"
)

// Element is one candidate an agent may act on.
type Element struct {
	Ref      string `json:"ref"`
	Role     string `json:"role"`
	Name     string `json:"name"`
	Frame    string `json:"frame"`
	Group    string `json:"group,omitempty"`
	Href     string `json:"href,omitempty"`
	Value    string `json:"value,omitempty"`
	Checked  *bool  `json:"checked,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`

	// Node is the stable node id the driver acts on. It is not shown to
	// agents: they act through refs.
	Node string `json:"-"`
	// Sensitive marks password, one-time-code and card fields.
	Sensitive bool `json:"-"`

	value string // the real value, even for sensitive fields
	node  *html.Node
}

// RealValue is the element's live value, unmasked; only verification uses
// it, and it never goes into a trace.
func (e Element) RealValue() string { return e.value }

// HTMLNode is the parsed element behind the candidate.
func (e Element) HTMLNode() *html.Node { return e.node }

// Count is one limit's truncation fact.
type Count struct {
	Returned  int  `json:"returned"`
	Total     int  `json:"total"`
	Truncated bool `json:"truncated"`
}

// Heading is one heading of the page.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Frame string `json:"frame"`
}

// Options are the inputs of an observation that do not come from the
// capture itself.
type Options struct {
	// GroupOf names the answer group an element belongs to ("" for none).
	GroupOf func(*html.Node) string
}

// Observation is everything the engine made of one capture: the full,
// prioritised candidate list with snapshot-scoped refs. Views and finds are
// bounded reads of it.
type Observation struct {
	ID       int
	URL      string
	Title    string
	Doc      *Document
	All      []Element // every candidate, in priority order
	headings []Heading
	texts    []frameText
}

type frameText struct {
	frame string
	text  string
}

// Observe builds the observation with snapshot id id. Refs are "s<id>e<n>"
// so a ref names the snapshot it came from (ID-1).
func Observe(doc *Document, id int, opts Options) *Observation {
	o := &Observation{ID: id, URL: doc.URL, Title: doc.Title, Doc: doc}
	type cand struct {
		el    Element
		class int
		order int
	}
	var cands []cand
	order := 0
	for _, f := range doc.Frames {
		walk(f.Root, func(n *html.Node) bool {
			if n.Type != html.ElementNode {
				return true
			}
			if hiddenFromRender(n) || ariaHidden(n) {
				return false // hidden subtrees hold no candidates
			}
			role := Role(n)
			if role == "heading" {
				o.headings = append(o.headings, Heading{Level: headingLevel(n), Text: doc.Name(n), Frame: f.ID})
			}
			if !candidateRoles[role] || (role == "option" && insideSelect(n)) {
				return true
			}
			el := Element{Role: role, Name: doc.Name(n), Frame: f.ID, Node: doc.NodeID(n), node: n}
			if role == "link" {
				el.Href = attr(n, "href")
			}
			if editorRoles[role] {
				el.value = Value(n)
				el.Sensitive = sensitive(n)
				el.Value = el.value
				if el.Sensitive && el.Value != "" {
					el.Value = "********"
				}
			}
			if c, ok := Checked(n); ok {
				el.Checked = &c
			}
			el.Disabled = hasAttr(n, "disabled") || attr(n, "aria-disabled") == "true"
			if opts.GroupOf != nil {
				el.Group = opts.GroupOf(n)
			}
			class := 2
			switch {
			case editorRoles[role]:
				class = 0
			case inputRoles[role]:
				class = 1
			}
			order++
			cands = append(cands, cand{el: el, class: class, order: order})
			// A contenteditable editor is one candidate, not one per child.
			return !isContentEditable(n)
		})
		o.texts = append(o.texts, frameText{frame: f.ID, text: visibleText(f.Root)})
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].class != cands[j].class {
			return cands[i].class < cands[j].class
		}
		return cands[i].order < cands[j].order
	})
	for i, c := range cands {
		c.el.Ref = "s" + strconv.Itoa(id) + "e" + strconv.Itoa(i+1)
		o.All = append(o.All, c.el)
	}
	return o
}

func insideSelect(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && (p.DataAtom == atom.Select || p.DataAtom == atom.Datalist) {
			return true
		}
	}
	return false
}

func headingLevel(n *html.Node) int {
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
	if l, err := strconv.Atoi(attr(n, "aria-level")); err == nil && l > 0 {
		return l
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

// visibleText is the visible text of a frame, one line per block,
// whitespace collapsed within lines.
func visibleText(root *html.Node) string {
	var lines []string
	var cur strings.Builder
	flush := func() {
		if s := Normalize(cur.String()); s != "" {
			lines = append(lines, s)
		}
		cur.Reset()
	}
	var rec func(n *html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				cur.WriteString(c.Data)
			case html.ElementNode:
				if hiddenFromRender(c) || ariaHidden(c) {
					continue
				}
				block := blockish[c.DataAtom]
				if block {
					flush()
				}
				if c.DataAtom == atom.Textarea || c.DataAtom == atom.Select {
					continue // their text is a value, not page text
				}
				rec(c)
				if block {
					flush()
				}
			}
		}
	}
	rec(root)
	flush()
	return strings.Join(lines, "\n")
}

// Snapshot is a bounded view of an observation.
type Snapshot struct {
	ID       int       `json:"snapshot"`
	View     string    `json:"view"`
	URL      string    `json:"url"`
	Title    string    `json:"title,omitempty"`
	Complete bool      `json:"complete"`
	Elements []Element `json:"elements"`
	Text     string    `json:"text"`
	Headings []Heading `json:"headings"`
	Counts   Counts    `json:"counts"`
}

// Counts are the truncation facts of every limit in a view.
type Counts struct {
	Elements Count `json:"elements"`
	Text     Count `json:"text"`
	Headings Count `json:"headings"`
	Frames   int   `json:"frames"`
}

// View returns the bounded view with the given limits. The view is complete
// only when no limit bit; otherwise Complete is false and each Count says
// which limit bit and what the true total was.
func (o *Observation) View(view string, lim Limits) *Snapshot {
	s := &Snapshot{ID: o.ID, View: view, URL: o.URL, Title: o.Title, Elements: []Element{}, Headings: []Heading{}}
	s.Counts.Frames = len(o.Doc.Frames)

	perFrame := map[string]int{}
	for _, e := range o.All {
		s.Counts.Elements.Total++
		if perFrame[e.Frame] >= lim.ElementsMax || len(s.Elements) >= lim.MergedElementsMax {
			continue
		}
		perFrame[e.Frame]++
		s.Elements = append(s.Elements, e)
	}
	s.Counts.Elements.Returned = len(s.Elements)
	s.Counts.Elements.Truncated = s.Counts.Elements.Returned < s.Counts.Elements.Total

	var texts []string
	used := 0
	for _, ft := range o.texts {
		total := len([]rune(ft.text))
		s.Counts.Text.Total += total
		take := min(total, lim.TextCharsMax, max(lim.MergedTextCharsMax-used, 0))
		if take > 0 {
			texts = append(texts, string([]rune(ft.text)[:take]))
		}
		used += take
	}
	s.Text = strings.Join(texts, "\n")
	s.Counts.Text.Returned = used
	s.Counts.Text.Truncated = used < s.Counts.Text.Total

	hFrame := map[string]int{}
	for _, h := range o.headings {
		s.Counts.Headings.Total++
		if hFrame[h.Frame] >= lim.HeadingsMax || len(s.Headings) >= lim.MergedHeadingsMax {
			continue
		}
		hFrame[h.Frame]++
		s.Headings = append(s.Headings, h)
	}
	s.Counts.Headings.Returned = len(s.Headings)
	s.Counts.Headings.Truncated = s.Counts.Headings.Returned < s.Counts.Headings.Total

	s.Complete = !s.Counts.Elements.Truncated && !s.Counts.Text.Truncated && !s.Counts.Headings.Truncated
	return s
}

// Query is a find: every field is optional; Name matches exactly after
// whitespace normalisation, Text matches a case-insensitive substring of
// the name or value, Href matches exactly.
type Query struct {
	Role   string `json:"role,omitempty"`
	Name   string `json:"name,omitempty"`
	Text   string `json:"text,omitempty"`
	Href   string `json:"href,omitempty"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// DefaultFindLimit and MaxFindLimit bound one page of find results.
const (
	DefaultFindLimit = 20
	MaxFindLimit     = 100
)

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
	// Complete is false when a frame could not be read, so an empty result
	// does not prove absence (OBS-7).
	Complete bool `json:"complete"`
}

// Find runs q over every candidate of the observation.
func (o *Observation) Find(q Query) (FindResult, error) {
	if q.Offset < 0 {
		return FindResult{}, fmt.Errorf("observe: find offset %d is negative", q.Offset)
	}
	if q.Limit == 0 {
		q.Limit = DefaultFindLimit
	}
	if q.Limit < 0 || q.Limit > MaxFindLimit {
		return FindResult{}, fmt.Errorf("observe: find limit %d outside 1..%d", q.Limit, MaxFindLimit)
	}
	name := Normalize(q.Name)
	text := strings.ToLower(Normalize(q.Text))
	r := FindResult{Items: []Element{}, Complete: true}
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
		if text != "" && !strings.Contains(strings.ToLower(e.Name), text) && !(strings.Contains(strings.ToLower(e.Value), text) && !e.Sensitive) {
			continue
		}
		r.Selection.Matched++
		if r.Selection.Matched > q.Offset && len(r.Items) < q.Limit {
			r.Items = append(r.Items, e)
		}
	}
	r.Selection.HasMore = r.Selection.Matched > q.Offset+len(r.Items)
	return r, nil
}

// ByRef returns the element a ref names in this observation.
func (o *Observation) ByRef(ref string) (Element, bool) {
	for _, e := range o.All {
		if e.Ref == ref {
			return e, true
		}
	}
	return Element{}, false
}

// RefSnapshot returns the snapshot id a ref was issued by, or -1 when the
// ref is not of the form s<id>e<n>.
func RefSnapshot(ref string) int {
	rest, ok := strings.CutPrefix(ref, "s")
	if !ok {
		return -1
	}
	sid, _, ok := strings.Cut(rest, "e")
	if !ok {
		return -1
	}
	id, err := strconv.Atoi(sid)
	if err != nil {
		return -1
	}
	return id
}
