package observe

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
)

// Name is the element's accessible name, whitespace-normalised the way
// locators compare names (Normalize). See AccessibleName.
func (d *Document) Name(n *html.Node) string {
	return Normalize(d.AccessibleName(n))
}

// name is Name for an element whose role the caller has computed already.
func (d *Document) name(n *html.Node, role string) string {
	s, _ := d.nameOf(n, role)
	return s
}

// nameOf is name, and whether the name read anything outside n's subtree
// and ancestors (elements by id: aria-labelledby, label[for], a wrapping
// label's content, aria-owns/controls): a name that did not is the same
// wherever n's subtree and ancestors are the same (ParseAfter keeps such
// names of the nodes it takes over).
func (d *Document) nameOf(n *html.Node, role string) (name string, global bool) {
	s, global := d.accessibleNameOf(n, role)
	return Normalize(s), global
}

// candName is the name of a candidate, computed once per document.
func (d *Document) candName(rc *rawCand) string {
	if !rc.named {
		rc.name, rc.global = d.nameOf(rc.n, rc.role)
		rc.named = true
	}
	return rc.name
}

// Bounds of one name computation: names longer than NameCharsMax are cut,
// and at most nameNodesMax nodes are read, so a name never costs more than
// a fixed amount whatever the page.
const (
	NameCharsMax = 1000
	nameNodesMax = 20000
	nameDepthMax = 64
)

// AccessibleName computes the accessible name of n following W3C accname
// 1.2 and HTML-AAM (OBS-10), in the order the spec gives:
//
//	2A hidden nodes contribute nothing, unless the traversal started at a
//	   hidden node reached through aria-labelledby or a label
//	2B aria-labelledby (referenced nodes are read even when hidden)
//	2C an embedded control inside a label or content contributes its value
//	   (textbox value, selected options, range value)
//	2D aria-label
//	2E the host language: input buttons' value, input image alt, label[for]
//	   and wrapping label, fieldset legend, figure figcaption, table caption,
//	   img/area alt, placeholder for text inputs without a label
//	2F name from content for roles that allow it, and inside traversals,
//	   with ::before/::after content of a plain file's <style> rules
//	2I title
//
// The result is the flat string accname asks for: white space collapsed
// except no-break spaces, zero-width spaces and soft hyphens removed, ends
// trimmed.
//
// Not covered: shadow DOM and slots, aria-owns reordering, SVG <title>,
// CSS other than display, visibility and ::before/::after content in a
// plain file's <style> elements (a live capture brings computed display and
// visibility but not pseudo-element content), and the name of an iframe's
// document.
func (d *Document) AccessibleName(n *html.Node) string {
	if n == nil || n.Type != html.ElementNode {
		return ""
	}
	return d.accessibleName(n, Role(n))
}

// accessibleName is AccessibleName of an element whose role is known.
func (d *Document) accessibleName(n *html.Node, role string) string {
	s, _ := d.accessibleNameOf(n, role)
	return s
}

// accessibleNameOf is accessibleName, and whether the computation read
// elements by id or a wrapping label (nameOf).
func (d *Document) accessibleNameOf(n *html.Node, role string) (string, bool) {
	switch role {
	case "caption", "code", "deletion", "emphasis", "generic", "insertion", "mark", "paragraph",
		"presentation", "strong", "subscript", "suggestion", "superscript", "time":
		return "", false // roles that prohibit naming
	}
	c := nameComputation{d: d, budget: nameNodesMax, roleNode: n, role: role}
	s := c.text(n, opts{target: targetSelf})
	out := flatString(s, NameCharsMax)
	if !c.ownLabel {
		out = strings.Trim(out, "\u00a0 ")
	}
	return out, c.global
}

type nameComputation struct {
	d       *Document
	visited visitedSet
	budget  int
	depth   int
	// ownLabel: the name is the target's own aria-label, whose no-break
	// spaces at the ends are kept (text content's are trimmed).
	ownLabel bool
	// global: the computation looked up elements by id or read a
	// wrapping label (nameOf)
	global bool
	// the target's role, computed once by the caller
	roleNode *html.Node
	role     string
	// the index entry last read, as text reads a node's entry for its
	// hidden flags and then for its frame's style sheet
	infoNode *html.Node
	infoIn   nodeInfo
	infoOK   bool
}

// info is the index entry of n, read once for consecutive requests.
func (c *nameComputation) info(n *html.Node) (nodeInfo, bool) {
	if n != c.infoNode || n == nil {
		c.infoIn, c.infoOK = c.d.info.get(n)
		c.infoNode = n
	}
	return c.infoIn, c.infoOK
}

// flags is Document.flags through the entry cache.
func (c *nameComputation) flags(n *html.Node) uint8 {
	if n != nil && n.Type == html.ElementNode {
		if in, ok := c.info(n); ok {
			return in.flags
		}
	}
	return c.d.flags(n)
}

// visitedSet is the set of nodes a name computation has read: a short
// array held in place (most names read a few nodes, and then cost no
// allocation), turned into a map when it grows.
type visitedSet struct {
	nfew int
	few  [16]*html.Node
	many map[*html.Node]bool
}

func (v *visitedSet) has(n *html.Node) bool {
	if v.many != nil {
		return v.many[n]
	}
	for _, x := range v.few[:v.nfew] {
		if x == n {
			return true
		}
	}
	return false
}

func (v *visitedSet) add(n *html.Node) {
	if v.many != nil {
		v.many[n] = true
		return
	}
	if v.has(n) {
		return
	}
	if v.nfew < len(v.few) {
		v.few[v.nfew] = n
		v.nfew++
		return
	}
	v.many = make(map[*html.Node]bool, 64)
	for _, x := range v.few {
		v.many[x] = true
	}
	v.many[n] = true
}

const (
	targetNone = iota
	targetSelf
	targetDescendant
)

// opts mirror the traversal state of accname: which kind of reference
// traversal we are inside and whether its root was hidden.
type opts struct {
	target                    int
	inLabelledBy, inLabel     bool
	inNative                  bool
	hiddenRef                 bool // the traversal's root was hidden
	labelledByRoot, labelRoot *html.Node
	nativeRoot                *html.Node
}

// hiddenForName reports a node accname step 2A skips.
func (c *nameComputation) hiddenForName(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template:
		return true
	}
	f := c.flags(n)
	if f&(flagDisplay|flagAria) != 0 {
		return true
	}
	if f&flagVisibility != 0 {
		// options inside a select are not affected by visibility
		if n.DataAtom == atom.Option {
			return false
		}
		return true
	}
	return false
}

func (c *nameComputation) text(n *html.Node, o opts) string {
	if c.visited.has(n) || c.budget <= 0 || c.depth > nameDepthMax {
		return ""
	}
	c.budget--
	c.depth++
	defer func() { c.depth-- }()

	// 2A
	if !o.hiddenRef && c.hiddenForName(n) {
		if c.flags(n) == flagVisibility && n.FirstChild != nil && o.target != targetSelf {
			// visibility:hidden hides the element, not descendants that
			// are made visible again
			c.visited.add(n)
			return c.visibleDescendants(n, o)
		}
		c.visited.add(n)
		return ""
	}
	if n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Template || n.DataAtom == atom.Noscript {
		return ""
	}
	labelledBy := c.labelledBy(n)
	// 2B
	if !o.inLabelledBy && len(labelledBy) > 0 {
		var parts []string
		for _, ref := range labelledBy {
			s := c.text(ref, opts{inLabelledBy: true, labelledByRoot: ref, hiddenRef: c.hiddenForName(ref)})
			parts = append(parts, s)
		}
		if s := strings.Join(parts, " "); strings.TrimSpace(s) != "" {
			c.visited.add(n)
			return s
		}
	}
	role := c.role
	if n != c.roleNode {
		role = Role(n)
	}
	// 2C
	if o.inLabel || o.inLabelledBy || o.target == targetDescendant {
		isOwnLabel := o.inLabel && o.labelRoot != nil && c.isLabelOf(o.labelRoot, n)
		isOwnLabelledBy := false
		for _, r := range labelledBy {
			if r == n {
				isOwnLabelledBy = true
			}
		}
		if !isOwnLabel && !isOwnLabelledBy {
			switch role {
			case "textbox", "searchbox":
				c.visited.add(n)
				if n.DataAtom == atom.Input || n.DataAtom == atom.Textarea {
					return Value(n)
				}
				return textOf(n)
			case "combobox", "listbox":
				c.visited.add(n)
				return c.selectedOptions(n, o)
			case "progressbar", "scrollbar", "slider", "spinbutton", "meter":
				c.visited.add(n)
				if hasAttr(n, "aria-valuetext") {
					return attr(n, "aria-valuetext")
				}
				if hasAttr(n, "aria-valuenow") {
					return attr(n, "aria-valuenow")
				}
				return Value(n)
			case "menu":
				c.visited.add(n)
				return ""
			}
		}
	}
	// 2D
	if label := attr(n, "aria-label"); strings.TrimSpace(flatString(label, NameCharsMax)) != "" {
		c.visited.add(n)
		c.ownLabel = o.target == targetSelf
		return label
	}
	presentational := role == "presentation" || role == "none"
	// 2E
	if !presentational {
		if s, done := c.hostLanguage(n, o, len(labelledBy) > 0); done {
			c.visited.add(n)
			return s
		}
	}
	// 2F, 2H
	if allowsNameFromContent(role, o.target == targetDescendant) || (n.DataAtom == atom.Summary && !presentational) ||
		o.inLabelledBy || o.inLabel || o.inNative {
		c.visited.add(n)
		s := c.content(n, o)
		trimmed := s
		if o.target == targetSelf {
			trimmed = strings.TrimSpace(flatString(s, NameCharsMax))
		}
		if trimmed != "" {
			return s
		}
	}
	// 2I
	if !presentational || n.DataAtom == atom.Iframe {
		c.visited.add(n)
		if t := attr(n, "title"); strings.TrimSpace(t) != "" {
			return t
		}
	}
	c.visited.add(n)
	return ""
}

func (c *nameComputation) labelledBy(n *html.Node) []*html.Node {
	v := attr(n, "aria-labelledby")
	if v == "" {
		return nil
	}
	c.global = true
	var out []*html.Node
	for _, id := range strings.Fields(v) {
		if ref := c.d.byIDIn(n, id); ref != nil {
			out = append(out, ref)
		}
	}
	return out
}

// labels returns the labels of a labelable element: label[for=id] in its
// frame and its wrapping label, in document order.
func (c *nameComputation) labels(n *html.Node) []*html.Node {
	if !labelable(n) {
		return nil
	}
	var out []*html.Node
	var wrapping *html.Node
	steps := 0
	for p := n.Parent; p != nil && steps < maxAncestors; p = p.Parent {
		steps++
		if p.Type == html.ElementNode && p.DataAtom == atom.Label {
			c.global = true // the label's content is read, and its for looked up
			if forID := attr(p, "for"); forID == "" || c.d.byIDIn(p, forID) == n {
				if forID == "" && c.firstLabelable(p) != n {
					break
				}
				wrapping = p
			}
			break
		}
	}
	id := attr(n, "id")
	if id != "" {
		c.global = true // label[for] anywhere in the frame
	}
	if id != "" && c.d.byIDIn(n, id) == n {
		if in, ok := c.d.info.get(n); ok {
			out = append(out, c.d.labelOf[in.frame][id]...)
		}
	}
	if wrapping != nil {
		// keep document order
		pos := len(out)
		wi := c.d.info.at(wrapping).seq
		for i, l := range out {
			if l == wrapping {
				return out
			}
			if c.d.info.at(l).seq > wi {
				pos = i
				break
			}
		}
		out = append(out[:pos], append([]*html.Node{wrapping}, out[pos:]...)...)
	}
	return out
}

// firstLabelable is the labeled control of a label without for: its first
// labelable descendant.
func (c *nameComputation) firstLabelable(l *html.Node) *html.Node {
	var found *html.Node
	walk(l, func(x *html.Node) bool {
		if found != nil {
			return false
		}
		if x != l && x.Type == html.ElementNode && labelable(x) {
			found = x
			return false
		}
		return true
	})
	return found
}

func (c *nameComputation) isLabelOf(label, n *html.Node) bool {
	for _, l := range c.labels(n) {
		if l == label {
			return true
		}
	}
	return false
}

func labelable(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Button, atom.Meter, atom.Output, atom.Progress, atom.Select, atom.Textarea:
		return true
	case atom.Input:
		return !strings.EqualFold(attr(n, "type"), "hidden")
	}
	return false
}

func (c *nameComputation) fromLabels(labels []*html.Node, o opts) string {
	var parts []string
	for _, l := range labels {
		s := c.text(l, opts{inLabel: true, labelRoot: l, hiddenRef: c.hiddenForName(l)})
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// hostLanguage is step 2E; done reports that the element's name is decided.
func (c *nameComputation) hostLanguage(n *html.Node, o opts, hasLabelledBy bool) (string, bool) {
	typ := strings.ToLower(strings.TrimSpace(attr(n, "type")))
	switch n.DataAtom {
	case atom.Input:
		switch typ {
		case "button", "submit", "reset":
			if v := attr(n, "value"); strings.TrimSpace(v) != "" {
				return v, true
			}
			switch typ {
			case "submit":
				return "Submit", true
			case "reset":
				return "Reset", true
			}
			return attr(n, "title"), true
		case "image":
			if labels := c.labels(n); len(labels) > 0 && !o.inLabelledBy {
				return c.fromLabels(labels, o), true
			}
			if v := attr(n, "alt"); strings.TrimSpace(v) != "" {
				return v, true
			}
			if v := attr(n, "title"); strings.TrimSpace(v) != "" {
				return v, true
			}
			return "Submit", true
		}
	case atom.Button:
		if !hasLabelledBy {
			if labels := c.labels(n); len(labels) > 0 {
				return c.fromLabels(labels, o), true
			}
		}
		return "", false // falls through to name from content
	case atom.Output:
		if !hasLabelledBy {
			if labels := c.labels(n); len(labels) > 0 {
				return c.fromLabels(labels, o), true
			}
			return attr(n, "title"), true
		}
	case atom.Img:
		if v := attr(n, "alt"); strings.TrimSpace(v) != "" {
			return v, true
		}
		return attr(n, "title"), true
	case atom.Area:
		if v := attr(n, "alt"); strings.TrimSpace(v) != "" {
			return v, true
		}
		return attr(n, "title"), true
	case atom.Fieldset:
		if !hasLabelledBy {
			for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
				if ch.Type == html.ElementNode && ch.DataAtom == atom.Legend {
					return c.text(ch, opts{inNative: true, nativeRoot: ch, hiddenRef: c.hiddenForName(ch)}), true
				}
			}
			return attr(n, "title"), true
		}
	case atom.Figure:
		if !hasLabelledBy {
			for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
				if ch.Type == html.ElementNode && ch.DataAtom == atom.Figcaption {
					return c.text(ch, opts{inNative: true, nativeRoot: ch, hiddenRef: c.hiddenForName(ch)}), true
				}
			}
			return attr(n, "title"), true
		}
	case atom.Table:
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && ch.DataAtom == atom.Caption {
				if s := c.text(ch, opts{inNative: true, nativeRoot: ch}); strings.TrimSpace(s) != "" {
					return s, true
				}
			}
		}
		if s := attr(n, "summary"); strings.TrimSpace(s) != "" {
			return s, true
		}
		return attr(n, "title"), true
	}
	if !hasLabelledBy && (n.DataAtom == atom.Input || n.DataAtom == atom.Textarea || n.DataAtom == atom.Select) {
		if labels := c.labels(n); len(labels) > 0 {
			return c.fromLabels(labels, o), true
		}
		usePlaceholder := n.DataAtom == atom.Textarea
		switch typ {
		case "", "text", "password", "search", "tel", "email", "url":
			usePlaceholder = usePlaceholder || n.DataAtom == atom.Input
		}
		title := attr(n, "title")
		if !usePlaceholder || title != "" {
			return title, true
		}
		return attr(n, "placeholder"), true
	}
	return "", false
}

// allowsNameFromContent: roles that take their name from content, and, for
// descendants of the target, the generic and phrasing roles.
func allowsNameFromContent(role string, descendant bool) bool {
	if isFromContentRole(role) {
		return true
	}
	if !descendant {
		return false
	}
	switch role {
	case "", "caption", "code", "contentinfo", "definition", "deletion", "emphasis", "generic", "insertion",
		"mark", "paragraph", "presentation", "none", "strong", "subscript", "suggestion", "superscript", "term", "time":
		return true
	}
	return false
}

// isFromContentRole: the roles that may take their name from their
// content (ARIA 1.2).
func isFromContentRole(role string) bool {
	switch role {
	case "button", "cell", "checkbox", "columnheader", "gridcell",
		"heading", "link", "menuitem", "menuitemcheckbox",
		"menuitemradio", "option", "radio", "row", "rowheader",
		"switch", "tab", "tooltip", "treeitem":
		return true
	}
	return false
}

// visibleDescendants is the content of a visibility:hidden element: only
// descendants that are visible again contribute.
func (c *nameComputation) visibleDescendants(n *html.Node, o opts) string {
	child := o
	if child.target == targetSelf {
		child.target = targetDescendant
	}
	var b strings.Builder
	for ch := n.FirstChild; ch != nil && c.budget > 0; ch = ch.NextSibling {
		if ch.Type == html.ElementNode {
			b.WriteString(c.text(ch, child))
		}
	}
	return b.String()
}

// content is name from content: ::before, the children's text alternatives
// (block-level children set off by spaces), ::after.
func (c *nameComputation) content(n *html.Node, o opts) string {
	child := o
	if child.target == targetSelf {
		child.target = targetDescendant
	}
	sheet := c.sheet(n)
	var b lazyCat
	if sheet != nil {
		if s, ok := sheet.pseudoContent(n, "before"); ok {
			b.WriteString(s)
		}
	}
	for ch := n.FirstChild; ch != nil && b.Len() < 4*NameCharsMax && c.budget > 0; ch = ch.NextSibling {
		switch ch.Type {
		case html.TextNode:
			c.budget--
			b.WriteString(truncBytes(ch.Data, 4*NameCharsMax))
		case html.ElementNode:
			s := c.text(ch, child)
			if c.isBlock(ch, sheet) {
				b.WriteString(" ")
				b.WriteString(s)
				b.WriteString(" ")
			} else {
				b.WriteString(s)
			}
		}
	}
	if sheet != nil {
		if s, ok := sheet.pseudoContent(n, "after"); ok {
			b.WriteString(s)
		}
	}
	return truncBytes(b.String(), 4*NameCharsMax)
}

// lazyCat concatenates strings, allocating only when a second non-empty
// piece arrives: content that is one text node (most links and buttons)
// is returned as that node's text, uncopied.
type lazyCat struct {
	one string // the only piece so far, while b is unused
	b   strings.Builder
}

func (l *lazyCat) WriteString(s string) {
	switch {
	case s == "":
	case l.b.Len() > 0:
		l.b.WriteString(s)
	case l.one == "":
		l.one = s
	default:
		l.b.Grow(len(l.one) + len(s) + 16)
		l.b.WriteString(l.one)
		l.b.WriteString(s)
		l.one = ""
	}
}

func (l *lazyCat) Len() int { return len(l.one) + l.b.Len() }

func (l *lazyCat) String() string {
	if l.b.Len() > 0 {
		return l.b.String()
	}
	return l.one
}

func (c *nameComputation) sheet(n *html.Node) *styleSheet {
	if in, ok := c.info(n); ok {
		return c.d.sheets[in.frame]
	}
	return nil
}

func (c *nameComputation) isBlock(n *html.Node, sheet *styleSheet) bool {
	if sheet != nil {
		if d, ok := sheet.lookup(n, "", "display"); ok {
			return d != "inline" && d != "contents"
		}
	}
	if v := attr(n, "style"); v != "" {
		if d := styleProp(v, "display"); d != "" {
			return d != "inline" && d != "contents"
		}
	}
	return blockish[n.DataAtom]
}

// selectedOptions is the 2C value of a combobox or listbox.
func (c *nameComputation) selectedOptions(n *html.Node, o opts) string {
	if n.DataAtom == atom.Select {
		return selectedText(n)
	}
	list := n
	if Role(n) == "combobox" {
		list = nil
		walk(n, func(x *html.Node) bool {
			if list == nil && x != n && x.Type == html.ElementNode && Role(x) == "listbox" {
				list = x
			}
			return list == nil
		})
		if list == nil {
			if ids := strings.Fields(attr(n, "aria-owns") + " " + attr(n, "aria-controls")); len(ids) > 0 {
				c.global = true
				for _, id := range ids {
					if x := c.d.byIDIn(n, id); x != nil && Role(x) == "listbox" {
						list = x
						break
					}
				}
			}
		}
	}
	var parts []string
	if list != nil {
		walk(list, func(x *html.Node) bool {
			if x.Type == html.ElementNode && Role(x) == "option" && attr(x, "aria-selected") == "true" {
				parts = append(parts, c.text(x, opts{target: targetDescendant, inLabel: o.inLabel, inLabelledBy: o.inLabelledBy}))
			}
			return true
		})
	}
	if len(parts) == 0 && n.DataAtom == atom.Input {
		return Value(n)
	}
	if len(parts) == 0 && list == nil && n.DataAtom != atom.Input {
		return textOf(n) // a combobox without a popup shows its value as text
	}
	return strings.Join(parts, " ")
}

// blockish elements separate their text from their neighbours' by a space.
// IsBlock reports whether n is an element that starts a line of its own
// by default (a block, a list item, a table part, a line break): text on
// either side of it is not one word.
func IsBlock(n *html.Node) bool { return n.Type == html.ElementNode && blockish[n.DataAtom] }

var blockish = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Br: true,
	atom.Dd: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true,
	atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
	atom.Hr: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true,
	atom.Pre: true, atom.Section: true, atom.Table: true, atom.Td: true, atom.Th: true,
	atom.Tr: true, atom.Ul: true, atom.Caption: true, atom.Legend: true, atom.Details: true,
	atom.Summary: true, atom.Dialog: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true,
	atom.Menu: true, atom.Center: true, atom.Listing: true, atom.Hgroup: true,
}

// flatString is accname's flat string: runs of white space other than
// U+00A0 become one space, U+200B and U+00AD are removed, the ends are
// trimmed (U+00A0 kept, as the WPT cases expect), and the result is
// cut at max characters.
func flatString(s string, max int) string {
	if len(s) <= max && isFlat(s) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), 4*max))
	space := false
	n := 0
	for _, r := range s {
		if r == 0x200b || r == 0xad {
			continue
		}
		if r != 0xa0 && isJSSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		space = false
		if n >= max {
			break
		}
		b.WriteRune(r)
		n++
	}
	out := b.String()
	return strings.TrimFunc(out, func(r rune) bool { return r != 0xa0 && isJSSpace(r) })
}

// isFlat reports ASCII text that flatString would not change.
func isFlat(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c < 0x20 && c != 0 {
			return false
		}
		if c == ' ' {
			if prevSpace {
				return false
			}
			prevSpace = true
		} else {
			prevSpace = false
		}
	}
	return true
}

// isJSSpace is ECMAScript's white space and line terminators (\s).
func isJSSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// Value returns the live value of a form control: the value a browser
// capture wrote, else the markup's value attribute or textarea text, else a
// contenteditable element's text.
func Value(n *html.Node) string {
	if n == nil {
		return ""
	}
	if hasAttr(n, capture.AttrValue) {
		return attr(n, capture.AttrValue)
	}
	switch n.DataAtom {
	case atom.Input:
		return attr(n, "value")
	case atom.Textarea:
		return textOf(n)
	case atom.Select:
		return selectedText(n)
	}
	if isContentEditable(n) {
		return Normalize(textOf(n))
	}
	return ""
}

// Checked reports the live checked state of a checkbox or radio, or
// aria-checked for ARIA widgets; ok is false when the element has none.
func Checked(n *html.Node) (checked, ok bool) {
	if v := attr(n, capture.AttrChecked); v != "" {
		return v == "true", true
	}
	if n.DataAtom == atom.Input {
		typ := strings.ToLower(attr(n, "type"))
		if typ == "checkbox" || typ == "radio" {
			return hasAttr(n, "checked"), true
		}
	}
	if v := attr(n, "aria-checked"); v != "" {
		return v == "true", true
	}
	return false, false
}

func selectedText(n *html.Node) string {
	var first, chosen []string
	live := false
	walk(n, func(o *html.Node) bool {
		if o.Type == html.ElementNode && o.DataAtom == atom.Option {
			t := Normalize(textOf(o))
			if first == nil {
				first = []string{t}
			}
			if v := attr(o, capture.AttrSelected); v != "" {
				live = true
				if v == "true" {
					chosen = append(chosen, t)
				}
			} else if !live && hasAttr(o, "selected") {
				chosen = append(chosen, t)
			}
		}
		return true
	})
	if len(chosen) == 0 && !hasAttr(n, "multiple") {
		chosen = first
	}
	return strings.Join(chosen, " ")
}

// truncBytes cuts s to at most max bytes on a rune boundary.
func truncBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}
