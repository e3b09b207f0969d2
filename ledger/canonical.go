package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Canonical JSON limits.
const (
	CanonicalDepthMax       = 64      // nesting of arrays/objects
	CanonicalExponentAbsMax = 1000    // |exponent| of a number literal
	CanonicalNumberBytesMax = 4 << 20 // all numbers, written without exponent
)

// canonState is one canonicalisation: the token stream and what is left of
// the budget for numbers written out in full.
type canonState struct {
	dec             *json.Decoder
	numberBytesLeft int
}

// CanonicalJSON returns the canonical form of one JSON value: object keys
// sorted by their UTF-8 bytes, no insignificant whitespace, strings
// re-encoded by encoding/json without HTML escaping, and numbers written in
// one form per numeric value (1, 1.0, 10e-1 and 0.1e1 all become 1; 0.50
// becomes 0.5; -0 becomes 0), exactly, without going through float64.
// It refuses invalid UTF-8, duplicate object keys, trailing data, nesting
// deeper than CanonicalDepthMax and exponents beyond CanonicalExponentAbsMax.
func CanonicalJSON(raw []byte) ([]byte, error) {
	if !utf8.Valid(raw) {
		return nil, errors.New("ledger: canonical json: invalid utf-8")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var buf bytes.Buffer
	c := &canonState{dec: dec, numberBytesLeft: CanonicalNumberBytesMax}
	if err := canonValue(c, &buf, 0); err != nil {
		return nil, fmt.Errorf("ledger: canonical json: %w", err)
	}
	if _, err := c.dec.Token(); err != io.EOF {
		return nil, errors.New("ledger: canonical json: trailing data after the value")
	}
	return buf.Bytes(), nil
}

// Digest is the hex sha256 of the canonical form of raw.
func Digest(raw []byte) (string, error) {
	c, err := CanonicalJSON(raw)
	if err != nil {
		return "", err
	}
	return sha256Hex(c), nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func canonValue(c *canonState, buf *bytes.Buffer, depth int) error {
	tok, err := c.dec.Token()
	if err != nil {
		return err
	}
	return canonToken(c, tok, buf, depth)
}

func canonToken(c *canonState, tok json.Token, buf *bytes.Buffer, depth int) error {
	switch t := tok.(type) {
	case json.Delim:
		if depth >= CanonicalDepthMax {
			return fmt.Errorf("nesting deeper than %d", CanonicalDepthMax)
		}
		switch t {
		case '{':
			return canonObject(c, buf, depth+1)
		case '[':
			buf.WriteByte('[')
			for i := 0; c.dec.More(); i++ {
				if i > 0 {
					buf.WriteByte(',')
				}
				if err := canonValue(c, buf, depth+1); err != nil {
					return err
				}
			}
			if _, err := c.dec.Token(); err != nil { // ']'
				return err
			}
			buf.WriteByte(']')
			return nil
		default:
			return fmt.Errorf("unexpected %q", t)
		}
	case string:
		return writeString(buf, t)
	case json.Number:
		s, err := canonNumber(string(t))
		if err != nil {
			return err
		}
		if c.numberBytesLeft -= len(s); c.numberBytesLeft < 0 {
			return fmt.Errorf("numbers expand beyond %d bytes", CanonicalNumberBytesMax)
		}
		buf.WriteString(s)
		return nil
	case bool:
		if t {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
		return nil
	case nil:
		buf.WriteString("null")
		return nil
	default:
		return fmt.Errorf("unexpected token %T", tok)
	}
}

func canonObject(c *canonState, buf *bytes.Buffer, depth int) error {
	type member struct {
		key string
		val []byte
	}
	var members []member
	seen := map[string]bool{}
	for c.dec.More() {
		kt, err := c.dec.Token()
		if err != nil {
			return err
		}
		key, ok := kt.(string)
		if !ok {
			return errors.New("object key is not a string")
		}
		if seen[key] {
			return fmt.Errorf("duplicate object key %q", key)
		}
		seen[key] = true
		var vb bytes.Buffer
		if err := canonValue(c, &vb, depth); err != nil {
			return err
		}
		members = append(members, member{key, vb.Bytes()})
	}
	if _, err := c.dec.Token(); err != nil { // '}'
		return err
	}
	sort.Slice(members, func(i, j int) bool { return members[i].key < members[j].key })
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeString(buf, m.key); err != nil {
			return err
		}
		buf.WriteByte(':')
		buf.Write(m.val)
	}
	buf.WriteByte('}')
	return nil
}

func writeString(buf *bytes.Buffer, s string) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode appends '\n'
	return nil
}

// canonNumber writes a JSON number literal in its one canonical form:
// plain decimal notation, no exponent, no leading zeros, no trailing
// fraction zeros, "-" only on non-zero values. It works on the digits
// (linear time, exact); the exponent is bounded so the output is too.
func canonNumber(lit string) (string, error) {
	neg := strings.HasPrefix(lit, "-")
	body := strings.TrimPrefix(lit, "-")
	mant, exp := body, 0
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		mant = body[:i]
		e := strings.TrimPrefix(body[i+1:], "+")
		n, err := strconv.Atoi(e)
		if err != nil || n > CanonicalExponentAbsMax || n < -CanonicalExponentAbsMax {
			return "", fmt.Errorf("number %q: exponent beyond ±%d", lit, CanonicalExponentAbsMax)
		}
		exp = n
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	exp -= len(frac) // value = digits × 10^exp
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", fmt.Errorf("bad number %q", lit)
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", nil
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case exp >= 0:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", exp))
	case len(digits) > -exp:
		b.WriteString(digits[:len(digits)+exp])
		b.WriteByte('.')
		b.WriteString(digits[len(digits)+exp:])
	default:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -exp-len(digits)))
		b.WriteString(digits)
	}
	return b.String(), nil
}
