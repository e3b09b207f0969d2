package ledger_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/replaylab/replaylab/ledger"
)

func TestCanonicalJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"sorted keys", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"whitespace", " { \"a\" : [ 1 , 2 ] } ", `{"a":[1,2]}`},
		{"nested", `{"z":{"y":1,"x":[{"b":true,"a":null}]}}`, `{"z":{"x":[{"a":null,"b":true}],"y":1}}`},
		{"integer forms", `[1, 1.0, 10e-1, 0.1e1, -0, 100e-2]`, `[1,1,1,1,0,1]`},
		{"fractions", `[0.50, 1.250e1, -2.5E-3]`, `[0.5,12.5,-0.0025]`},
		{"big integers stay exact", `[12345678901234567890, 12345678901234567891]`, `[12345678901234567890,12345678901234567891]`},
		{"no html escaping", `{"a":"<&>"}`, `{"a":"<&>"}`},
		{"unicode escapes", `{"a":"\u00e9"}`, `{"a":"é"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ledger.CanonicalJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
	for _, bad := range []string{``, `{`, `{"a":1,"a":2}`, `{} {}`, "\"\xff\"", `1e99999`, `[` + string(bytes.Repeat([]byte("["), 100))} {
		if got, err := ledger.CanonicalJSON([]byte(bad)); err == nil {
			t.Errorf("CanonicalJSON(%q) = %s, want an error", bad, got)
		}
	}
}

// FuzzCanonicalJSON: never panics; the canonical form is valid JSON, is its
// own canonical form, and equal JSON values (the input re-indented) have
// equal digests.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"b":[1,2.50,{"c":null}],"a":"x"}`, `[1e3, -0.0, 1E-2]`, `"\u2028"`, `{"a":{"a":{"a":1}}}`, `[1e-1000, 1e1000, 0.000e5]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := ledger.CanonicalJSON(in)
		if err != nil {
			return
		}
		if !json.Valid(c) {
			t.Fatalf("canonical form %q is not valid JSON", c)
		}
		c2, err := ledger.CanonicalJSON(c)
		if err != nil || !bytes.Equal(c, c2) {
			t.Fatalf("not idempotent: %q → %q (%v)", c, c2, err)
		}
		var ind bytes.Buffer
		if err := json.Indent(&ind, in, "", "  "); err != nil {
			return
		}
		d1, _ := ledger.Digest(in)
		d2, err := ledger.Digest(ind.Bytes())
		if err != nil || d1 != d2 {
			t.Fatalf("re-indented input digests differ: %s vs %s (%v)", d1, d2, err)
		}
	})
}
