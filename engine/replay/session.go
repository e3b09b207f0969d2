// Package replay records live sessions and replays them with no browser.
//
// A Session (the cassette) is versioned data: the captures the engine
// read, deduplicated, and the steps between them — captures, navigations,
// clicks, typing and key presses — with their time offsets. A Recorder
// wraps a live driver and writes what passed through it; a Driver replays a
// session on the recording's clock and fails with REPLAY_DIVERGED, naming
// the step and the field, as soon as the engine asks for an action the
// recording does not hold. When a tab records or replays is the runner's
// decision (harness.Mode, harness.Scenario.Driver); the vocabulary hands
// the runner this package's sessions as its recording format.
package replay

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/replaylab/replaylab/engine/capture"
)

// FormatVersion is the session format this package writes. Version 2
// added Clock: the offsets of a lab session are virtual time, the exact
// schedule of the sim's transitions. Version 1 files (no clock field, wall
// offsets) are still read, as wall sessions. Version 3 added the session's
// timeline (SPEC LIB-4): Timeline, read steps (KindRead) and each action's
// DoneMS; version 2 files are read as they were written. Any other version
// is refused with ErrVersion naming them.
const FormatVersion = 3

// Session clocks (the values of Session.Clock).
const (
	ClockWall = "wall" // offsets are wall time ("" reads as wall)
	ClockLab  = "lab"  // offsets are the lab clock's virtual time
)

// Step kinds.
const (
	KindCapture  = "capture"
	KindNavigate = "navigate"
	KindClick    = "click"
	KindType     = "type"
	KindPress    = "press"
	// KindDoubleClick is a real double click (engine.DoubleClicker): two
	// clicks in a row, as a user's double click delivers them.
	KindDoubleClick = "dblclick"
	// KindScroll is a scroll of the page to its top (engine.Scroller).
	KindScroll = "scroll"
	// KindQuiet is the driver's default readiness wait after a navigation
	// (engine.Quieter, SPEC APP-1): Error holds what kept the page busy
	// when it did not get quiet. A build that predates it refuses a
	// session holding one by name (unknown kind "quiet"); a session
	// without one replays as ready at once, as it was recorded.
	KindQuiet = "quiet"
	// KindRead is a read of the page that found it as the capture before
	// showed (a timeline session records every read, SPEC LIB-4): a replay
	// answers the same read at the same offset.
	KindRead = "read"
)

// Session is one recorded page session.
type Session struct {
	Version int `json:"version"`
	// Base is the canonical base URL the live base was rewritten to.
	Base string `json:"base,omitempty"`
	// Scenario fingerprints the script that produced the session (the
	// harness stores a hash of the scenario's steps), so a replay can tell
	// a stale recording from a regression.
	Scenario string `json:"scenario,omitempty"`
	// Clock says what the offsets measure: ClockLab (virtual time; a replay
	// wakes at each recorded capture as the live wait woke at each
	// transition) or ClockWall ("" in version 1 files).
	Clock string `json:"clock,omitempty"`
	// Timeline marks a session that holds its live run's timeline (SPEC
	// LIB-4): every read the engine made is a step (a capture, or a read
	// of an unchanged page), each at the offset it was read, and every
	// action says when it returned (DoneMS). A replay answers each read with
	// the recorded one and keeps the recorded clock, so its waits judge
	// timeouts, text and answer states on the live run's timeline.
	Timeline bool `json:"timeline,omitempty"`
	// Captures holds each distinct capture once.
	Captures []*capture.Capture `json:"captures"`
	Steps    []Step             `json:"steps"`
}

// SinglePage is a session of one page: a navigation to c's URL, then c,
// which a replay returns for every later capture (tests and benchmarks
// replay a page with it).
func SinglePage(c *capture.Capture) *Session {
	zero := 0
	return &Session{Version: FormatVersion, Captures: []*capture.Capture{c},
		Steps: []Step{{Kind: KindNavigate, URL: c.URL}, {AtMS: 1, Kind: KindCapture, Capture: &zero}}}
}

// Step is one capture or action, at its offset from the session start.
type Step struct {
	AtMS    int64  `json:"atMs"`
	Kind    string `json:"kind"`
	Capture *int   `json:"capture,omitempty"`
	Node    string `json:"node,omitempty"`
	URL     string `json:"url,omitempty"`
	Text    string `json:"text,omitempty"`
	Key     string `json:"key,omitempty"`
	// Redacted marks a typed text that was scrubbed: Text is a placeholder
	// and a replay accepts whatever the engine types there.
	Redacted bool `json:"redacted,omitempty"`
	// Status is the HTTP status a navigation's document answered with (0:
	// not recorded, as in recordings made before it was), Error the
	// reason a navigation failed with no answer at all.
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// Control names the element a user's recorded click or key press
	// went to ("button \"Send\""), when the recorder could tell.
	Control string `json:"control,omitempty"`
	// DoneMS is the offset at which an action returned (a timeline
	// session): a navigation that took two seconds starts its page's ready
	// wait two seconds after AtMS, in the replay as it did live.
	DoneMS int64 `json:"doneMs,omitempty"`
}

func (s Step) String() string {
	switch s.Kind {
	case KindCapture:
		return fmt.Sprintf("capture #%d", deref(s.Capture))
	case KindNavigate:
		return "navigate url=" + s.URL
	case KindClick:
		if s.Control != "" {
			return "click " + s.Control
		}
		return "click node=" + s.Node
	case KindType:
		return fmt.Sprintf("type node=%s text=%q", s.Node, s.Text)
	case KindRead:
		return "read (unchanged)"
	case KindQuiet:
		if s.Error != "" {
			return "quiet wait (busy: " + s.Error + ")"
		}
		return "quiet wait"
	case KindDoubleClick:
		return "double click node=" + s.Node
	case KindScroll:
		return "scroll to the top"
	case KindPress:
		if s.Control != "" {
			return fmt.Sprintf("press %s in %s", s.Key, s.Control)
		}
		return fmt.Sprintf("press node=%s key=%s", s.Node, s.Key)
	}
	return s.Kind
}

func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// Errors of loading.
var (
	ErrVersion     = errors.New("replay: unsupported session format version")
	ErrMalformed   = errors.New("replay: malformed session")
	ErrNoRecording = errors.New("replay: no recording")
)

// Load reads and validates a session file.
func Load(path string) (*Session, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNoRecording, path)
	}
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	s, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Decode parses and validates a session.
func Decode(data []byte) (*Session, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%w%s: %v (truncated or corrupted?)", ErrMalformed, position(err), err)
	}
	if probe.Version == nil {
		return nil, fmt.Errorf("%w: no version field", ErrMalformed)
	}
	if *probe.Version < 1 || *probe.Version > FormatVersion {
		return nil, fmt.Errorf("%w: file has version %d, this build reads 1 to %d", ErrVersion, *probe.Version, FormatVersion)
	}
	var d diskSession
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%w%s: %v", ErrMalformed, position(err), err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the session at byte %d", ErrMalformed, dec.InputOffset())
	}
	if d.Version == 1 && d.Clock != "" {
		return nil, fmt.Errorf("%w: a version 1 session has no clock field (clock %q)", ErrMalformed, d.Clock)
	}
	s, err := fromDisk(d)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Validate checks every reference and capture of the session.
func (s *Session) Validate() error {
	for i, c := range s.Captures {
		if c == nil {
			return fmt.Errorf("%w: captures[%d] is null", ErrMalformed, i)
		}
		if err := c.Validate(); err != nil {
			return fmt.Errorf("%w: captures[%d]: %v", ErrMalformed, i, err)
		}
	}
	switch s.Clock {
	case "", ClockWall, ClockLab:
	default:
		return fmt.Errorf("%w: clock %q (want %q or %q)", ErrMalformed, s.Clock, ClockWall, ClockLab)
	}
	var last int64
	for i, st := range s.Steps {
		if st.AtMS < last {
			return fmt.Errorf("%w: steps[%d] goes back in time (%d ms after %d ms)", ErrMalformed, i, st.AtMS, last)
		}
		last = st.AtMS
		switch st.Kind {
		case KindCapture:
			if st.Capture == nil || *st.Capture < 0 || *st.Capture >= len(s.Captures) {
				return fmt.Errorf("%w: steps[%d] names capture %d of %d", ErrMalformed, i, deref(st.Capture), len(s.Captures))
			}
		case KindNavigate, KindClick, KindDoubleClick, KindScroll, KindType, KindPress, KindQuiet:
			if st.DoneMS != 0 && st.DoneMS < st.AtMS {
				return fmt.Errorf("%w: steps[%d] returned at %d ms, before it began at %d ms", ErrMalformed, i, st.DoneMS, st.AtMS)
			}
		case KindRead:
			if !s.Timeline {
				return fmt.Errorf("%w: steps[%d] is a read step in a session without a timeline", ErrMalformed, i)
			}
		default:
			return fmt.Errorf("%w: steps[%d] has unknown kind %q", ErrMalformed, i, st.Kind)
		}
	}
	return nil
}

// Save writes the session atomically.
func (s *Session) Save(path string) error {
	return s.SaveChecked(path, nil)
}

// SaveChecked writes the session atomically after sc.Check found no secret
// in what would be written (ErrSecretInRecording otherwise; nothing is
// written then).
func (s *Session) SaveChecked(path string, sc *Scrubber) error {
	s.Version = FormatVersion
	if err := s.Validate(); err != nil {
		return err
	}
	data, err := s.Encode()
	if err != nil {
		return err
	}
	if err := sc.Check(data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return capture.WriteFileAtomic(path, data)
}

// Encode returns the session exactly as Save writes it.
func (s *Session) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // captures are HTML: keep < and > readable and small
	enc.SetIndent("", " ")
	if err := enc.Encode(toDisk(s)); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return buf.Bytes(), nil
}

// captureKey identifies equal captures for deduplication.
func captureKey(c *capture.Capture) [32]byte {
	data, _ := json.Marshal(c)
	return sha256.Sum256(data)
}
