package chatpage

import (
	"strings"
	"testing"
)

func TestRenderSeeded(t *testing.T) {
	t.Parallel()
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

func TestLive(t *testing.T) {
	t.Parallel()
	p := Render(Options{Turns: 4, Seed: 1, Sidebar: 2})
	l := Live(p)
	if got, want := strings.Count(l, `data-rl-node="`), strings.Count(p, "<")-strings.Count(p, "</")-1; got != want {
		t.Errorf("%d node ids, want one per element: %d", got, want)
	}
	if !strings.HasPrefix(l, "<!doctype html>\n<html lang=\"en\" data-rl-node=\"1\">") {
		t.Errorf("the root carries no node id: %.60q", l)
	}
	if !strings.Contains(l, `<div class="menu" data-rl-node="`) || strings.Count(l, `data-rl-hidden="display"`) != 2 {
		t.Error("the hidden menus carry no hidden state")
	}
	if strings.Contains(l, `/ data-rl-node`) {
		t.Error("a node id after a self-closing slash")
	}
}
