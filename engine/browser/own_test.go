package browser

import (
	"errors"
	"testing"
)

// decodeFull reads a whole-document serialisation: strings in tag,
// attribute and text positions interned in the order they are written,
// ids as differences, and refuses anything that does not resolve.
func TestDecodeFullWholeDocument(t *testing.T) {
	tests := []struct {
		name string
		in   string
		html string // "" with ok false: an error
		ok   bool
	}{
		{
			name: "strings interned and ids as differences",
			// html=0 body=1 class=2 a=3; ids 1, 2, 3, 4, 6
			in:   `["u","t",7,[[10,0],[1,0,"html",[],[[1,0,"body",["class","a"],[[3,0,"a"],[3,1,3]]]]]]]`,
			html: `<!DOCTYPE html><html data-rl-node="t2"><body class="a" data-rl-node="t3">aa</body></html>`,
			ok:   true,
		},
		{
			name: "a repeated tag and attribute name, an id skipped",
			in:   `["u","t",5,[[1,0,"html",[],[[1,0,"p",["id","x"],[]],[1,2,1,[2,"y"],[]]]]]]`,
			html: `<html data-rl-node="t1"><p id="x" data-rl-node="t2"></p><p id="y" data-rl-node="t5"></p></html>`,
			ok:   true,
		},
		{name: "a string number past the table", in: `["u","t",2,[[1,0,"html",[],[[3,0,1]]]]]`},
		{name: "a negative string number", in: `["u","t",2,[[1,0,"html",[],[[3,0,-1]]]]]`},
		{name: "a string number before any string", in: `["u","t",1,[[1,0,0,[],[]]]]`},
		{name: "an unknown node kind", in: `["u","t",1,[[4,0,"x"]]]`},
		{name: "cut short", in: `["u","t",1,[[1,0,"html",[],[`},
		{name: "not an array", in: `{"full":"frames"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := decodeFull(tt.in)
			if !tt.ok {
				if err == nil {
					t.Fatalf("decodeFull(%s): no error", tt.in)
				}
				if !errors.Is(err, errDecline) {
					t.Fatalf("decodeFull(%s) = %v, want an error wrapping errDecline", tt.in, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeFull: %v", err)
			}
			f.tree.root.renderAll()
			if got := f.tree.html(); got != tt.html {
				t.Fatalf("html:\n got %s\nwant %s", got, tt.html)
			}
		})
	}
}
