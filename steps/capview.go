package steps

import (
	"fmt"
	"strings"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/report"
)

// viewOf is the engine's bounded page view of a capture, as text, and
// the answer groups ad finds in it with their element ids (ad may be
// nil): what the HTML report shows beside each capture.
func viewOf(ad adapter.Adapter, c *capture.Capture) report.CaptureView {
	doc, err := observe.Parse(c)
	if err != nil {
		return report.CaptureView{Snapshot: "observe: " + err.Error()}
	}
	var groups adapter.Result
	if ad != nil {
		groups = ad.Groups(doc)
	}
	o := observe.Observe(doc, 1, observe.Options{GroupOf: groups.GroupOf(), GroupRoots: groups.GroupRoots()})
	s := o.View(observe.ViewPage, observe.PageLimits)
	var b strings.Builder
	fmt.Fprintf(&b, "view %s of %s (complete: %v)\n", s.View, s.URL, s.Complete)
	fmt.Fprintf(&b, "elements %d/%d  text %d/%d chars\n", s.Counts.Elements.Returned, s.Counts.Elements.Total, s.Counts.Text.Returned, s.Counts.Text.Total)
	for _, e := range s.Elements {
		line := fmt.Sprintf("  %-7s %-9s %q", e.Ref, e.Role, e.Name)
		if e.Value != "" {
			line += fmt.Sprintf(" value=%q", e.Value)
		}
		if e.Group != "" {
			line += " group=" + e.Group
		}
		if e.Node != "" {
			line += " node=" + e.Node
		}
		b.WriteString(line + "\n")
	}
	view := report.CaptureView{}
	for _, g := range groups.Groups {
		text := g.Text
		if r := []rune(text); len(r) > 80 {
			text = string(r[:80]) + "…"
		}
		fmt.Fprintf(&b, "group %s [%s] %q\n", g.ID, g.State, text)
		gn := report.GroupNodes{ID: g.ID, State: g.State}
		for _, n := range append([]*html.Node{g.Node}, g.Nodes...) {
			if id := viewNodeID(n); id != "" {
				gn.Nodes = append(gn.Nodes, id)
			}
		}
		view.Groups = append(view.Groups, gn)
	}
	if s.Text != "" {
		b.WriteString("text: " + s.Text + "\n")
	}
	view.Snapshot = b.String()
	return view
}

func viewNodeID(n *html.Node) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == capture.AttrNode {
			return a.Val
		}
	}
	return ""
}
