// Package jsonfile reads the lab's hand-written JSON files (site profiles,
// adapter files) field by field. Decode takes a file's bytes to its
// top-level object; a Reader then reads one field at a time, checking its
// presence and type, and keeps the first problem together with the JSON
// path of the field ("send.by", "turn.speaker.assistant[1]"). The formats'
// own packages (engine/site, engine/adapter) say what the fields mean and
// wrap that problem into their own error types, so a refused file names
// the field that broke a rule.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Error is a problem with a file: Field is the JSON path of the offending
// value ("" for the whole file) and Reason says what is wrong with it.
type Error struct {
	Field  string
	Reason string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Message is the text of an error that refuses a file: "origin: source:
// field: reason", an empty source or field left out. The formats' error
// types (site.FileError, adapter.FileError) print themselves with it.
func Message(origin, source, field, reason string) string {
	var b strings.Builder
	b.WriteString(origin + ": ")
	if source != "" {
		b.WriteString(source + ": ")
	}
	if field != "" {
		b.WriteString(field + ": ")
	}
	b.WriteString(reason)
	return b.String()
}

// ReadFile reads the file at path, at most bytesMax+1 bytes of it (one
// more than a file may have, so Decode refuses a longer one by its size).
func ReadFile(path string, bytesMax int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(bytesMax)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}

// Object is a JSON object and its path in the file ("" for the top level).
type Object struct {
	Path string
	M    map[string]any
}

// Has reports whether o has the field key.
func (o Object) Has(key string) bool {
	_, ok := o.M[key]
	return ok
}

// Decode reads data as one JSON object, numbers kept as json.Number. It
// refuses data longer than bytesMax, data that is not JSON, data after
// the top-level value, and a top-level value that is not an object.
func Decode(data []byte, bytesMax int) (Object, *Error) {
	if len(data) > bytesMax {
		return Object{}, &Error{Reason: "larger than " + strconv.Itoa(bytesMax) + " bytes"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Object{}, &Error{Reason: "not JSON: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return Object{}, &Error{Reason: "not JSON: data after the top-level object"}
	}
	return AsObject("", v)
}

// AsObject returns v as the object at path, or an error naming its type.
func AsObject(path string, v any) (Object, *Error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Object{}, &Error{Field: path, Reason: "wrong type: want an object, got " + TypeOf(v)}
	}
	return Object{Path: path, M: m}, nil
}

// Join is the path of field key in the object at path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Index is the path of entry i of the array at path.
func Index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// TypeOf names the JSON type of a decoded value ("a string", "null"), for
// "wrong type" reasons.
func TypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// Reader reads fields of decoded objects and keeps the first problem in
// Err; once Err is set, later problems are dropped (readers still return
// zero values or defaults), so a caller may read on and check Err once.
// ListLenMax bounds every array (0: no array may have entries).
type Reader struct {
	ListLenMax int
	Err        *Error
}

// Fail records a problem with field unless one is recorded already.
func (r *Reader) Fail(field, reason string) {
	if r.Err == nil {
		r.Err = &Error{Field: field, Reason: reason}
	}
}

// Known refuses a field of o that is not in keys (the first in sorted
// order, so the error is the same on every run).
func (r *Reader) Known(o Object, keys ...string) {
	var unknown []string
	for k := range o.M {
		found := false
		for _, want := range keys {
			if k == want {
				found = true
				break
			}
		}
		if !found {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		r.Fail(Join(o.Path, unknown[0]), "unknown field (known: "+strings.Join(keys, ", ")+")")
	}
}

// Object reads the object field key of o; ok is false when it is missing
// or refused.
func (r *Reader) Object(o Object, key string, required bool) (sub Object, ok bool) {
	v, ok := o.M[key]
	if !ok {
		if required {
			r.Fail(Join(o.Path, key), "missing required field")
		}
		return Object{}, false
	}
	sub, err := AsObject(Join(o.Path, key), v)
	if err != nil {
		r.Fail(err.Field, err.Reason)
		return Object{}, false
	}
	return sub, true
}

// Str reads the string field key of o. A required field must be there and
// not blank; an optional one may be missing ("") or blank.
func (r *Reader) Str(o Object, key string, required bool) string {
	v, ok := o.M[key]
	if !ok {
		if required {
			r.Fail(Join(o.Path, key), "missing required field")
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		r.Fail(Join(o.Path, key), "wrong type: want a string, got "+TypeOf(v))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		r.Fail(Join(o.Path, key), "empty")
	}
	return s
}

// Bool reads the boolean field key of o, def when it is missing.
func (r *Reader) Bool(o Object, key string, def bool) bool {
	v, ok := o.M[key]
	if !ok {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		r.Fail(Join(o.Path, key), "wrong type: want a boolean, got "+TypeOf(v))
	}
	return b
}

// Int reads the integer field key of o, in lo…hi; def when it is missing
// or refused.
func (r *Reader) Int(o Object, key string, required bool, lo, hi int64, def int) int {
	v, ok := o.M[key]
	if !ok {
		if required {
			r.Fail(Join(o.Path, key), "missing required field")
		}
		return def
	}
	num, ok := v.(json.Number)
	if !ok {
		r.Fail(Join(o.Path, key), "wrong type: want an integer, got "+TypeOf(v))
		return def
	}
	n, err := num.Int64()
	if err != nil {
		r.Fail(Join(o.Path, key), "wrong type: want an integer, got "+num.String())
		return def
	}
	if n < lo || n > hi {
		r.Fail(Join(o.Path, key), fmt.Sprintf("%d out of range %d…%d", n, lo, hi))
		return def
	}
	return int(n)
}

// List reads the array field key of o, of at most ListLenMax entries; ok
// is false when it is missing or refused.
func (r *Reader) List(o Object, key string) (l []any, ok bool) {
	v, ok := o.M[key]
	if !ok {
		return nil, false
	}
	l, ok = v.([]any)
	if !ok {
		r.Fail(Join(o.Path, key), "wrong type: want an array, got "+TypeOf(v))
		return nil, false
	}
	if len(l) > r.ListLenMax {
		r.Fail(Join(o.Path, key), "more than "+strconv.Itoa(r.ListLenMax)+" entries")
		return nil, false
	}
	return l, true
}

// Strs reads the field key of o as an array of strings, none blank; a
// required one must be there and not empty.
func (r *Reader) Strs(o Object, key string, required bool) []string {
	l, ok := r.List(o, key)
	if !ok {
		if required && r.Err == nil {
			r.Fail(Join(o.Path, key), "missing required field")
		}
		return nil
	}
	if required && len(l) == 0 {
		r.Fail(Join(o.Path, key), "empty list")
	}
	out := make([]string, 0, len(l))
	for i, v := range l {
		field := Index(Join(o.Path, key), i)
		s, ok := v.(string)
		if !ok {
			r.Fail(field, "wrong type: want a string, got "+TypeOf(v))
			return nil
		}
		if strings.TrimSpace(s) == "" {
			r.Fail(field, "empty")
			return nil
		}
		out = append(out, s)
	}
	return out
}
