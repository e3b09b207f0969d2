package observe_test

import (
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/observe"
)

// FuzzNormalize: Normalize is strings.Join(strings.Fields(s), " ") for
// every input, valid UTF-8 or not.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "a", " a  b ", "\t\n\v\f\r x \u0085y\u00a0z\u2003", "a\xffb  \xc3", "\u3000日本\u3000語 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := observe.Normalize(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("Normalize(%q) = %q, want %q", s, got, want)
		}
	})
}
