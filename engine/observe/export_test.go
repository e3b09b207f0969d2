package observe

import "golang.org/x/net/html"

// FastParse exposes the fast tree builder to the differential tests.
var FastParse = fastParse

// Splicer parses a sequence of sources as the engine's reads do: each
// parse resumes the previous source's tree (fastParseTree with prev).
type Splicer struct{ t *fastTree }

// Parse parses src, resuming the last tree when there is one. ok is false
// when the fast builder declined src (html.Parse's to build); from is the
// offset the parse resumed at, -1 when it parsed afresh.
func (s *Splicer) Parse(src string) (root *html.Node, ok bool, from int) {
	if s.t != nil {
		prev := s.t
		s.t = nil
		t, resumed := resumeParse(prev, src)
		if resumed {
			if t == nil {
				return nil, false, 0
			}
			s.t = t
			return t.doc, true, resumedAt(prev, src)
		}
	}
	t, ok := fastParseTree(src, nil, true)
	if !ok {
		return nil, false, -1
	}
	s.t = t
	return t.doc, true, -1
}

// resumedAt is the mark resumeParse took for src.
func resumedAt(prev *fastTree, src string) int {
	common := commonPrefix(prev.src, src)
	at := 0
	for _, m := range prev.marks {
		if m.pos <= common {
			at = m.pos
		}
	}
	return at
}

// SetMarkStep sets the distance between marks (1: at every resumable
// point) until the returned function restores the default.
func SetMarkStep(n int) (restore func()) {
	old := markStepForTest
	markStepForTest = n
	return func() { markStepForTest = old }
}

// Slabs is the number of slabs the tree of frame i spans (0 when
// html.Parse built it).
func (d *Document) Slabs(i int) int {
	if f := d.Frames[i]; f.fast != nil {
		return len(f.fast.slabs)
	}
	return 0
}

// WalkFrom is where the index walk of frame i resumed, -1 when it walked
// the whole frame.
func (d *Document) WalkFrom(i int) int { return d.Frames[i].walkFrom }
