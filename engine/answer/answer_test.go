package answer

import (
	"testing"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
)

func TestNewestIsAfterTheBaseline(t *testing.T) {
	groups := func(ids ...string) adapter.Result {
		r := adapter.Result{Structure: true}
		for _, id := range ids {
			r.Groups = append(r.Groups, adapter.Group{ID: id})
		}
		return r
	}
	tests := []struct {
		name     string
		baseline []string
		page     []string
		want     string // "" none
	}{
		{"a new group after the baseline", []string{"a", "b"}, []string{"a", "b", "new"}, "new"},
		{"no new group", []string{"a", "b"}, []string{"a", "b"}, ""},
		{"history loaded above the baseline is not new", []string{"a", "b"}, []string{"old1", "old2", "a", "b"}, ""},
		{"history above and a new answer", []string{"a", "b"}, []string{"old1", "a", "b", "new"}, "new"},
		{"the last of two new groups", []string{"a"}, []string{"a", "n1", "n2"}, "n2"},
		{"an empty baseline takes the last group", nil, []string{"x", "y"}, "y"},
		{"no groups at all", []string{"a"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBaseline(groups(tt.baseline...))
			g, ok := b.Newest(groups(tt.page...))
			if got := map[bool]string{true: g.ID}[ok]; got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A regenerate or retry replaces the last answer in place, under a new id
// or the old one (InPlace): the group under the old id is new once it
// reads otherwise (another element, state or text), and only that group.
func TestNewestInPlaceUnderTheOldID(t *testing.T) {
	g := func(id, node, state, text string) adapter.Group {
		n := &html.Node{Type: html.ElementNode, Data: "article", Attr: []html.Attribute{{Key: capture.AttrNode, Val: node}}}
		return adapter.Group{ID: id, Node: n, State: state, Text: text}
	}
	before := adapter.Result{Groups: []adapter.Group{g("a", "1", "complete", "old a"), g("b", "2", "complete", "old b")}}
	tests := []struct {
		name    string
		inPlace bool
		last    adapter.Group
		want    string // "" none
	}{
		{"not yet replaced", true, g("b", "2", "complete", "old b"), ""},
		{"another element under the old id", true, g("b", "9", "generating", ""), "b"},
		{"the same element, generating again", true, g("b", "2", "generating", "old b"), "b"},
		{"the same element, new text", true, g("b", "2", "complete", "new b"), "b"},
		{"a new id", true, g("c", "9", "generating", ""), "c"},
		{"without InPlace the old id is never new", false, g("b", "9", "generating", ""), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBaseline(before)
			if tt.inPlace {
				b.InPlace(before)
			}
			page := adapter.Result{Groups: []adapter.Group{before.Groups[0], tt.last}}
			got, ok := b.Newest(page)
			if id := map[bool]string{true: got.ID}[ok]; id != tt.want {
				t.Fatalf("got %q, want %q", id, tt.want)
			}
		})
	}
}
