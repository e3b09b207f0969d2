package browser

import (
	"errors"
	"slices"
	"strconv"
	"sync/atomic"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"
)

// decodeSnapshot reads a DOMSnapshot.captureSnapshot reply into the
// fields a capture uses (fromSnapshot), several times faster than the
// generated decoder and with a few large allocations instead of one per
// node: the per-node lists (attributes, computed styles, bounds) are
// carved out of one backing array each, and the parts a capture does not
// use (text boxes, layout text, stacking contexts, paint orders, …) are
// skipped without being decoded. Anything it does not expect is an error;
// the caller then decodes the reply with the generated decoder.
func decodeSnapshot(b []byte) (*domsnapshot.CaptureSnapshotResult, error) {
	s := &scanner{b: b}
	res := &domsnapshot.CaptureSnapshotResult{}
	s.object(func(key string) {
		switch key {
		case "documents":
			s.array(func() {
				d := &domsnapshot.DocumentSnapshot{}
				s.document(d)
				res.Documents = append(res.Documents, d)
			})
		case "strings":
			s.array(func() { res.Strings = append(res.Strings, s.str()) })
		default:
			s.skip()
		}
	})
	s.ws()
	if s.err == nil && s.i != len(s.b) {
		s.fail()
	}
	if s.err != nil {
		return nil, s.err
	}
	return res, nil
}

var errSnapshotJSON = errors.New("browser: unexpected snapshot JSON")

// scanner reads JSON; the first error sticks and stops it.
type scanner struct {
	b   []byte
	i   int
	err error
}

func (s *scanner) fail() {
	if s.err == nil {
		s.err = errSnapshotJSON
	}
	s.i = len(s.b)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips whitespace and returns the next byte (0 at the end).
func (s *scanner) next() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte) {
	if s.next() != c {
		s.fail()
		return
	}
	s.i++
}

// object calls fn for every key of an object, with the scanner at the
// key's value; fn must read or skip it.
func (s *scanner) object(fn func(key string)) {
	s.expect('{')
	if s.next() == '}' {
		s.i++
		return
	}
	for s.err == nil {
		key := s.str()
		s.expect(':')
		fn(key)
		switch s.next() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.fail()
		}
	}
}

// array calls fn for every element of an array.
func (s *scanner) array(fn func()) {
	s.expect('[')
	if s.next() == ']' {
		s.i++
		return
	}
	for s.err == nil {
		fn()
		switch s.next() {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.fail()
		}
	}
}

func (s *scanner) number() []byte {
	s.ws()
	j := s.i
	for j < len(s.b) {
		c := s.b[j]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9' {
			j++
			continue
		}
		break
	}
	if j == s.i {
		s.fail()
		return nil
	}
	n := s.b[s.i:j]
	s.i = j
	return n
}

func (s *scanner) int() int64 {
	n := s.number()
	if s.err != nil {
		return 0
	}
	var v int64
	neg := false
	k := 0
	if n[0] == '-' {
		neg, k = true, 1
	}
	if k == len(n) || len(n)-k > 18 {
		s.fail()
		return 0
	}
	for ; k < len(n); k++ {
		c := n[k]
		if c < '0' || c > '9' {
			s.fail()
			return 0
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v
}

func (s *scanner) float() float64 {
	n := s.number()
	if s.err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		s.fail()
	}
	return v
}

func (s *scanner) str() string {
	if s.next() != '"' {
		s.fail()
		return ""
	}
	j := s.i + 1
	esc := false
	for j < len(s.b) && s.b[j] != '"' {
		if s.b[j] == '\\' {
			esc = true
			j++
		} else if s.b[j] < 0x20 {
			s.fail()
			return ""
		}
		j++
	}
	if j >= len(s.b) {
		s.fail()
		return ""
	}
	raw := s.b[s.i+1 : j]
	s.i = j + 1
	if !utf8.Valid(raw) {
		s.fail()
		return ""
	}
	if !esc {
		return string(raw)
	}
	v, ok := unescape(raw)
	if !ok {
		s.fail()
	}
	return v
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// skip skips one value of any kind.
func (s *scanner) skip() {
	switch s.next() {
	case '{':
		s.object(func(string) { s.skip() })
	case '[':
		s.array(s.skip)
	case '"':
		s.str()
	case 't':
		s.word("true")
	case 'f':
		s.word("false")
	case 'n':
		s.word("null")
	default:
		s.number()
	}
}

func (s *scanner) word(w string) {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		s.fail()
		return
	}
	s.i += len(w)
}

// list reads an array of integers as T.
func list[T ~int64](s *scanner) []T {
	var out []T
	s.array(func() { out = append(out, T(s.int())) })
	return out
}

// nested reads an array of arrays of E (read reads one) into one backing
// array, each inner array a capped slice of it.
func nested[E any, L ~[]E](s *scanner, read func(*scanner) E) []L {
	var flat []E
	var ends []int
	s.array(func() {
		s.array(func() { flat = append(flat, read(s)) })
		ends = append(ends, len(flat))
	})
	out := make([]L, len(ends))
	from := 0
	for k, e := range ends {
		out[k] = flat[from:e:e]
		from = e
	}
	return out
}

// rare reads a rare-data object: its index list into index and, when
// value is not nil, its value list into value; other keys are skipped.
func rare[V ~int64](s *scanner, index *[]int64, value *[]V) {
	s.object(func(key string) {
		switch {
		case key == "index":
			*index = list[int64](s)
		case key == "value" && value != nil:
			*value = list[V](s)
		default:
			s.skip()
		}
	})
}

func (s *scanner) rareStrings() *domsnapshot.RareStringData {
	r := &domsnapshot.RareStringData{}
	rare(s, &r.Index, &r.Value)
	return r
}

func (s *scanner) rareBools() *domsnapshot.RareBooleanData {
	r := &domsnapshot.RareBooleanData{}
	rare[int64](s, &r.Index, nil)
	return r
}

func (s *scanner) rareInts() *domsnapshot.RareIntegerData {
	r := &domsnapshot.RareIntegerData{}
	rare(s, &r.Index, &r.Value)
	return r
}

func (s *scanner) document(d *domsnapshot.DocumentSnapshot) {
	s.object(func(key string) {
		switch key {
		case "documentURL":
			d.DocumentURL = domsnapshot.StringIndex(s.int())
		case "title":
			d.Title = domsnapshot.StringIndex(s.int())
		case "nodes":
			d.Nodes = &domsnapshot.NodeTreeSnapshot{}
			s.nodes(d.Nodes)
		case "layout":
			d.Layout = &domsnapshot.LayoutTreeSnapshot{}
			s.layout(d.Layout)
		default:
			s.skip()
		}
	})
}

func (s *scanner) nodes(n *domsnapshot.NodeTreeSnapshot) {
	s.object(func(key string) {
		switch key {
		case "parentIndex":
			n.ParentIndex = list[int64](s)
		case "nodeType":
			n.NodeType = list[int64](s)
		case "shadowRootType":
			n.ShadowRootType = s.rareStrings()
		case "nodeName":
			n.NodeName = list[domsnapshot.StringIndex](s)
		case "nodeValue":
			n.NodeValue = list[domsnapshot.StringIndex](s)
		case "backendNodeId":
			n.BackendNodeID = list[cdp.BackendNodeID](s)
		case "attributes":
			n.Attributes = nested[int64, domsnapshot.ArrayOfStrings](s, (*scanner).int)
		case "textValue":
			n.TextValue = s.rareStrings()
		case "inputValue":
			n.InputValue = s.rareStrings()
		case "inputChecked":
			n.InputChecked = s.rareBools()
		case "optionSelected":
			n.OptionSelected = s.rareBools()
		case "contentDocumentIndex":
			n.ContentDocumentIndex = s.rareInts()
		case "pseudoType":
			n.PseudoType = s.rareStrings()
		case "currentSourceURL":
			n.CurrentSourceURL = s.rareStrings()
		default:
			s.skip()
		}
	})
}

func (s *scanner) layout(l *domsnapshot.LayoutTreeSnapshot) {
	s.object(func(key string) {
		switch key {
		case "nodeIndex":
			l.NodeIndex = list[int64](s)
		case "styles":
			l.Styles = nested[int64, domsnapshot.ArrayOfStrings](s, (*scanner).int)
		case "bounds":
			l.Bounds = nested[float64, domsnapshot.Rectangle](s, (*scanner).float)
		default:
			s.skip()
		}
	})
}

// checkDecode makes every snapshot decode the reply with the generated
// decoder too and fail when the two disagree on a field a capture uses
// (the tests turn it on).
var checkDecode atomic.Bool

// sameSnapshot compares the fields decodeSnapshot reads.
func sameSnapshot(a, b *domsnapshot.CaptureSnapshotResult) bool {
	if !slices.Equal(a.Strings, b.Strings) || len(a.Documents) != len(b.Documents) {
		return false
	}
	rs := func(x, y *domsnapshot.RareStringData) bool {
		if x == nil || y == nil {
			return (x == nil || len(x.Index) == 0) && (y == nil || len(y.Index) == 0)
		}
		return slices.Equal(x.Index, y.Index) && slices.Equal(x.Value, y.Value)
	}
	rb := func(x, y *domsnapshot.RareBooleanData) bool {
		if x == nil || y == nil {
			return (x == nil || len(x.Index) == 0) && (y == nil || len(y.Index) == 0)
		}
		return slices.Equal(x.Index, y.Index)
	}
	for k, x := range a.Documents {
		y := b.Documents[k]
		if x.DocumentURL != y.DocumentURL || x.Title != y.Title || (x.Nodes == nil) != (y.Nodes == nil) || (x.Layout == nil) != (y.Layout == nil) {
			return false
		}
		if n, m := x.Nodes, y.Nodes; n != nil {
			ci := n.ContentDocumentIndex == nil && m.ContentDocumentIndex == nil ||
				n.ContentDocumentIndex != nil && m.ContentDocumentIndex != nil &&
					slices.Equal(n.ContentDocumentIndex.Index, m.ContentDocumentIndex.Index) && slices.Equal(n.ContentDocumentIndex.Value, m.ContentDocumentIndex.Value)
			if !slices.Equal(n.ParentIndex, m.ParentIndex) || !slices.Equal(n.NodeType, m.NodeType) || !slices.Equal(n.NodeName, m.NodeName) ||
				!slices.Equal(n.NodeValue, m.NodeValue) || !slices.Equal(n.BackendNodeID, m.BackendNodeID) ||
				!slices.EqualFunc(n.Attributes, m.Attributes, slices.Equal) || !rs(n.ShadowRootType, m.ShadowRootType) ||
				!rs(n.TextValue, m.TextValue) || !rs(n.InputValue, m.InputValue) || !rb(n.InputChecked, m.InputChecked) ||
				!rb(n.OptionSelected, m.OptionSelected) || !rs(n.PseudoType, m.PseudoType) || !rs(n.CurrentSourceURL, m.CurrentSourceURL) || !ci {
				return false
			}
		}
		if l, m := x.Layout, y.Layout; l != nil {
			if !slices.Equal(l.NodeIndex, m.NodeIndex) || !slices.EqualFunc(l.Styles, m.Styles, slices.Equal) || !slices.EqualFunc(l.Bounds, m.Bounds, slices.Equal) {
				return false
			}
		}
	}
	return true
}
