package steps

import (
	"bytes"
	"strings"
	"testing"
)

// TestSuggest: the typos of issue 13 get the step they meant first.
func TestSuggest(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"missing dash and parameters", "a marker style chat", "Given a marker-style chat with 4 earlier turns"},
		{"wrong tense, other quoted text", `I sent "Hello"`, `And I send "What is the capital of France?"`},
		{"words for numbers", "a marker styled chat with two earlier turns", "Given a marker-style chat with 4 earlier turns"},
		{"a typo in a word", "I wait for the answr", "And I wait for the answer"},
		{"quotes left out", "the answer status is complete", `Then the answer status is "complete"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Suggest(tc.text, SuggestCount)
			if len(got) != SuggestCount {
				t.Fatalf("got %d suggestions, want %d", len(got), SuggestCount)
			}
			if got[0].Example != tc.want {
				var ex []string
				for _, d := range got {
					ex = append(ex, d.Example)
				}
				t.Fatalf("got %q, want %q first", ex, tc.want)
			}
		})
	}
}

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
