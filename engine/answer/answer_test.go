package answer

import (
	"testing"

	"github.com/replaylab/replaylab/engine/adapter"
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
