package steps

import (
	"testing"

	"github.com/replaylab/replaylab/harness"
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
			got := harness.Suggest(Catalogue(), tc.text, harness.SuggestCount)
			if len(got) != harness.SuggestCount {
				t.Fatalf("got %d suggestions, want %d", len(got), harness.SuggestCount)
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
