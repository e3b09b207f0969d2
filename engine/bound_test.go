package engine_test

import (
	"testing"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
)

// TestBoundGroupsCutsCharacters: a group's text is cut at TextCharsMax
// characters, not bytes, and a text that fits is left as it is.
func TestBoundGroupsCutsCharacters(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
		max              int
		cut              bool
	}{
		{name: "ascii over", text: "abcdef", max: 4, want: "abcd", cut: true},
		{name: "multibyte over", text: "é✓😀ab", max: 3, want: "é✓😀", cut: true},
		{name: "multibyte fits in characters, not in bytes", text: "é✓😀", max: 3, want: "é✓😀"},
		{name: "exactly the limit", text: "abcd", max: 4, want: "abcd"},
		{name: "zero", text: "ab", max: 0, want: "", cut: true},
		{name: "empty", text: "", max: 2, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, c := engine.BoundGroups([]adapter.Group{{ID: "g1", Text: tc.text}}, engine.GroupLimits{GroupsMax: 5, TextCharsMax: tc.max})
			if len(out) != 1 || out[0].Text != tc.want || out[0].TextTruncated != tc.cut || c.Truncated != tc.cut {
				t.Fatalf("got %+v, count %+v; want text %q, cut %v", out, c, tc.want, tc.cut)
			}
		})
	}
}
