package adapter

import (
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/observe"
)

// parse parses a single-frame page for a test.
func parse(tb testing.TB, src string) *observe.Document {
	tb.Helper()
	doc, err := observe.ParseHTML("https://chat.test/", src)
	if err != nil {
		tb.Fatalf("parse: %v", err)
	}
	return doc
}

// page wraps body markup in a document with an sr-only style.
func page(body string) string {
	return `<!doctype html><html><head><style>.sr-only{position:absolute;width:1px;height:1px;clip:rect(0,0,0,0)}</style></head><body>` + body + `</body></html>`
}

// summary is the part of a group a table row checks.
type summary struct {
	ID, State, Text string
}

func summarize(r Result) []summary {
	out := make([]summary, len(r.Groups))
	for i, g := range r.Groups {
		out[i] = summary{g.ID, g.State, g.Text}
	}
	return out
}

func sameSummaries(got, want []summary) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func repeat(n int, f func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(f(i))
	}
	return b.String()
}
