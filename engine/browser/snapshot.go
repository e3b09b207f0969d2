package browser

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strconv"
	"strings"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/engine/capture"
)

// snapshotStyles are the computed styles a capture needs: visibility (a
// box's display is not needed: a node with no box has no layout entry).
var snapshotStyles = []string{"visibility"}

// snapshot takes one DOMSnapshot.captureSnapshot and serialises every
// document in it into a capture frame.
func snapshot(ctx context.Context, t *chromedp.Target) (*capture.Capture, *tree, error) {
	var raw jsonv2.Value
	if err := t.Call(ctx, domsnapshot.CommandCaptureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: snapshotStyles}, &raw); err != nil {
		return nil, nil, err
	}
	res, err := decodeSnapshot(raw)
	if err != nil {
		// something the fast reader does not take: the generated decoder
		res = &domsnapshot.CaptureSnapshotResult{}
		if err := jsonv2.Unmarshal(raw, res); err != nil {
			return nil, nil, fmt.Errorf("browser: decode the snapshot: %w", err)
		}
	} else if checkDecode.Load() {
		var want domsnapshot.CaptureSnapshotResult
		if err := jsonv2.Unmarshal(raw, &want); err != nil {
			return nil, nil, fmt.Errorf("browser: decode the snapshot: %w", err)
		}
		if !sameSnapshot(res, &want) {
			return nil, nil, errors.New("browser: the fast snapshot reader disagrees with the generated decoder")
		}
	}
	// Media readiness is not in the DOM snapshot: a second, read-only
	// call gets it, only for pages that have media.
	var media []mediaState
	if len(res.Documents) > 0 && hasMedia(res.Documents[0], res.Strings) {
		if media, err = readMedia(ctx, t); err != nil {
			return nil, nil, err
		}
	}
	c, main := fromSnapshot(res.Documents, res.Strings, media)
	return c, main, nil
}

func hasMedia(d *domsnapshot.DocumentSnapshot, strs []string) bool {
	if d.Nodes == nil {
		return false
	}
	for _, n := range d.Nodes.NodeName {
		if int(n) >= 0 && int(n) < len(strs) {
			switch strs[n] {
			case "VIDEO", "AUDIO", "IMG":
				return true
			}
		}
	}
	return false
}

// voidElements have no end tag.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

// noBox are elements that never have a layout box even when shown, so a
// missing box does not mean hidden.
var noBox = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "link": true, "script": true, "style": true,
	"base": true, "option": true, "optgroup": true, "datalist": true, "source": true, "track": true,
	"template": true, "noscript": true, "param": true, "area": true, "map": true, "col": true, "colgroup": true,
}

// fromSnapshot returns the capture and the main document's tree.
func fromSnapshot(docs []*domsnapshot.DocumentSnapshot, strs []string, media []mediaState) (*capture.Capture, *tree) {
	str := func(i domsnapshot.StringIndex) string {
		if i < 0 || int(i) >= len(strs) {
			return ""
		}
		return strs[i]
	}
	c := &capture.Capture{Version: capture.FormatVersion}
	frameIDs := make([]string, len(docs))
	for i := range docs {
		if i == 0 {
			frameIDs[i] = capture.MainFrame
		} else {
			frameIDs[i] = "f" + strconv.Itoa(i)
		}
	}
	var main *tree
	parents := make([]string, len(docs))
	owners := make([]string, len(docs))
	// first pass: find which iframe node owns each child document
	for di, d := range docs {
		n := d.Nodes
		if n == nil || n.ContentDocumentIndex == nil {
			continue
		}
		for k, idx := range n.ContentDocumentIndex.Index {
			child := int(n.ContentDocumentIndex.Value[k])
			if child > 0 && child < len(docs) {
				parents[child] = frameIDs[di]
				owners[child] = strconv.FormatInt(int64(n.BackendNodeID[idx]), 10)
			}
		}
	}
	for di, d := range docs {
		f := capture.Frame{ID: frameIDs[di], Parent: parents[di], Owner: owners[di], URL: str(d.DocumentURL)}
		if di == 0 {
			c.URL = f.URL
			c.Title = str(d.Title)
		} else if f.Parent == "" {
			f.Parent = capture.MainFrame // an orphan document: keep it, under main
		}
		var m []mediaState
		if di == 0 {
			m = media
		}
		dt := buildTree(d, str, frameIDs, m)
		if di == 0 {
			main = dt
		}
		f.HTML = dt.html()
		c.Frames = append(c.Frames, f)
	}
	// frames must follow their parents
	ordered := []capture.Frame{c.Frames[0]}
	placed := map[string]bool{capture.MainFrame: true}
	for len(ordered) < len(c.Frames) {
		progress := false
		for _, f := range c.Frames[1:] {
			if !placed[f.ID] && placed[f.Parent] {
				ordered = append(ordered, f)
				placed[f.ID] = true
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	c.Frames = ordered
	return c, main
}

// buildTree turns one document of a snapshot into a capture tree.
func buildTree(d *domsnapshot.DocumentSnapshot, str func(domsnapshot.StringIndex) string, frameIDs []string, media []mediaState) *tree {
	n := d.Nodes
	if n == nil {
		t := &tree{root: &lnode{kind: 9}}
		t.number(1)
		return t
	}
	count := len(n.ParentIndex)
	// children as first-child and next-sibling links, in index order
	first, next, last := make([]int32, count), make([]int32, count), make([]int32, count)
	for i := range first {
		first[i], next[i] = -1, -1
	}
	for i := 1; i < count; i++ {
		p := int(n.ParentIndex[i])
		if p >= 0 && p < count {
			if first[p] < 0 {
				first[p] = int32(i)
			} else {
				next[last[p]] = int32(i)
			}
			last[p] = int32(i)
		}
	}
	rareStr := func(r *domsnapshot.RareStringData) map[int]string {
		m := map[int]string{}
		if r != nil {
			for k, idx := range r.Index {
				m[int(idx)] = str(r.Value[k])
			}
		}
		return m
	}
	rareBool := func(r *domsnapshot.RareBooleanData) map[int]bool {
		m := map[int]bool{}
		if r != nil {
			for _, idx := range r.Index {
				m[int(idx)] = true
			}
		}
		return m
	}
	inputValue := rareStr(n.InputValue)
	textValue := rareStr(n.TextValue)
	checked := rareBool(n.InputChecked)
	selected := rareBool(n.OptionSelected)
	pseudo := rareStr(n.PseudoType)
	currentSrc := rareStr(n.CurrentSourceURL)
	// The snapshot is the flat (composed) tree: an element with a shadow
	// root has the root's children as its own, each slot its assigned
	// nodes. Open roots are page (as Playwright's locators pierce them);
	// a closed root's subtree is left out and its host named
	// (capture.AttrShadow), never guessed. dropped: the node is inside a
	// closed root (or under one: slotted, nested); closedHost: its host.
	rootType := rareStr(n.ShadowRootType)
	dropped := make([]bool, count)
	closedHost := map[int]bool{}
	for i := 1; i < count; i++ {
		p := int(n.ParentIndex[i])
		if p < 0 || p >= count {
			continue
		}
		if dropped[p] {
			dropped[i] = true
		} else if rootType[i] == "closed" {
			dropped[i] = true
			closedHost[p] = true
		}
	}
	contentDoc := map[int]int{}
	if n.ContentDocumentIndex != nil {
		for k, idx := range n.ContentDocumentIndex.Index {
			contentDoc[int(idx)] = int(n.ContentDocumentIndex.Value[k])
		}
	}
	// layout facts: whether a node has a box, and its last layout entry
	// with computed styles and with bounds (-1: none)
	hasBox := make([]bool, count)
	styleAt, boundsAt := make([]int32, count), make([]int32, count)
	for i := range styleAt {
		styleAt[i], boundsAt[i] = -1, -1
	}
	if d.Layout != nil {
		for li, ni := range d.Layout.NodeIndex {
			i := int(ni)
			if i < 0 || i >= count {
				continue
			}
			hasBox[i] = true
			if li < len(d.Layout.Styles) && len(d.Layout.Styles[li]) >= 1 {
				styleAt[i] = int32(li)
			}
			if li < len(d.Layout.Bounds) && len(d.Layout.Bounds[li]) == 4 {
				boundsAt[i] = int32(li)
			}
		}
	}
	visibility := func(i int) string {
		if li := styleAt[i]; li >= 0 {
			return str(domsnapshot.StringIndex(d.Layout.Styles[li][0]))
		}
		return ""
	}
	size := func(i int) string {
		if li := boundsAt[i]; li >= 0 {
			b := d.Layout.Bounds[li]
			return strconv.Itoa(int(b[2])) + "x" + strconv.Itoa(int(b[3]))
		}
		return ""
	}
	// a subtree with no box anywhere is not rendered (display:none); a
	// display:contents element has no box but its children do.
	boxBelow := make([]bool, count)
	for i := count - 1; i >= 0; i-- {
		if hasBox[i] {
			boxBelow[i] = true
		}
		if boxBelow[i] && i > 0 {
			if p := int(n.ParentIndex[i]); p >= 0 && p < count {
				boxBelow[p] = true
			}
		}
	}
	lower := map[domsnapshot.StringIndex]string{}
	name := func(i int) string {
		k := n.NodeName[i]
		v, ok := lower[k]
		if !ok {
			v = strings.ToLower(str(k))
			lower[k] = v
		}
		return v
	}
	// media states come in document order; they are used only when the
	// page's media elements match them one to one by tag, so a DOM change
	// between the two calls never attaches a state to the wrong element.
	mediaOf := map[int]mediaState{}
	{
		var idx []int
		for i := 0; i < count; i++ {
			if n.NodeType[i] == 1 && !dropped[i] {
				if _, ps := pseudo[i]; !ps {
					switch name(i) {
					case "video", "audio", "img":
						idx = append(idx, i)
					}
				}
			}
		}
		if len(idx) == len(media) {
			ok := true
			for k, i := range idx {
				if media[k].tag != name(i) {
					ok = false
					break
				}
			}
			if ok {
				for k, i := range idx {
					mediaOf[i] = media[k]
				}
			}
		}
	}

	t := &tree{root: &lnode{kind: 9}}
	t.shadowed = n.ShadowRootType != nil && len(n.ShadowRootType.Index) > 0
	var rec func(parent *lnode, i int, inSelect, inBody bool)
	rec = func(parent *lnode, i int, inSelect, inBody bool) {
		if _, ok := pseudo[i]; ok || dropped[i] {
			return
		}
		switch n.NodeType[i] {
		case 3: // text
			c := &lnode{kind: 3, parent: parent}
			c.setText(str(n.NodeValue[i]))
			parent.kids = append(parent.kids, c)
			return
		case 10: // doctype
			c := &lnode{kind: 10, parent: parent}
			c.render()
			parent.kids = append(parent.kids, c)
			return
		case 9, 11: // document, fragment
			for ch := first[i]; ch >= 0; ch = next[ch] {
				rec(parent, int(ch), inSelect, inBody)
			}
			return
		case 1:
		default:
			return
		}
		tag := name(i)
		if tag == "body" {
			inBody = true
		}
		e := &lnode{kind: 1, tag: tag, parent: parent, backend: int64(n.BackendNodeID[i])}
		if i < len(n.Attributes) {
			a := n.Attributes[i]
			e.attrs = make([]string, len(a)&^1)
			for k := 0; k+1 < len(a); k += 2 {
				e.attrs[k] = str(domsnapshot.StringIndex(a[k]))
				e.attrs[k+1] = str(domsnapshot.StringIndex(a[k+1]))
			}
		}
		s := &e.st
		if v, ok := inputValue[i]; ok {
			s.hasValue, s.value = true, v
		}
		if v, ok := textValue[i]; ok {
			s.hasValue, s.value = true, v
		}
		s.checked = checked[i]
		s.selected = selected[i]
		if m, ok := mediaOf[i]; ok {
			s.media = &m
		} else {
			s.curSrc, s.hasCurSrc = currentSrc[i]
			if tag == "img" || tag == "video" { // the only elements a capture writes it on (lnode.render)
				s.layoutSize = size(i)
			}
		}
		if inBody && !inSelect && !noBox[tag] {
			if !boxBelow[i] {
				s.hidden = "display"
			} else if v := visibility(i); hasBox[i] && (v == "hidden" || v == "collapse") {
				s.hidden = "visibility"
			}
		}
		if child, ok := contentDoc[i]; ok && child < len(frameIDs) {
			s.frame = frameIDs[child]
		}
		s.closed = closedHost[i]
		e.render()
		parent.kids = append(parent.kids, e)
		if noKids(tag) {
			return
		}
		sel := inSelect || tag == "select" || tag == "datalist"
		for ch := first[i]; ch >= 0; ch = next[ch] {
			rec(e, int(ch), sel, inBody)
		}
	}
	rec(t.root, 0, false, false)
	t.number(1)
	return t
}

func writeAttr(b *strings.Builder, key, val string) {
	b.WriteByte(' ')
	b.WriteString(key)
	b.WriteString(`="`)
	b.WriteString(html.EscapeString(val))
	b.WriteByte('"')
}
