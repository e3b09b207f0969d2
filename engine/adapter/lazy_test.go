package adapter

import (
	"reflect"
	"testing"

	"github.com/replaylab/replaylab/internal/chatpage"
)

// TestLazyIsGroupsLoaded: a lazy result has the ids, rules and nodes of
// Groups' at once, leaves text, state and media unread, and once loaded
// is exactly Groups' result, for every built-in style and an adapter file.
func TestLazyIsGroupsLoaded(t *testing.T) {
	t.Parallel()
	file, err := LoadFile("testdata/acme.json")
	if err != nil {
		t.Fatal(err)
	}
	generating := `<div data-message-author-role="user" data-message-id="u1"><p>Hi</p></div>` +
		`<div data-message-author-role="assistant" data-message-id="a1"><p>Done.</p><img src="x.png" data-rl-ready="complete" data-rl-size="4x4"><button>Copy</button></div>` +
		`<div data-message-author-role="assistant" data-message-id="a2" aria-busy="true"><p>Half</p><button>Stop generating</button></div>`
	tests := []struct {
		name string
		ad   Adapter
		page string
	}{
		{"marker chat page", DefaultMarker, chatpage.Render(chatpage.Options{Turns: 40, Seed: 3})},
		{"marker generating, media", DefaultMarker, page(generating)},
		{"heading", DefaultHeading, benchPage("heading", 30)},
		{"heading flat", DefaultHeading, benchPage("heading-flat", 30)},
		{"auto picks heading", DefaultAuto, benchPage("heading", 12)},
		{"auto picks marker", DefaultAuto, page(generating)},
		{"adapter file", file, page(`<div class="msg" data-from="bot" data-msg-id="m1"><p>From a file.</p></div>`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parse(t, tt.page)
			want := tt.ad.Groups(doc)
			lazy := Lazy(tt.ad, doc)
			if len(lazy.Groups) != len(want.Groups) || lazy.Adapter != want.Adapter || lazy.Turns != want.Turns {
				t.Fatalf("lazy %s: %d groups, %d turns; want %s: %d, %d", lazy.Adapter, len(lazy.Groups), lazy.Turns, want.Adapter, len(want.Groups), want.Turns)
			}
			media := lazy.Media()
			var wantMedia []Media
			for i, g := range lazy.Groups {
				if g.ID != want.Groups[i].ID || g.Rule != want.Groups[i].Rule || g.Node != want.Groups[i].Node {
					t.Errorf("group %d: %s %q, want %s %q", i, g.ID, g.Rule, want.Groups[i].ID, want.Groups[i].Rule)
				}
				if g.State != "" {
					t.Errorf("group %s read before Load", g.ID)
				}
				wantMedia = append(wantMedia, want.Groups[i].Media...)
			}
			if len(media) != len(wantMedia) || (len(media) > 0 && !reflect.DeepEqual(media, wantMedia)) {
				t.Errorf("media %+v, want %+v", media, wantMedia)
			}
			lazy.Load(0, len(lazy.Groups))
			if !reflect.DeepEqual(lazy, want) {
				t.Errorf("loaded lazy result differs from Groups':\n%+v\n%+v", lazy, want)
			}
		})
	}
}
