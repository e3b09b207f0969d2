package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/engine/capture"
)

// The tracker's full capture, a test oracle for the tracker's
// serialisation. The incremental capture writes inserted subtrees from the
// tracker's serialisation (tracker.js ser, stateOf); serialising a whole
// document with it (tracker.js full) and reading the backend node ids of
// its elements with one DOM.describeNode of the document (depth -1, no
// piercing; elements matched to the tracker's in preorder by tag, as
// readBackends does for inserted subtrees) must write exactly the capture
// DOMSnapshot.captureSnapshot writes, on any page the tracker does not
// decline. TestCheapFullCaptureMatchesSnapshot checks that on real pages,
// TestIncrementalCaptureMatchesFull after every random edit.
//
// It is not the driver's full capture: on a 2,000-turn chat page it costs
// 1.5x a captureSnapshot capture (BenchmarkFirstCapture), because reading
// every element's backend node id costs Chromium as much as the snapshot
// (DOM.describeNode of the document: 9 MB, ~0.5 s; the snapshot: 6 MB,
// ~0.6 s) and the serialisation adds ~0.2 s of JavaScript.
//
// It declines (errDecline, with the reason) when the page has:
//   - frames (iframe, frame, object, embed, fencedframe, portal);
//   - shadow DOM (a shadow root that is not a user agent's, open or closed,
//     as DOM.describeNode reports it);
//   - whitespace-only text in a display:contents element with no other box,
//     or an element checkVisibility gives no box although neither it nor an
//     ancestor is display:none (content-visibility:hidden, a closed
//     <details>, fallback content of replaced elements): the incremental
//     capture takes a full capture for these too;
//   - a video, audio or img element outside the HTML namespace;
//   - a child list that changed between the serialisation and the id read,
//     or any disagreement between the tracker's elements and
//     DOM.describeNode's (count, tag).

// idNode is the part of a DOM.describeNode node the id read needs.
type idNode struct {
	NodeType      int64    `json:"nodeType"`
	NodeName      string   `json:"nodeName"`
	BackendNodeID int64    `json:"backendNodeId"`
	Children      []idNode `json:"children"`
	ShadowRoots   []struct {
		ShadowRootType string `json:"shadowRootType"`
	} `json:"shadowRoots"`
	ContentDocument *struct{} `json:"contentDocument"`
}

var describeIDs = cdp.Command[dom.DescribeNodeParams, struct {
	Node idNode `json:"node"`
}]{Method: dom.CommandDescribeNode}

// cheapCapture takes the tracker's full capture, changing nothing the
// tracker keeps. An error wrapping errDecline names why it declined.
func (p *Page) cheapCapture(ctx context.Context, t *chromedp.Target, world string) (*capture.Capture, *tree, error) {
	const group = "replaylab-doc"
	defer func() {
		_, _ = cdp.Call(ctx, t, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	}()
	doc, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: trackerExpr + ".mark()", UniqueContextID: world, ObjectGroup: group, Silent: new(true)})
	if err != nil {
		return nil, nil, err
	}
	if doc.ExceptionDetails != nil || doc.Result == nil || doc.Result.ObjectID == "" {
		return nil, nil, fmt.Errorf("%w: no tracker", errDecline)
	}
	// Chromium describes the document while the tracker serialises it
	// (the reply of the one crosses to this process while the other runs);
	// settled then proves that no child list changed in between
	type described struct {
		node idNode
		err  error
	}
	dc := make(chan described, 1)
	go func() {
		d, err := cdp.Call(ctx, t, describeIDs, dom.DescribeNodeParams{ObjectID: doc.Result.ObjectID, Depth: new(int64(-1))})
		dc <- described{d.Node, err}
	}()
	s, err := evalWorld(ctx, t, world, trackerExpr+".full()")
	var f fullDoc
	if err == nil && !strings.HasPrefix(s, "{") {
		f, err = decodeFull(s)
	}
	d := <-dc
	if err != nil {
		if errors.Is(err, errDrift) {
			return nil, nil, fmt.Errorf("%w: %v", errDecline, err)
		}
		return nil, nil, err
	}
	if strings.HasPrefix(s, "{") {
		var r struct {
			Full string `json:"full"`
		}
		_ = json.Unmarshal([]byte(s), &r)
		return nil, nil, fmt.Errorf("%w: %s", errDecline, r.Full)
	}
	if d.err != nil {
		return nil, nil, d.err
	}
	ok, err := evalWorld(ctx, t, world, trackerExpr+".settled()")
	if err != nil {
		return nil, nil, err
	}
	if ok != "true" {
		return nil, nil, fmt.Errorf("%w: changed while read", errDecline)
	}
	tr := f.tree
	if err := matchIDs(tr.root, &d.node); err != nil {
		return nil, nil, err
	}
	tr.number(1)
	if tr.next != f.n {
		return nil, nil, fmt.Errorf("%w: %d nodes, tracker says %d", errDecline, tr.next, f.n)
	}
	c := &capture.Capture{Version: capture.FormatVersion, URL: f.url, Title: f.title,
		Frames: []capture.Frame{{ID: capture.MainFrame, URL: f.url, HTML: tr.html()}}}
	return c, tr, nil
}

// matchIDs gives the tree's elements the backend node ids of the described
// document's elements, matched in preorder by tag, and renders them.
func matchIDs(root *lnode, doc *idNode) error {
	var els []*lnode
	var collect func(n *lnode)
	collect = func(n *lnode) {
		if n.kind == 1 {
			els = append(els, n)
		}
		for _, c := range n.kids {
			collect(c)
		}
	}
	collect(root)
	k := 0
	var match func(n *idNode) error
	match = func(n *idNode) error {
		if n.NodeType != 1 {
			return nil
		}
		if n.ContentDocument != nil {
			return fmt.Errorf("%w: frames", errDecline)
		}
		for _, sr := range n.ShadowRoots {
			if sr.ShadowRootType != string(cdp.ShadowRootTypeUserAgent) {
				return fmt.Errorf("%w: shadow", errDecline)
			}
		}
		tag := strings.ToLower(n.NodeName)
		if k >= len(els) || els[k].tag != tag {
			return fmt.Errorf("%w: element %d is not a %s", errDecline, k, tag)
		}
		els[k].backend = n.BackendNodeID
		k++
		if noKids(tag) {
			return nil
		}
		for i := range n.Children {
			if err := match(&n.Children[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if doc.NodeType != 9 {
		return fmt.Errorf("%w: not a document", errDecline)
	}
	for i := range doc.Children {
		if err := match(&doc.Children[i]); err != nil {
			return err
		}
	}
	if k != len(els) {
		return fmt.Errorf("%w: %d elements described, %d serialised", errDecline, k, len(els))
	}
	for _, e := range els {
		e.render()
	}
	return nil
}
