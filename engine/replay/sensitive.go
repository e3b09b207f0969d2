package replay

import (
	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
)

// SensitiveNode reports whether the element with the given stable node id
// in c is a sensitive field (password, one-time code, card data), by the
// loop monitor's one definition of sensitive (monitor.IsSensitive) over its
// type, autocomplete, name, id, label and placeholder.
func SensitiveNode(c *capture.Capture, node string) bool {
	if c == nil {
		return false
	}
	doc, err := observe.Parse(c)
	if err != nil {
		return false
	}
	sensitive := false
	doc.Walk(func(f *observe.Frame, n *html.Node) bool {
		if sensitive || doc.NodeID(n) != node {
			return !sensitive
		}
		sensitive = monitor.IsSensitive(monitor.ControlInfo{
			Type:         observe.Attr(n, "type"),
			Autocomplete: observe.Attr(n, "autocomplete"),
			Name:         observe.Attr(n, "name"),
			ID:           observe.Attr(n, "id"),
			Label:        doc.Name(n),
			Placeholder:  observe.Attr(n, "placeholder"),
		})
		return false
	})
	return sensitive
}
