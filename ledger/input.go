package ledger

import (
	"strings"
	"unicode/utf8"
)

// Text the ledger refuses, on every store alike, before any store sees it
// (issue 15, items 5 and 7): a NUL byte (PostgreSQL TEXT cannot hold one;
// SQLite would store it, so the stores would disagree), invalid UTF-8, and
// in JSON a \u0000 escape or a lone surrogate escape (\ud800 without its
// pair; encoding/json would silently turn it into U+FFFD, so two different
// inputs would share one digest).

// CheckText refuses a NUL byte or invalid UTF-8 in a text field with
// INVALID_INPUT naming the field. The API checks every path id, header and
// field with it; the Service checks again for Go callers.
func CheckText(field, v string) error {
	if strings.IndexByte(v, 0) >= 0 {
		return errorf(CodeInvalidInput, "%s contains a NUL byte", field)
	}
	if !utf8.ValidString(v) {
		return errorf(CodeInvalidInput, "%s is not valid UTF-8", field)
	}
	return nil
}

// CheckJSONText refuses, in the raw text of a JSON document, invalid UTF-8,
// a raw NUL byte, a \u0000 escape and a surrogate escape that is not a
// high surrogate immediately followed by a low one. It does not check that
// the document is valid JSON.
func CheckJSONText(field string, raw []byte) error {
	if !utf8.Valid(raw) {
		return errorf(CodeInvalidInput, "%s is not valid UTF-8", field)
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == 0 {
			return errorf(CodeInvalidInput, "%s contains a NUL byte", field)
		}
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 >= len(raw) {
				return nil // truncated; the JSON check refuses it
			}
			i++
			if raw[i] != 'u' {
				continue
			}
			r, ok := hex4(raw, i+1)
			if !ok {
				continue // not a \u escape; the JSON check refuses it
			}
			i += 4
			switch {
			case r == 0:
				return errorf(CodeInvalidInput, "%s contains a \\u0000 escape (NUL)", field)
			case r >= 0xDC00 && r <= 0xDFFF:
				return errorf(CodeInvalidInput, "%s contains a lone low surrogate escape \\u%04x", field, r)
			case r >= 0xD800 && r <= 0xDBFF:
				if i+2 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
					return errorf(CodeInvalidInput, "%s contains a lone high surrogate escape \\u%04x", field, r)
				}
				lo, ok := hex4(raw, i+3)
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return errorf(CodeInvalidInput, "%s contains a lone high surrogate escape \\u%04x", field, r)
				}
				i += 6
			}
		}
	}
	return nil
}

// hex4 reads four hex digits at raw[at:].
func hex4(raw []byte, at int) (rune, bool) {
	if at+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[at : at+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// checkID refuses an id that no store could hold (NUL, invalid UTF-8) or
// that is absurdly long, before any store is asked about it.
func checkID(kind, id string) error {
	if err := CheckText(kind+" id", id); err != nil {
		return err
	}
	if len(id) > idBytesMax {
		return errorf(CodeInvalidInput, "%s id longer than %d bytes", kind, idBytesMax)
	}
	return nil
}

// idBytesMax bounds a job or attempt id given by a caller.
const idBytesMax = 200
