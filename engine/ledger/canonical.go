package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Canonical JSON limits.
const (
	CanonicalDepthMax       = 64   // nesting of arrays/objects
	CanonicalExponentAbsMax = 1000 // |exponent| of a number literal
)

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
	if err := canonValue(dec, &buf, 0); err != nil {
		return nil, fmt.Errorf("ledger: canonical json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
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

func canonValue(dec *json.Decoder, buf *bytes.Buffer, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	return canonToken(dec, tok, buf, depth)
}

func canonToken(dec *json.Decoder, tok json.Token, buf *bytes.Buffer, depth int) error {
	switch t := tok.(type) {
	case json.Delim:
		if depth >= CanonicalDepthMax {
			return fmt.Errorf("nesting deeper than %d", CanonicalDepthMax)
		}
		switch t {
		case '{':
			return canonObject(dec, buf, depth+1)
		case '[':
			buf.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					buf.WriteByte(',')
				}
				if err := canonValue(dec, buf, depth+1); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // ']'
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

func canonObject(dec *json.Decoder, buf *bytes.Buffer, depth int) error {
	type member struct {
		key string
		val []byte
	}
	var members []member
	seen := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
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
		if err := canonValue(dec, &vb, depth); err != nil {
			return err
		}
		members = append(members, member{key, vb.Bytes()})
	}
	if _, err := dec.Token(); err != nil { // '}'
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

// canonNumber writes a JSON number literal in its one canonical form.
func canonNumber(lit string) (string, error) {
	mant, exp := lit, ""
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant, exp = lit[:i], lit[i+1:]
	}
	if exp != "" {
		e := strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")
		if len(e) > 4 {
			return "", fmt.Errorf("number %q: exponent too large", lit)
		}
		n := 0
		if e != "" {
			n, _ = strconv.Atoi(e) // digits only, at most 4 of them
		}
		if n > CanonicalExponentAbsMax {
			return "", fmt.Errorf("number %q: exponent too large", lit)
		}
	}
	if exp == "" && !strings.Contains(mant, ".") {
		var z big.Int
		if _, ok := z.SetString(mant, 10); !ok {
			return "", fmt.Errorf("bad number %q", lit)
		}
		return z.String(), nil // "-0" becomes "0"
	}
	var r big.Rat
	if _, ok := r.SetString(lit); !ok {
		return "", fmt.Errorf("bad number %q", lit)
	}
	if r.IsInt() {
		return r.Num().String(), nil
	}
	// The denominator of a decimal literal is 2^a * 5^b: max(a, b) fraction
	// digits are exact.
	d := new(big.Int).Set(r.Denom())
	two, five := 0, 0
	var m big.Int
	for {
		if m.Mod(d, big.NewInt(2)).Sign() != 0 {
			break
		}
		d.Quo(d, big.NewInt(2))
		two++
	}
	for {
		if m.Mod(d, big.NewInt(5)).Sign() != 0 {
			break
		}
		d.Quo(d, big.NewInt(5))
		five++
	}
	s := r.FloatString(max(two, five))
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	return s, nil
}
