package browser

import (
	"encoding/json"
	"testing"
)

// unquoteJSON reads every JSON string literal as encoding/json does.
func TestUnquoteJSONMatchesEncodingJSON(t *testing.T) {
	tests := []struct{ name, raw string }{
		{"empty", `""`},
		{"plain", `"[1,2,\"div\"]"`},
		{"every short escape", `"a\"b\\c\/d\be\ff\ng\rh\ti"`},
		{"a unicode escape", `"caf\u00e9 \u2028 \u0000"`},
		{"a surrogate pair", `"\ud83d\ude00!"`},
		{"a lone high surrogate", `"\ud83d!"`},
		{"a lone high surrogate at the end", `"x\ud83d"`},
		{"a lone low surrogate", `"\ude00"`},
		{"two high surrogates", `"\ud83d\ud83d\ude00"`},
		{"a high surrogate before another escape", `"\ud83d\n"`},
		{"raw UTF-8", `"é 😀 ✓"`},
		{"upper-case hex", `"\u00E9\uD83D\uDE00"`},
		{"invalid UTF-8", "\"a\xffb\""},
		{"a raw control character", "\"a\nb\""},
		{"a bad escape", `"\x"`},
		{"a short unicode escape", `"\u12"`},
		{"a trailing backslash", `"a\"`},
		{"an unescaped quote", `"a"b"`},
		{"not a string", `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want string
			wantErr := json.Unmarshal([]byte(tt.raw), &want)
			got, err := unquoteJSON([]byte(tt.raw))
			if (err != nil) != (wantErr != nil) || got != want {
				t.Errorf("unquoteJSON(%s) = %q, %v; encoding/json: %q, %v", tt.raw, got, err, want, wantErr)
			}
		})
	}
}

func BenchmarkUnquoteJSON(b *testing.B) {
	var s []byte
	for len(s) < 3_000_000 {
		s = append(s, `[1,7,"div",["class","turn text"],"",null,false,false,null,[[3,8,"Some words é"]]],`...)
	}
	raw, err := json.Marshal(string(s))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := unquoteJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}
