package observe_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/andybalholm/cascadia"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
)

// TestClosedShadowRootsAreNamed proves LIB-2's "a closed root is named":
// a host the capture marks is listed by the document and by every view,
// and an open root's content (the composed tree) is page: matched by
// selectors through the host and read as text and candidates.
func TestClosedShadowRootsAreNamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		html   string
		closed []string // tags
	}{
		{"none", `<body><x-chat data-rl-node="1"><p data-rl-node="2">Hello</p></x-chat></body>`, nil},
		{"one closed host", `<body><x-chat data-rl-node="1"><p data-rl-node="2">Hello</p></x-chat><x-badge data-rl-node="3" data-rl-shadow="closed"></x-badge></body>`, []string{"x-badge"}},
		{"two, one nested in an open root", `<body><x-chat data-rl-node="1"><x-card data-rl-node="4" data-rl-shadow="closed"></x-card><p data-rl-node="2">Hello</p></x-chat><x-badge data-rl-node="3" data-rl-shadow="closed"></x-badge></body>`, []string{"x-card", "x-badge"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := observe.Parse(capture.New("http://x/", tt.html))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range doc.ClosedRoots {
				if r.Frame != capture.MainFrame || r.Node == "" {
					t.Errorf("closed root %+v: want the main frame and the host's node id", r)
				}
				got = append(got, r.Tag)
			}
			if strings.Join(got, ",") != strings.Join(tt.closed, ",") {
				t.Fatalf("closed roots %v, want %v", got, tt.closed)
			}
			o := observe.Observe(doc, 1, observe.Options{})
			s := o.View(observe.ViewPage, observe.PageLimits)
			if len(s.ClosedRoots) != len(tt.closed) {
				t.Errorf("the view lists %d closed roots, want %d", len(s.ClosedRoots), len(tt.closed))
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(b), `"closedShadowRoots"`); has != (len(tt.closed) > 0) {
				t.Errorf("view JSON names closed roots: %v, want %v", has, len(tt.closed) > 0)
			}
			if !strings.Contains(s.Text, "Hello") {
				t.Errorf("an open root's text is not page text: %q", s.Text)
			}
			if doc.Select(cascadia.MustCompile("x-chat > p")).Length() != 1 {
				t.Error("x-chat > p does not match the top-level element of its root")
			}
		})
	}
}
