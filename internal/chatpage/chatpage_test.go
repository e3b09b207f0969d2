package chatpage

import (
	"strings"
	"testing"
)

func TestRenderSeeded(t *testing.T) {
	a := Render(Options{Turns: 20, Seed: 1})
	if a != Render(Options{Turns: 20, Seed: 1}) {
		t.Fatal("the same options gave different pages")
	}
	if a == Render(Options{Turns: 20, Seed: 2}) {
		t.Fatal("another seed gave the same page")
	}
	for _, n := range Sizes {
		p := Render(Options{Turns: n, Seed: 1})
		if got := strings.Count(p, `data-message-author-role="assistant"`); got != n/2 {
			t.Errorf("%d turns: %d assistant turns, want %d", n, got, n/2)
		}
		if got := strings.Count(p, "<li><a href=\"/c/"); got != DefaultSidebar {
			t.Errorf("%d turns: %d sidebar links", n, got)
		}
		t.Logf("%d turns: %d bytes", n, len(p))
	}
}
