package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
)

// LIB-5: a target by selector, or scoped to an answer group, resolves to
// the one match inside that group; errors name a selector as given.
func TestResolveScopedAndBySelector(t *testing.T) {
	page := `<main>
<div data-role="user" data-id="u1"><p>Hi</p></div>
<div data-role="assistant" data-id="a1"><p>First.</p><button class="copy" aria-label="Copy">c</button><button class="regen">Regenerate</button></div>
<div data-role="user" data-id="u2"><p>Again</p></div>
<div data-role="assistant" data-id="a2"><p>Second.</p><button class="copy" aria-label="Copy">c</button><button class="regen">Regenerate</button></div>
</main><button class="stop-icon"><svg aria-hidden="true"></svg></button>`
	doc, err := observe.ParseHTML("http://test/", page)
	if err != nil {
		t.Fatal(err)
	}
	groups := adapter.DefaultMarker.Groups(doc)
	if len(groups.Groups) != 2 {
		t.Fatalf("groups %v", groups.IDs())
	}
	o := observe.Observe(doc, 1, observe.Options{GroupOf: groups.GroupOf(), GroupRoots: groups.GroupRoots()})
	tests := []struct {
		name   string
		target Target
		code   errcode.Code
		group  string // the match's group
		msg    string // in the error
	}{
		{"a role and name on every answer is ambiguous", ByRole("button", "Copy"), locate.TargetAmbiguous, "", `role=button name="Copy"`},
		{"scoped to the newest answer", Target{Locator: locate.Locator{Role: "button", Name: "Copy"}, In: InNewest}, "", "a2", ""},
		{"scoped to a named answer", Target{Locator: locate.Locator{Role: "button", Name: "Regenerate"}, In: "a1"}, "", "a1", ""},
		{"a selector on every answer is ambiguous", BySelector("button.regen"), locate.TargetAmbiguous, "", `selector "button.regen"`},
		{"a selector scoped to the newest answer", Target{Selector: "button.regen", In: InNewest}, "", "a2", ""},
		{"an icon button without a name by selector", BySelector("button.stop-icon"), "", "", ""},
		{"a selector that matches nothing", BySelector("button.stop"), locate.TargetNotFound, "", `for selector "button.stop"`},
		{"a scope that names no group", Target{Selector: "button.regen", In: "a9"}, locate.TargetNotFound, "", "no answer group a9"},
		{"a match outside the scope", Target{Selector: "button.stop-icon", In: InNewest}, locate.TargetNotFound, "", "inside answer group a2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			group, err := scope(tt.target, groups)
			var el observe.Element
			if err == nil {
				el, err = resolveIn(o, tt.target, group)
			}
			if tt.code == "" {
				if err != nil || el.Group != tt.group {
					t.Fatalf("got %+v, %v; want a match in group %q", el, err, tt.group)
				}
				return
			}
			var le *locate.Error
			if !errors.As(err, &le) || errcode.Of(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, want %s mentioning %q", err, tt.code, tt.msg)
			}
			if strings.Contains(err.Error(), "role=selector") {
				t.Errorf("the selector is not named plainly: %v", err)
			}
		})
	}
}
