package site

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/internal/jsonfile"
)

// Ready is a profile's "ready" (SPEC APP-1): when the site's page is
// ready to be read. Every condition named must hold: an element matching
// Selector is on the page (visible), Text is in the page's visible text,
// and nothing visible matches Absent (a loading skeleton or spinner).
// With none named, the engine's default applies: no request in flight
// and the DOM quiet for a short window (engine.Readiness).
//
//	"ready": {"selector": "#thread[data-ready=true]", "absent": ".skeleton", "timeout_ms": 10000}
type Ready struct {
	Selector string `json:"selector,omitempty"`
	Text     string `json:"text,omitempty"`
	Absent   string `json:"absent,omitempty"`
	// TimeoutMS bounds the wait (default engine.DefaultReadyTimeout).
	TimeoutMS int `json:"timeout_ms,omitempty"`

	sel, absent cascadia.Matcher
}

// ReadyTimeoutMSMax bounds "ready.timeout_ms".
const ReadyTimeoutMSMax = 120_000

// Named reports whether the profile names its readiness.
func (r Ready) Named() bool { return r.Selector != "" || r.Text != "" || r.Absent != "" }

// Awaited describes the conditions ("selector \"#thread[data-ready=true]\"
// and no \".skeleton\"").
func (r Ready) Awaited() string {
	var parts []string
	if r.Selector != "" {
		parts = append(parts, "selector "+strconv.Quote(r.Selector))
	}
	if r.Text != "" {
		parts = append(parts, "the text "+strconv.Quote(r.Text))
	}
	if r.Absent != "" {
		parts = append(parts, "no "+strconv.Quote(r.Absent))
	}
	return strings.Join(parts, " and ")
}

// Missing returns "" when doc is ready, else what does not hold yet.
func (r Ready) Missing(doc *observe.Document) string {
	var miss []string
	if r.sel != nil && count(doc, r.sel, 1) == 0 {
		miss = append(miss, "nothing matches "+strconv.Quote(r.Selector))
	}
	if r.Text != "" && !hasText(doc, r.Text) {
		miss = append(miss, strconv.Quote(r.Text)+" is not on the page")
	}
	if r.absent != nil {
		if n := count(doc, r.absent, 100); n > 0 {
			miss = append(miss, fmt.Sprintf("%q still shows (%d element%s)", r.Absent, n, plural(n)))
		}
	}
	return strings.Join(miss, "; ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// count counts the visible elements matching m in the main frame, up to
// max.
func count(doc *observe.Document, m cascadia.Matcher, max int) int {
	n := 0
	for _, f := range doc.Frames {
		if f.ID != "main" {
			continue
		}
		observe.WalkElements(f.Root, func(e *html.Node) bool {
			if n >= max || doc.Hidden(e) {
				return false
			}
			if m.Match(e) {
				n++
			}
			return true
		})
	}
	return n
}

// hasText reports whether text (whitespace-normalised, case-sensitive) is
// in the main frame's visible text.
func hasText(doc *observe.Document, text string) bool {
	want := observe.Normalize(text)
	var b strings.Builder
	for _, f := range doc.Frames {
		if f.ID != "main" {
			continue
		}
		var rec func(n *html.Node)
		rec = func(n *html.Node) {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				switch {
				case c.Type == html.TextNode:
					b.WriteString(c.Data)
				case c.Type == html.ElementNode && !doc.Hidden(c) && c.Data != "script" && c.Data != "style":
					b.WriteString(" ")
					rec(c)
					b.WriteString(" ")
				}
			}
		}
		rec(f.Root)
	}
	return strings.Contains(observe.Normalize(b.String()), want)
}

// Readiness is what the engine waits for on p's pages: the profile's
// "ready", the default when it names none, and the sim's pages are ready
// at their load event (the sim renders on the server).
func (p *Profile) Readiness() engine.Readiness {
	if p.IsSim() {
		return engine.Readiness{AtLoad: true}
	}
	r := engine.Readiness{Timeout: time.Duration(p.Ready.TimeoutMS) * time.Millisecond}
	if p.Ready.Named() {
		ready := p.Ready
		r.Check, r.Awaited = ready.Missing, ready.Awaited()
	}
	return r
}

// ready reads "ready".
func (ps *parser) ready(o jsonfile.Object, p *Profile) {
	r, ok := ps.Object(o, "ready", false)
	if !ok {
		return
	}
	ps.Known(r, "selector", "text", "absent", "timeout_ms")
	if _, ok := r.M["selector"]; ok {
		p.Ready.Selector = ps.Str(r, "selector", true)
		if ps.Err == nil {
			p.Ready.sel = ps.selector(jsonfile.Join(r.Path, "selector"), p.Ready.Selector)
		}
	}
	if _, ok := r.M["text"]; ok {
		p.Ready.Text = ps.Str(r, "text", true)
		if ps.Err == nil && strings.TrimSpace(p.Ready.Text) == "" {
			ps.Fail(jsonfile.Join(r.Path, "text"), "empty")
		}
	}
	if _, ok := r.M["absent"]; ok {
		p.Ready.Absent = ps.Str(r, "absent", true)
		if ps.Err == nil {
			p.Ready.absent = ps.selector(jsonfile.Join(r.Path, "absent"), p.Ready.Absent)
		}
	}
	p.Ready.TimeoutMS = ps.Int(r, "timeout_ms", false, 1, ReadyTimeoutMSMax, 0)
	if ps.Err == nil && !p.Ready.Named() {
		ps.Fail(r.Path, `names no condition: give "selector", "text" or "absent" (or leave "ready" out for the default)`)
	}
}
