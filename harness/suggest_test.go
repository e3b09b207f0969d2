package harness

import (
	"bytes"
	"strings"
	"testing"
)

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"send", "sent", 1}, {"flaw", "lawn", 2},
	}
	for _, tc := range tests {
		if got := levenshtein([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestSnippetFilter: godog's snippets are cut, whatever the write sizes;
// everything before them passes.
func TestSnippetFilter(t *testing.T) {
	in := "1 scenarios (1 undefined)\n2 steps\n\n\x1b[33m" + snippetMarker + "\x1b[0m\nfunc iSent(arg1 string) error {\n}\n"
	for _, size := range []int{1, 3, 7, len(in)} {
		var out bytes.Buffer
		f := &snippetFilter{w: &out}
		for i := 0; i < len(in); i += size {
			end := min(i+size, len(in))
			if _, err := f.Write([]byte(in[i:end])); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != "1 scenarios (1 undefined)\n2 steps\n\n" || strings.Contains(got, "func") {
			t.Fatalf("writes of %d bytes: got %q", size, got)
		}
	}
}
