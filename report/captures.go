package report

import (
	"crypto/sha256"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// The captures of every session of a run are stored once each in
// Run.Captures (equal captures of different scenarios share an entry),
// each frame either whole or as a delta against the same frame of the
// capture recorded before it in its session: the page decodes a capture
// only when it is shown. Deltas count UTF-16 code units, the unit of a
// JavaScript string.

// Session is one tab's recorded session in the report: its steps, with
// captures as indexes into Run.Captures.
type Session struct {
	Steps []SessionStep `json:"steps"`
}

// SessionStep is one recorded step: what the fixture's session format
// recorded (an action, a capture), its capture an index into the
// session's captures when added (AddSession) and into Run.Captures once
// stored; -1 for none.
type SessionStep struct {
	AtMS    int64  `json:"at"`
	Kind    string `json:"kind"`
	Capture int    `json:"capture"` // index into Run.Captures; -1 for actions
	Node    string `json:"node,omitempty"`
	URL     string `json:"url,omitempty"`
	Text    string `json:"text,omitempty"`
	Key     string `json:"key,omitempty"`
}

// StoredCapture is one capture as the report stores it.
type StoredCapture struct {
	URL    string        `json:"url"`
	Title  string        `json:"title,omitempty"`
	Frames []StoredFrame `json:"frames"`
	View   CaptureView   `json:"view"`
}

// StoredFrame is a frame whole (HTML) or as a delta (Base, Prefix,
// Middle, Suffix): the frame at the same index of capture Base, its first
// Prefix and last Suffix code units around Middle.
type StoredFrame struct {
	ID     string  `json:"id"`
	Parent string  `json:"parent,omitempty"`
	Owner  string  `json:"owner,omitempty"`
	URL    string  `json:"url,omitempty"`
	HTML   *string `json:"html,omitempty"`
	Base   int     `json:"base,omitempty"`
	Prefix int     `json:"p,omitempty"`
	Middle string  `json:"m,omitempty"`
	Suffix int     `json:"s,omitempty"`
}

// Page is one capture of a session as the fixture hands it to the
// report: the page's URL, title and frames.
type Page struct {
	URL    string
	Title  string
	Frames []PageFrame
}

// PageFrame is one frame of a Page: its ids, URL and HTML.
type PageFrame struct {
	ID, Parent, Owner, URL string
	HTML                   string
}

// captureTable dedupes captures while a run is collected.
type captureTable struct {
	index map[[32]byte]int
	whole []*Page // for deltas
}

// AddSession stores a session under key: its pages (captures), each
// distinct one once, viewed with view(i) for pages[i] (the engine's
// bounded snapshot and answer groups; nil: none), and its steps, whose
// Capture indexes pages.
func (r *Run) AddSession(key string, pages []*Page, steps []SessionStep, view func(i int) CaptureView) {
	if r.Sessions == nil {
		r.Sessions = map[string]*Session{}
	}
	if r.table == nil {
		r.table = &captureTable{index: map[[32]byte]int{}}
		for range r.Captures {
			r.table.whole = append(r.table.whole, nil)
		}
	}
	local := make([]int, len(pages))
	prev := -1
	for i, c := range pages {
		h := captureHash(c)
		if g, ok := r.table.index[h]; ok {
			local[i] = g
			prev = g
			continue
		}
		sc := StoredCapture{URL: c.URL, Title: c.Title}
		if view != nil {
			sc.View = view(i)
		}
		for fi, f := range c.Frames {
			sf := StoredFrame{ID: f.ID, Parent: f.Parent, Owner: f.Owner, URL: f.URL}
			if prev >= 0 && fi < len(r.table.whole[prev].Frames) {
				if p, m, sfx, ok := delta(r.table.whole[prev].Frames[fi].HTML, f.HTML); ok {
					sf.Base, sf.Prefix, sf.Middle, sf.Suffix = prev, p, m, sfx
				}
			}
			if sf.Prefix == 0 && sf.Suffix == 0 {
				html := f.HTML
				sf.HTML = &html
			}
			sc.Frames = append(sc.Frames, sf)
		}
		g := len(r.Captures)
		r.Captures = append(r.Captures, sc)
		r.table.whole = append(r.table.whole, c)
		r.table.index[h] = g
		local[i] = g
		prev = g
	}
	out := &Session{}
	for _, ss := range steps {
		c := ss.Capture
		ss.Capture = -1
		if c >= 0 && c < len(local) {
			ss.Capture = local[c]
		}
		out.Steps = append(out.Steps, ss)
	}
	r.Sessions[key] = out
}

func captureHash(c *Page) [32]byte {
	h := sha256.New()
	h.Write([]byte(c.URL + "\x00" + c.Title + "\x00"))
	for _, f := range c.Frames {
		h.Write([]byte(f.ID + "\x00" + f.Parent + "\x00" + f.Owner + "\x00" + f.URL + "\x00" + f.HTML + "\x00"))
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// minDeltaSaving: a delta is stored only when it saves this many bytes.
const minDeltaSaving = 256

// delta returns next as prefix and suffix of prev (in UTF-16 code units)
// around middle.
func delta(prev, next string) (prefix int, middle string, suffix int, ok bool) {
	p := 0
	for p < len(prev) && p < len(next) && prev[p] == next[p] {
		p++
	}
	for p > 0 && (p < len(next) && !utf8.RuneStart(next[p]) || p < len(prev) && !utf8.RuneStart(prev[p])) {
		p--
	}
	s := 0
	for s < len(prev)-p && s < len(next)-p && prev[len(prev)-1-s] == next[len(next)-1-s] {
		s++
	}
	for s > 0 && (!utf8.RuneStart(next[len(next)-s]) || !utf8.RuneStart(prev[len(prev)-s])) {
		s--
	}
	middle = next[p : len(next)-s]
	if len(next)-len(middle) < minDeltaSaving || (p == 0 && s == 0) {
		return 0, "", 0, false
	}
	return utf16Len(prev[:p]), middle, utf16Len(prev[len(prev)-s:]), true
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

// CaptureHTML rebuilds frame fi of stored capture i, as the page does.
func (r *Run) CaptureHTML(i, fi int) (string, error) {
	return r.captureHTML(i, fi, 0)
}

func (r *Run) captureHTML(i, fi, depth int) (string, error) {
	if i < 0 || i >= len(r.Captures) || fi < 0 || fi >= len(r.Captures[i].Frames) {
		return "", fmt.Errorf("report: no frame %d of capture %d", fi, i)
	}
	if depth > len(r.Captures) {
		return "", fmt.Errorf("report: capture %d: deltas loop", i)
	}
	f := r.Captures[i].Frames[fi]
	if f.HTML != nil {
		return *f.HTML, nil
	}
	prev, err := r.captureHTML(f.Base, fi, depth+1)
	if err != nil {
		return "", err
	}
	u := utf16.Encode([]rune(prev))
	if f.Prefix < 0 || f.Suffix < 0 || f.Prefix+f.Suffix > len(u) {
		return "", fmt.Errorf("report: capture %d frame %d: delta %d+%d exceeds %d code units", i, fi, f.Prefix, f.Suffix, len(u))
	}
	out := append(append(append([]uint16{}, u[:f.Prefix]...), utf16.Encode([]rune(f.Middle))...), u[len(u)-f.Suffix:]...)
	return string(utf16.Decode(out)), nil
}
