package jsonfile_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/internal/jsonfile"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		src    string
		max    int
		field  string
		reason string // "" for a file Decode accepts
	}{
		{name: "object", src: `{"a":1}`, max: 100},
		{name: "at the size bound", src: `{"a":1}`, max: 7},
		{name: "over the size bound", src: `{"a":1}`, max: 6, reason: "larger than 6 bytes"},
		{name: "not JSON", src: `{"a":`, max: 100, reason: "not JSON: unexpected EOF"},
		{name: "data after the object", src: `{"a":1} {}`, max: 100, reason: "not JSON: data after the top-level object"},
		{name: "array at the top", src: `[1]`, max: 100, reason: "wrong type: want an object, got an array"},
		{name: "null at the top", src: `null`, max: 100, reason: "wrong type: want an object, got null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := jsonfile.Decode([]byte(tt.src), tt.max)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				if o.Path != "" || !o.Has("a") {
					t.Fatalf("got %+v, want the top-level object with a", o)
				}
				return
			}
			if err == nil {
				t.Fatalf("got %+v, want %q", o, tt.reason)
			}
			if err.Field != tt.field || err.Reason != tt.reason {
				t.Fatalf("got field %q reason %q, want %q %q", err.Field, err.Reason, tt.field, tt.reason)
			}
		})
	}
}

func TestDecodeKeepsNumbers(t *testing.T) {
	t.Parallel()
	o, err := jsonfile.Decode([]byte(`{"n":12345678901234567890}`), 100)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(o.M["n"]); got != "12345678901234567890" {
		t.Fatalf("got %s, want the number as written", got)
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "join at the top", got: jsonfile.Join("", "turn"), want: "turn"},
		{name: "join below", got: jsonfile.Join("turn.speaker", "user"), want: "turn.speaker.user"},
		{name: "index", got: jsonfile.Index("turn.speaker.assistant", 1), want: "turn.speaker.assistant[1]"},
		{name: "field of an entry", got: jsonfile.Join(jsonfile.Index("media.items", 0), "kind"), want: "media.items[0].kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Fatalf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  jsonfile.Error
		want string
	}{
		{name: "whole file", err: jsonfile.Error{Reason: "not JSON: unexpected EOF"}, want: "not JSON: unexpected EOF"},
		{name: "one field", err: jsonfile.Error{Field: "send.by", Reason: "empty"}, want: "send.by: empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                          string
		origin, source, field, reason string
		want                          string
	}{
		{name: "all parts", origin: "site", source: "a.json", field: "send.by", reason: "empty", want: "site: a.json: send.by: empty"},
		{name: "no source", origin: "adapter", field: "turn", reason: "missing required field", want: "adapter: turn: missing required field"},
		{name: "whole file", origin: "adapter", source: "a.json", reason: "larger than 6 bytes", want: "adapter: a.json: larger than 6 bytes"},
		{name: "reason only", origin: "site", reason: "not JSON: unexpected EOF", want: "site: not JSON: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jsonfile.Message(tt.origin, tt.source, tt.field, tt.reason); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte(`{"a":12345}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		max     int
		want    string
		wantErr error
	}{
		{name: "whole file", path: path, max: 100, want: `{"a":12345}`},
		{name: "one byte more than the bound", path: path, max: 4, want: `{"a":`},
		{name: "missing file", path: filepath.Join(dir, "none.json"), max: 100, wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := jsonfile.ReadFile(tt.path, tt.max)
			if !errors.Is(err, tt.wantErr) || string(data) != tt.want {
				t.Fatalf("got %q, %v; want %q, %v", data, err, tt.want, tt.wantErr)
			}
		})
	}
}

// read runs one field reader on the object src (at path "x") and returns
// its value and the error it recorded, as "field: reason" ("" for none).
func read(t testing.TB, src string, listMax int, f func(r *jsonfile.Reader, o jsonfile.Object) any) (any, string) {
	t.Helper()
	top, err := jsonfile.Decode([]byte(`{"x":`+src+`}`), 1<<20)
	if err != nil {
		t.Fatalf("decode %s: %v", src, err)
	}
	r := &jsonfile.Reader{ListLenMax: listMax}
	o, ok := r.Object(top, "x", true)
	if !ok {
		t.Fatalf("%s: %v", src, r.Err)
	}
	v := f(r, o)
	if r.Err == nil {
		return v, ""
	}
	return v, r.Err.Error()
}

func TestReader(t *testing.T) {
	t.Parallel()
	str := func(key string, required bool) func(*jsonfile.Reader, jsonfile.Object) any {
		return func(r *jsonfile.Reader, o jsonfile.Object) any { return r.Str(o, key, required) }
	}
	object := func(key string, required bool) func(*jsonfile.Reader, jsonfile.Object) any {
		return func(r *jsonfile.Reader, o jsonfile.Object) any {
			sub, ok := r.Object(o, key, required)
			return fmt.Sprint(sub.Path, " ", ok)
		}
	}
	boolean := func(key string, def bool) func(*jsonfile.Reader, jsonfile.Object) any {
		return func(r *jsonfile.Reader, o jsonfile.Object) any { return r.Bool(o, key, def) }
	}
	integer := func(key string, required bool) func(*jsonfile.Reader, jsonfile.Object) any {
		return func(r *jsonfile.Reader, o jsonfile.Object) any { return r.Int(o, key, required, 1, 4, 3) }
	}
	list := func(key string) func(*jsonfile.Reader, jsonfile.Object) any {
		return func(r *jsonfile.Reader, o jsonfile.Object) any {
			l, ok := r.List(o, key)
			return fmt.Sprint(len(l), " ", ok)
		}
	}
	strs := func(key string, required bool) func(*jsonfile.Reader, jsonfile.Object) any {
		return func(r *jsonfile.Reader, o jsonfile.Object) any { return strings.Join(r.Strs(o, key, required), ",") }
	}
	known := func(keys ...string) func(*jsonfile.Reader, jsonfile.Object) any {
		return func(r *jsonfile.Reader, o jsonfile.Object) any { r.Known(o, keys...); return nil }
	}
	tests := []struct {
		name string
		src  string
		read func(*jsonfile.Reader, jsonfile.Object) any
		want any
		err  string
	}{
		{name: "known fields only", src: `{"a":1,"b":2}`, read: known("a", "b")},
		{name: "unknown field, first in sorted order", src: `{"z":1,"c":2,"a":3}`, read: known("a", "b"),
			err: "x.c: unknown field (known: a, b)"},

		{name: "object", src: `{"o":{}}`, read: object("o", true), want: "x.o true"},
		{name: "object missing, optional", src: `{}`, read: object("o", false), want: " false"},
		{name: "object missing, required", src: `{}`, read: object("o", true), want: " false", err: "x.o: missing required field"},
		{name: "object of the wrong type", src: `{"o":[]}`, read: object("o", false), want: " false",
			err: "x.o: wrong type: want an object, got an array"},

		{name: "string", src: `{"s":"v"}`, read: str("s", true), want: "v"},
		{name: "string missing, optional", src: `{}`, read: str("s", false), want: ""},
		{name: "string missing, required", src: `{}`, read: str("s", true), want: "", err: "x.s: missing required field"},
		{name: "string blank, optional", src: `{"s":" "}`, read: str("s", false), want: " "},
		{name: "string blank, required", src: `{"s":" "}`, read: str("s", true), want: " ", err: "x.s: empty"},
		{name: "string of the wrong type", src: `{"s":1}`, read: str("s", false), want: "",
			err: "x.s: wrong type: want a string, got a number"},
		{name: "string null", src: `{"s":null}`, read: str("s", true), want: "", err: "x.s: wrong type: want a string, got null"},

		{name: "boolean", src: `{"b":false}`, read: boolean("b", true), want: false},
		{name: "boolean missing takes its default", src: `{}`, read: boolean("b", true), want: true},
		{name: "boolean of the wrong type", src: `{"b":"yes"}`, read: boolean("b", true), want: false,
			err: "x.b: wrong type: want a boolean, got a string"},

		{name: "integer", src: `{"n":2}`, read: integer("n", true), want: 2},
		{name: "integer missing, optional, takes its default", src: `{}`, read: integer("n", false), want: 3},
		{name: "integer missing, required", src: `{}`, read: integer("n", true), want: 3, err: "x.n: missing required field"},
		{name: "integer of the wrong type", src: `{"n":true}`, read: integer("n", false), want: 3,
			err: "x.n: wrong type: want an integer, got a boolean"},
		{name: "integer with a fraction", src: `{"n":2.5}`, read: integer("n", false), want: 3,
			err: "x.n: wrong type: want an integer, got 2.5"},
		{name: "integer out of range", src: `{"n":5}`, read: integer("n", false), want: 3, err: "x.n: 5 out of range 1…4"},

		{name: "list", src: `{"l":[1,2]}`, read: list("l"), want: "2 true"},
		{name: "list missing", src: `{}`, read: list("l"), want: "0 false"},
		{name: "list of the wrong type", src: `{"l":{}}`, read: list("l"), want: "0 false",
			err: "x.l: wrong type: want an array, got an object"},
		{name: "list over its bound", src: `{"l":[1,2,3]}`, read: list("l"), want: "0 false", err: "x.l: more than 2 entries"},

		{name: "strings", src: `{"l":["a","b"]}`, read: strs("l", true), want: "a,b"},
		{name: "strings missing, optional", src: `{}`, read: strs("l", false), want: ""},
		{name: "strings missing, required", src: `{}`, read: strs("l", true), want: "", err: "x.l: missing required field"},
		{name: "strings empty, optional", src: `{"l":[]}`, read: strs("l", false), want: ""},
		{name: "strings empty, required", src: `{"l":[]}`, read: strs("l", true), want: "", err: "x.l: empty list"},
		{name: "strings with a blank entry", src: `{"l":["a"," "]}`, read: strs("l", false), want: "", err: "x.l[1]: empty"},
		{name: "strings with a number", src: `{"l":[1]}`, read: strs("l", false), want: "",
			err: "x.l[0]: wrong type: want a string, got a number"},
		{name: "strings not a list, required, keeps the type error", src: `{"l":"a"}`, read: strs("l", true), want: "",
			err: "x.l: wrong type: want an array, got a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(t, tt.src, 2, tt.read)
			if got != tt.want || err != tt.err {
				t.Fatalf("got %#v, error %q; want %#v, error %q", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestReaderKeepsTheFirstError(t *testing.T) {
	t.Parallel()
	top, err := jsonfile.Decode([]byte(`{"a":1,"b":2}`), 100)
	if err != nil {
		t.Fatal(err)
	}
	var r jsonfile.Reader
	r.Str(top, "a", true)
	r.Str(top, "b", true)
	r.Fail("c", "later")
	if r.Err == nil || r.Err.Field != "a" {
		t.Fatalf("got %v, want the error of field a", r.Err)
	}
}

func Example() {
	top, err := jsonfile.Decode([]byte(`{"name":"acme","turn":{"selector":"div.msg","speaker":{"user":["me",""]}}}`), 1<<20)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &jsonfile.Reader{ListLenMax: 256}
	r.Known(top, "name", "turn")
	name := r.Str(top, "name", true)
	if turn, ok := r.Object(top, "turn", true); ok {
		r.Known(turn, "selector", "speaker")
		r.Str(turn, "selector", true)
		if s, ok := r.Object(turn, "speaker", false); ok {
			r.Strs(s, "user", true)
		}
	}
	fmt.Println(name, r.Err)
	// Output: acme turn.speaker.user[1]: empty
}
