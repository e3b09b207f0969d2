// Package observe turns a capture into what an agent may see: a bounded,
// ordered list of candidate elements with roles, accessible names and
// snapshot-scoped refs, plus text and headings, each under its own limit and
// with its own truncation facts (SPEC §2).
//
// Everything here is a pure function of a capture: no I/O, no driver. The
// browser driver and a recording differ only in where the capture came from,
// so replay exercises exactly the code that runs live.
package observe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
)

// Document is a parsed capture: one parsed HTML tree per frame, with the
// stable node id of every element and the frame it belongs to.
type Document struct {
	URL    string
	Title  string
	Frames []*Frame

	frameOf map[*html.Node]string
	byID    map[string]map[string]*html.Node // frame → id attribute → element
	nodeIDs map[*html.Node]string
}

// Frame is one parsed document of the page.
type Frame struct {
	ID     string
	Parent string
	Owner  string
	URL    string
	Doc    *goquery.Document
	Root   *html.Node
}

// Parse parses every frame of c. Malformed HTML is not an error: the HTML5
// parser repairs it the way a browser does.
func Parse(c *capture.Capture) (*Document, error) {
	if c == nil {
		return nil, fmt.Errorf("observe: nil capture")
	}
	d := &Document{
		URL:     c.URL,
		Title:   c.Title,
		frameOf: map[*html.Node]string{},
		byID:    map[string]map[string]*html.Node{},
		nodeIDs: map[*html.Node]string{},
	}
	for _, f := range c.Frames {
		root, err := html.Parse(strings.NewReader(f.HTML))
		if err != nil {
			return nil, fmt.Errorf("observe: frame %s: %w", f.ID, err)
		}
		fr := &Frame{ID: f.ID, Parent: f.Parent, Owner: f.Owner, URL: f.URL, Doc: goquery.NewDocumentFromNode(root), Root: root}
		d.Frames = append(d.Frames, fr)
		ids := map[string]*html.Node{}
		d.byID[f.ID] = ids
		seq := 0
		walk(root, func(n *html.Node) bool {
			if n.Type != html.ElementNode {
				return true
			}
			seq++
			d.frameOf[n] = f.ID
			if id := attr(n, capture.AttrNode); id != "" {
				d.nodeIDs[n] = id
			} else {
				// Plain HTML without live state: ids by document order,
				// stable for the same bytes.
				d.nodeIDs[n] = f.ID + ":" + strconv.Itoa(seq)
			}
			if id := attr(n, "id"); id != "" {
				if _, dup := ids[id]; !dup {
					ids[id] = n
				}
			}
			if d.Title == "" && f.ID == capture.MainFrame && n.DataAtom == atom.Title {
				d.Title = strings.TrimSpace(textOf(n))
			}
			return true
		})
	}
	return d, nil
}

// ParseHTML parses a single-frame page given as HTML.
func ParseHTML(url, src string) (*Document, error) {
	return Parse(capture.New(url, src))
}

// NodeID returns the stable node id of an element.
func (d *Document) NodeID(n *html.Node) string { return d.nodeIDs[n] }

// FrameOf returns the id of the frame that holds n.
func (d *Document) FrameOf(n *html.Node) string { return d.frameOf[n] }

// ByID returns the element with the given id attribute in n's frame.
func (d *Document) ByID(frame, id string) *html.Node { return d.byID[frame][id] }

// walk visits n and its descendants in document order; fn returning false
// skips the children of that node.
func walk(n *html.Node, fn func(*html.Node) bool) {
	if !fn(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

// Walk visits every element of every frame in document order.
func (d *Document) Walk(fn func(f *Frame, n *html.Node) bool) {
	for _, f := range d.Frames {
		walk(f.Root, func(n *html.Node) bool {
			if n.Type != html.ElementNode {
				return true
			}
			return fn(f, n)
		})
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// Attr returns the value of an attribute of n, "" when absent.
func Attr(n *html.Node, key string) string { return attr(n, key) }

// HasAttr reports whether n carries the attribute.
func HasAttr(n *html.Node, key string) bool { return hasAttr(n, key) }

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return b.String()
}

// Normalize collapses runs of white space to one space and trims the ends,
// the normalisation accessible names and locators compare under.
func Normalize(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
