package adapter

import (
	"slices"
	"testing"

	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/internal/chatpage"
)

// selectPage has candidates and non-candidates under the same selectors:
// a hidden button, a paragraph, and a button in a srcdoc frame.
var selectPage = page(`<main><div class="turn"><p>Hi</p><button class="copy">Copy</button></div>` +
	`<div class="turn"><p>There</p><button class="copy">Copy</button></div>` +
	`<button class="copy" hidden>Gone</button>` +
	`<form><textarea id="composer" aria-label="Message"></textarea><button type="submit">Send</button></form>` +
	`<iframe srcdoc="&lt;button class=&quot;copy&quot;&gt;Framed&lt;/button&gt;"></iframe></main>`)

// TestSelectCandidates: the candidates goquery's query keeps are the ones
// a per-candidate match keeps, in the same order, and the count names
// every element matched, candidate or not.
func TestSelectCandidates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		src, sel   string
		candidates int
		matched    int
		invalid    bool
	}{
		{"buttons of one class, hidden and framed ones too", selectPage, "button.copy", 3, 4, false},
		{"a child combinator", selectPage, "div.turn > button", 2, 2, false},
		{"an id", selectPage, "#composer", 1, 1, false},
		{"no candidate, some elements", selectPage, "div.turn > p", 0, 2, false},
		{"nothing at all", selectPage, "video", 0, 0, false},
		{"a group", selectPage, "#composer, button[type=submit]", 2, 2, false},
		{"the seeded chat page's links", chatpage.Render(chatpage.Options{Turns: 20, Seed: 1}), "nav a", -1, -1, false},
		{"invalid", selectPage, "button[", 0, 0, true},
		{"empty", selectPage, "", 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := observe.Observe(parse(t, tc.src), 1, observe.Options{})
			got, matched, err := SelectCandidates(o, tc.sel)
			if tc.invalid {
				if err == nil {
					t.Fatalf("%q: no error", tc.sel)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := CompileSelector(tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			var want []observe.Element
			for _, e := range o.All {
				if n := e.HTMLNode(); n != nil && m.Match(n) {
					want = append(want, e)
				}
			}
			refs := func(l []observe.Element) []string {
				var out []string
				for _, e := range l {
					out = append(out, e.Ref)
				}
				return out
			}
			if !slices.Equal(refs(got), refs(want)) {
				t.Fatalf("candidates %v, a match per candidate keeps %v", refs(got), refs(want))
			}
			if tc.candidates >= 0 && len(got) != tc.candidates {
				t.Errorf("%d candidates, want %d", len(got), tc.candidates)
			}
			if tc.matched >= 0 && matched != tc.matched {
				t.Errorf("%d elements matched, want %d", matched, tc.matched)
			}
			if matched < len(got) {
				t.Errorf("%d elements matched, fewer than the %d candidates", matched, len(got))
			}
		})
	}
}
