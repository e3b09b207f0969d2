package monitor

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// Observation is what the page looked like after an operation, as the engine
// maps it from a snapshot. Slices are in page order.
type Observation struct {
	// SnapshotID identifies the snapshot. The fingerprint ignores it (MON-2).
	SnapshotID string
	Tab        string
	URL        string
	// FrameScope names the document and frame the snapshot covers
	// (document and frame ids).
	FrameScope string
	Texts      []string
	Tables     []Table
	Media      []Media
	Controls   []Control
}

// Table is a table's cells, row by row.
type Table struct {
	Rows [][]string
}

// Media is one audio, video or image element.
type Media struct {
	Kind  string
	Ready bool
}

// Control is one interactive element.
type Control struct {
	// Key is a stable element key chosen by the engine, NOT the snapshot ref.
	// Only Summarize uses it.
	Key      string
	Role     string
	Name     string
	Value    string
	Checked  bool
	Expanded bool
	Disabled bool
	// Sensitive marks a control whose value and name must not be reported
	// (see IsSensitive).
	Sensitive bool
}

// Action is one operation of the agent.
type Action struct {
	// Op is the operation: click, fill, press, navigate, select, waitFor, …
	Op  string
	Tab string
	// Role and Name of the target, taken from the latest observation that
	// holds the ref. Never the ref itself.
	Role string
	Name string
	// Value exactly as typed or selected; no case folding. It enters the
	// fingerprint only as a hash.
	Value string
	// Key is the key pressed, for press.
	Key string
	// Passive marks a read-only operation; see PassiveOps.
	Passive bool
	// Sensitive marks an action on a sensitive control. Nothing of an action
	// is ever put into a signal, so this changes nothing today; it is kept so
	// the engine need not decide which actions are safe to describe.
	Sensitive bool
}

// PassiveOps are the operations that are never counted as actions (MON-6),
// whatever Action.Passive says.
var PassiveOps = []string{"waitFor", "verifyOutcome", "verifyField"}

// IsPassive reports whether a is passive: a.Passive is set or a.Op is in
// PassiveOps.
func (a Action) IsPassive() bool {
	if a.Passive {
		return true
	}
	for _, op := range PassiveOps {
		if a.Op == op {
			return true
		}
	}
	return false
}

// Fingerprint returns the observation fingerprint (MON-2) as lower-case hex
// sha256. See the package doc for what it covers and how numbers are
// normalised.
func Fingerprint(o Observation) string {
	fp := observationSum(o)
	return hex.EncodeToString(fp[:])
}

// ActionFingerprint returns the action fingerprint (MON-3) as lower-case hex
// sha256. It is for comparison only: never a ref, never to be logged for a
// sensitive action.
func ActionFingerprint(a Action) string {
	fp := actionSum(a)
	return hex.EncodeToString(fp[:])
}

type sum = [sha256.Size]byte

// Field tags of the encoding. Each field is a tag, its escaped content and a
// terminator, so no two different inputs share an encoding.
const (
	tagTab        = 'T'
	tagURL        = 'U'
	tagScope      = 'F'
	tagTexts      = 'X'
	tagText       = 'x'
	tagTables     = 'B'
	tagRow        = 'r'
	tagCell       = 'c'
	tagMedia      = 'M'
	tagControls   = 'C'
	tagRole       = 'o'
	tagName       = 'n'
	tagValue      = 'v'
	tagSecret     = 's'
	tagFlags      = 'f'
	tagOp         = 'O'
	tagKey        = 'K'
	terminator    = 0x00
	escape        = 0x01
	encoderBufLen = 512
)

func observationSum(o Observation) sum {
	var e encoder
	e.init()
	e.field(tagTab, o.Tab, false)
	e.field(tagURL, o.URL, false)
	e.field(tagScope, o.FrameScope, false)
	e.count(tagTexts, len(o.Texts))
	for _, t := range o.Texts {
		e.field(tagText, t, true)
	}
	e.count(tagTables, len(o.Tables))
	for _, t := range o.Tables {
		e.count(tagRow, len(t.Rows))
		for _, row := range t.Rows {
			e.count(tagRow, len(row))
			for _, cell := range row {
				e.field(tagCell, cell, true)
			}
		}
	}
	e.count(tagMedia, len(o.Media))
	for _, m := range o.Media {
		e.field(tagMedia, m.Kind, false)
		e.flags(m.Ready, false, false)
	}
	e.count(tagControls, len(o.Controls))
	for _, c := range o.Controls {
		e.field(tagRole, c.Role, false)
		e.field(tagName, c.Name, true)
		if c.Sensitive {
			filled := "0"
			if c.Value != "" {
				filled = "1"
			}
			e.field(tagSecret, filled, false)
		} else {
			e.field(tagValue, c.Value, false)
		}
		e.flags(c.Checked, c.Expanded, c.Disabled)
	}
	return e.sum()
}

func actionSum(a Action) sum {
	value := sha256.Sum256([]byte(a.Value))
	var e encoder
	e.init()
	e.field(tagOp, a.Op, false)
	e.field(tagTab, a.Tab, false)
	e.field(tagRole, a.Role, false)
	e.field(tagName, a.Name, false)
	e.field(tagKey, a.Key, false)
	e.byte(tagValue)
	e.raw(value[:])
	return e.sum()
}

// encoder streams the tagged encoding into sha256 through a fixed buffer.
type encoder struct {
	h   hash.Hash
	buf [encoderBufLen]byte
	n   int
}

func (e *encoder) init() { e.h = sha256.New() }

func (e *encoder) flush() {
	e.h.Write(e.buf[:e.n])
	e.n = 0
}

func (e *encoder) byte(b byte) {
	e.buf[e.n] = b
	e.n++
	if e.n == len(e.buf) {
		e.flush()
	}
}

// raw writes b escaped.
func (e *encoder) raw(b []byte) {
	for _, c := range b {
		e.escaped(c)
	}
}

func (e *encoder) escaped(c byte) {
	switch c {
	case terminator:
		e.byte(escape)
		e.byte(1)
	case escape:
		e.byte(escape)
		e.byte(2)
	default:
		e.byte(c)
	}
}

// field writes tag, s escaped and the terminator. With normalise, every
// number is written as one number marker (an escape sequence, so a literal
// '#' stays distinct). Runs of plain bytes are copied in bulk.
func (e *encoder) field(tag byte, s string, normalise bool) {
	e.byte(tag)
	for len(s) > 0 {
		i := 0
		stop := &stopBytes[0]
		if normalise {
			stop = &stopBytes[1]
		}
		for i < len(s) && !stop[s[i]] {
			i++
		}
		e.str(s[:i])
		if i == len(s) {
			break
		}
		if isDigit(s[i]) {
			e.byte(escape)
			e.byte(3)
			s = s[numberEnd(s, i):]
			continue
		}
		e.escaped(s[i])
		s = s[i+1:]
	}
	e.byte(terminator)
}

// stopBytes[0] marks the bytes field must escape; stopBytes[1] also the
// digits, where a normalised field writes its number marker.
var stopBytes = func() (t [2][256]bool) {
	for _, c := range []byte{terminator, escape} {
		t[0][c], t[1][c] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[1][c] = true
	}
	return t
}()

// str writes s unescaped.
func (e *encoder) str(s string) {
	for len(s) > 0 {
		n := copy(e.buf[e.n:], s)
		e.n += n
		s = s[n:]
		if e.n == len(e.buf) {
			e.flush()
		}
	}
}

// count writes tag and n in decimal: the length of a list that follows.
func (e *encoder) count(tag byte, n int) {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	e.byte(tag)
	for ; i < len(d); i++ {
		e.byte(d[i])
	}
	e.byte(terminator)
}

func (e *encoder) flags(a, b, c bool) {
	e.byte(tagFlags)
	var f byte = '0'
	if a {
		f |= 1
	}
	if b {
		f |= 2
	}
	if c {
		f |= 4
	}
	e.byte(f)
	e.byte(terminator)
}

func (e *encoder) sum() sum {
	e.flush()
	var out sum
	e.h.Sum(out[:0])
	return out
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isNumberJoiner(c byte) bool {
	return c == '.' || c == ',' || c == ':' || c == '/' || c == '-'
}

// numberEnd returns the index just past the number that starts at s[i],
// which must be a digit.
func numberEnd(s string, i int) int {
	for i < len(s) {
		switch {
		case isDigit(s[i]):
			i++
		case isNumberJoiner(s[i]) && i+1 < len(s) && isDigit(s[i+1]):
			i += 2
		default:
			return i
		}
	}
	return i
}
