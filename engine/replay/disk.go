package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/replaylab/replaylab/engine/capture"
)

// On disk, a capture's frame may be stored as a delta against the same
// frame of the capture before it: the bytes it shares at the start and at
// the end, and the middle that differs. Chat pages change near the end (a
// new turn, a finished answer), so a 200-turn session stores its first
// capture whole and the rest as a few hundred bytes each. Load rebuilds
// every capture whole; nothing outside this file sees deltas.

// diskSession is the file form of a Session.
type diskSession struct {
	Version  int           `json:"version"`
	Base     string        `json:"base,omitempty"`
	Scenario string        `json:"scenario,omitempty"`
	Clock    string        `json:"clock,omitempty"`
	Timeline bool          `json:"timeline,omitempty"`
	Captures []diskCapture `json:"captures"`
	Steps    []Step        `json:"steps"`
}

type diskCapture struct {
	Version int         `json:"version"`
	URL     string      `json:"url"`
	Title   string      `json:"title,omitempty"`
	Frames  []diskFrame `json:"frames"`
}

type diskFrame struct {
	ID     string     `json:"id"`
	Parent string     `json:"parent,omitempty"`
	Owner  string     `json:"owner,omitempty"`
	URL    string     `json:"url"`
	HTML   *string    `json:"html,omitempty"`
	Delta  *diskDelta `json:"delta,omitempty"`
}

// diskDelta rebuilds a frame's HTML from the previous capture's frame at
// the same index: its first Prefix bytes, Middle, its last Suffix bytes.
type diskDelta struct {
	Prefix int    `json:"prefix"`
	Middle string `json:"middle"`
	Suffix int    `json:"suffix"`
}

// minDeltaSaving: a delta is written only when it saves at least this many
// bytes over the whole HTML.
const minDeltaSaving = 256

func toDisk(s *Session) diskSession {
	d := diskSession{Version: FormatVersion, Base: s.Base, Scenario: s.Scenario, Clock: s.Clock, Timeline: s.Timeline, Steps: s.Steps, Captures: make([]diskCapture, len(s.Captures))}
	for i, c := range s.Captures {
		dc := diskCapture{Version: c.Version, URL: c.URL, Title: c.Title}
		for fi, f := range c.Frames {
			df := diskFrame{ID: f.ID, Parent: f.Parent, Owner: f.Owner, URL: f.URL}
			html := f.HTML
			if i > 0 && fi < len(s.Captures[i-1].Frames) {
				if delta, ok := makeDelta(s.Captures[i-1].Frames[fi].HTML, html); ok {
					df.Delta = &delta
				}
			}
			if df.Delta == nil {
				df.HTML = &html
			}
			dc.Frames = append(dc.Frames, df)
		}
		d.Captures[i] = dc
	}
	return d
}

func makeDelta(prev, next string) (diskDelta, bool) {
	p := 0
	for p < len(prev) && p < len(next) && prev[p] == next[p] {
		p++
	}
	for p > 0 && p < len(next) && !utf8.RuneStart(next[p]) {
		p--
	}
	s := 0
	for s < len(prev)-p && s < len(next)-p && prev[len(prev)-1-s] == next[len(next)-1-s] {
		s++
	}
	for s > 0 && !utf8.RuneStart(next[len(next)-s]) {
		s--
	}
	middle := next[p : len(next)-s]
	if len(next)-len(middle) < minDeltaSaving {
		return diskDelta{}, false
	}
	return diskDelta{Prefix: p, Middle: middle, Suffix: s}, true
}

var errDelta = errors.New("bad delta")

func fromDisk(d diskSession) (*Session, error) {
	s := &Session{Version: d.Version, Base: d.Base, Scenario: d.Scenario, Clock: d.Clock, Timeline: d.Timeline, Steps: d.Steps, Captures: make([]*capture.Capture, len(d.Captures))}
	for i, dc := range d.Captures {
		c := &capture.Capture{Version: dc.Version, URL: dc.URL, Title: dc.Title}
		for fi, df := range dc.Frames {
			f := capture.Frame{ID: df.ID, Parent: df.Parent, Owner: df.Owner, URL: df.URL}
			switch {
			case df.HTML != nil && df.Delta == nil:
				f.HTML = *df.HTML
			case df.Delta != nil && df.HTML == nil:
				if i == 0 || fi >= len(s.Captures[i-1].Frames) {
					return nil, fmt.Errorf("%w: captures[%d].frames[%d] is a delta with no frame before it", errDelta, i, fi)
				}
				prev := s.Captures[i-1].Frames[fi].HTML
				dl := df.Delta
				if dl.Prefix < 0 || dl.Suffix < 0 || dl.Prefix+dl.Suffix > len(prev) {
					return nil, fmt.Errorf("%w: captures[%d].frames[%d]: prefix %d + suffix %d exceed the %d bytes of the frame before", errDelta, i, fi, dl.Prefix, dl.Suffix, len(prev))
				}
				f.HTML = prev[:dl.Prefix] + dl.Middle + prev[len(prev)-dl.Suffix:]
			default:
				return nil, fmt.Errorf("%w: captures[%d].frames[%d] needs exactly one of html and delta", errDelta, i, fi)
			}
			c.Frames = append(c.Frames, f)
		}
		s.Captures[i] = c
	}
	return s, nil
}

// position turns a JSON decoding error into "at byte N" when it knows.
func position(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf(" at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf(" at byte %d (field %s)", te.Offset, te.Field)
	}
	return ""
}
