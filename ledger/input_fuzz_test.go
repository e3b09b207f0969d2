package ledger

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzCheckJSONText: whatever CheckJSONText accepts and encoding/json
// decodes has no NUL and no U+FFFD that the text did not spell itself, so
// two different accepted inputs never decode to one value by replacement.
func FuzzCheckJSONText(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"a":"\ud800"}`, `{"a":"\ud83d\ude00"}`, `{"a":"\u0000"}`, `"\\u0000"`, `{"\udc00":1}`, `["\ud800\u0041"]`, "{\"a\":\"\xff\"}", `"\`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if CheckJSONText("x", raw) != nil || !json.Valid(raw) {
			return
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return
		}
		spelled := strings.Contains(string(raw), "\ufffd") || strings.Contains(strings.ToLower(string(raw)), `\ufffd`)
		var walk func(any)
		walk = func(x any) {
			switch x := x.(type) {
			case string:
				if strings.IndexByte(x, 0) >= 0 {
					t.Fatalf("accepted %q decodes to a NUL", raw)
				}
				if !spelled && strings.ContainsRune(x, utf8.RuneError) {
					t.Fatalf("accepted %q decodes with a replacement character", raw)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for k, e := range x {
					walk(k)
					walk(e)
				}
			}
		}
		walk(v)
	})
}

// FuzzParseSignature: any header parses without panic, and a header made
// by SignCallback always parses back to its timestamp and one MAC.
func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{"t=1,v1=" + strings.Repeat("ab", 32), "t=,v1=", "v1=zz", "t=1,t=2,v1=00", ",,,", "t=9999999999999999999,v1=00"} {
		f.Add(s, int64(1700000000), []byte(`{"attemptId":"a"}`))
	}
	f.Fuzz(func(t *testing.T, h string, unix int64, body []byte) {
		_, _, _, _ = parseSignature(h)
		at := time.Unix(unix%(1<<40), 0)
		sig := SignCallback("whsec_x", at, body)
		ts, got, macs, ok := parseSignature(sig)
		if !ok || !got.Equal(at) || len(macs) != 1 || string(macs[0]) != string(callbackMAC("whsec_x", ts, body)) {
			t.Fatalf("SignCallback's %q does not parse back", sig)
		}
	})
}
