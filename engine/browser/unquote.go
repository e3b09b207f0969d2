package browser

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// unquoteJSON decodes the JSON string literal raw as encoding/json does.
// The tracker's answers are JSON texts sent as a JSON string: megabytes
// of escaped quotes, which this reads in one pass, copying the runs
// between escapes, several times faster than encoding/json's scanner.
// Whatever it does not expect (a lone surrogate, invalid UTF-8, a raw
// control character or quote, a bad escape, not a string) is left to
// encoding/json, errors included.
func unquoteJSON(raw []byte) (string, error) {
	if s, ok := unquoteFast(raw); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

func unquoteFast(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	return unescape(raw[1 : len(raw)-1])
}

// unescape decodes the inside of a JSON string literal, in, copying the
// runs between escapes. It declines (false) what encoding/json would
// refuse or decode otherwise than by these rules: a raw quote or control
// character, a bad or trailing escape, a lone surrogate, invalid UTF-8;
// the callers hand those to encoding/json.
func unescape(in []byte) (string, bool) {
	out := make([]byte, 0, len(in))
	ascii := true
	for i := 0; i < len(in); {
		j := i
		for j < len(in) {
			c := in[j]
			if c == '\\' || c == '"' || c < 0x20 {
				break
			}
			if c >= utf8.RuneSelf {
				ascii = false
			}
			j++
		}
		out = append(out, in[i:j]...)
		if i = j; i == len(in) {
			break
		}
		if in[i] != '\\' || i+1 == len(in) {
			return "", false // a raw quote or control character, a trailing backslash
		}
		switch e := in[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(in, i+2)
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				// a pair is one rune; a lone surrogate encoding/json decodes
				if i+12 > len(in) || in[i+6] != '\\' || in[i+7] != 'u' {
					return "", false
				}
				r2, ok := hex4(in, i+8)
				if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
			i += 6
			continue
		default:
			return "", false
		}
		i += 2
	}
	if !ascii && !utf8.Valid(out) {
		return "", false
	}
	return string(out), true
}
