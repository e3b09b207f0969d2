package observe

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/internal/cssscan"
)

// styleSheet is the small part of author CSS a plain HTML file needs for
// observation: display, visibility and ::before/::after content, from its
// <style> elements. Live captures do not use it: the browser computed those
// styles already. Supported selectors: type, #id, .class, [attr], [attr=v],
// :dir(ltr|rtl), descendant and child combinators, ::before/::after; a rule
// with anything else is skipped.
type styleSheet struct {
	rules []cssRule
	// elem indexes the rules of the element itself (no pseudo) by the key
	// of their right-most compound, so an element only tries the rules that
	// can match it; byPseudo lists the rules of ::before and ::after.
	elem     ruleIndex
	byPseudo [2][]int
}

// ruleIndex files each rule under one key of its right-most compound: its
// id if it has one, else its first class, else its tag, else under any.
// A rule can only match an element that carries its key, so the rules an
// element tries are any, byTag[tag], byID[id] and byClass[c] for each of
// its classes. Each list is in rule order.
type ruleIndex struct {
	any     []int
	byTag   keyIndex
	byID    keyIndex
	byClass keyIndex
}

func (x *ruleIndex) add(r *cssRule, i int) {
	c := &r.sel[len(r.sel)-1]
	switch {
	case c.id != "":
		x.byID.add(c.id, i)
	case len(c.classes) > 0:
		x.byClass.add(c.classes[0], i)
	case c.tag != "":
		x.byTag.add(c.tag, i)
	default:
		x.any = append(x.any, i)
	}
}

// keyIndex maps a key to its rules: a short list of keys is compared one
// by one (cheaper than hashing, for the few keys of most pages), a long
// one looked up in a map.
type keyIndex struct {
	keys  []string
	lists [][]int
	m     map[string]int // key → position, once there are many keys
}

const keyIndexLinear = 8

func (k *keyIndex) add(key string, rule int) {
	if j, ok := k.find(key); ok {
		k.lists[j] = append(k.lists[j], rule)
		return
	}
	k.keys = append(k.keys, key)
	k.lists = append(k.lists, []int{rule})
	if len(k.keys) > keyIndexLinear {
		if k.m == nil {
			k.m = make(map[string]int, len(k.keys))
			for j, key := range k.keys {
				k.m[key] = j
			}
		}
		k.m[key] = len(k.keys) - 1
	}
}

func (k *keyIndex) find(key string) (int, bool) {
	if k.m != nil {
		j, ok := k.m[key]
		return j, ok
	}
	for j, have := range k.keys {
		if have == key {
			return j, true
		}
	}
	return 0, false
}

// get returns the rules filed under key.
func (k *keyIndex) get(key string) []int {
	if j, ok := k.find(key); ok {
		return k.lists[j]
	}
	return nil
}

// The properties parseDecls keeps, as indexes of styleSheet.byProp: a
// fixed array, as the lookups run for every element of a plain file.
const (
	propDisplay = iota
	propVisibility
	propContent
	numProps
)

func propIndex(prop string) int {
	switch prop {
	case "display":
		return propDisplay
	case "visibility":
		return propVisibility
	case "content":
		return propContent
	}
	return -1
}

// pseudoRules lists the rules of a pseudo-element ("before" or "after").
func (s *styleSheet) pseudoRules(pseudo string) []int {
	switch pseudo {
	case "before":
		return s.byPseudo[0]
	case "after":
		return s.byPseudo[1]
	}
	return nil
}

// maxStyleRules bounds the rules kept per frame.
const maxStyleRules = 500

type cssRule struct {
	sel    []cssCompound // right-most last
	comb   []byte        // comb[i] joins sel[i] and sel[i+1]: ' ' or '>'
	pseudo string        // "", "before" or "after"
	spec   int
	order  int
	decl   map[string]string
	props  uint8 // bit propIndex(k) for each k of decl the lookups read
}

type cssCompound struct {
	tag     string
	id      string
	classes []string
	attrs   [][2]string // name, value ("\x00" for presence)
	dir     string
}

// maxStyleBytes bounds the CSS read per frame.
const maxStyleBytes = 256 << 10

// collectStyles reads the author styles of a plain file. On the way it
// returns textMax, a bound on the bytes of the frame's visible text (each
// text node outside script and style at most once, plus a separator), so
// the index can size the text once.
func collectStyles(root *html.Node) (sheet *styleSheet, textMax int) {
	var b strings.Builder
	// every node in document order, by the tree's own links: this walk runs
	// over the whole frame before the index walk, so it allocates nothing
	for n := root; n != nil; {
		descend := true
		if n.Type == html.TextNode && (n.Parent == nil || n.Parent.DataAtom != atom.Script) {
			textMax += len(n.Data) + 1
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Style {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode && b.Len() < maxStyleBytes {
					b.WriteString(c.Data)
					b.WriteByte('\n')
				}
			}
			descend = false
		}
		n = nextInTree(n, root, descend)
	}
	if b.Len() == 0 {
		return nil, textMax
	}
	s := parseCSS(b.String())
	if len(s.rules) == 0 {
		return nil, textMax
	}
	return s, textMax
}

func parseCSS(src string) *styleSheet {
	// strip comments
	var clean strings.Builder
	for {
		i := strings.Index(src, "/*")
		if i < 0 {
			clean.WriteString(src)
			break
		}
		clean.WriteString(src[:i])
		j := strings.Index(src[i+2:], "*/")
		if j < 0 {
			break
		}
		src = src[i+2+j+2:]
	}
	s := &styleSheet{}
	rest := clean.String()
	order := 0
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		prelude := strings.TrimSpace(rest[:open])
		// find the matching close brace
		depth, end := 0, -1
		for i := open; i < len(rest); i++ {
			if rest[i] == '{' {
				depth++
			} else if rest[i] == '}' {
				depth--
				if depth == 0 {
					end = i
					break
				}
			}
		}
		if end < 0 {
			break
		}
		body := rest[open+1 : end]
		rest = rest[end+1:]
		if strings.HasPrefix(prelude, "@") {
			continue // media queries and the like are not modelled
		}
		decl := parseDecls(body)
		if len(decl) == 0 {
			continue
		}
		for _, sel := range strings.Split(prelude, ",") {
			if r, ok := parseSelector(strings.TrimSpace(sel)); ok {
				order++
				r.order = order
				r.decl = decl
				s.rules = append(s.rules, r)
			}
		}
	}
	if len(s.rules) > maxStyleRules {
		s.rules = s.rules[:maxStyleRules]
	}
	for i := range s.rules {
		r := &s.rules[i]
		if r.pseudo != "" {
			if r.pseudo == "before" {
				s.byPseudo[0] = append(s.byPseudo[0], i)
			} else {
				s.byPseudo[1] = append(s.byPseudo[1], i)
			}
			continue
		}
		for k := range r.decl {
			if pi := propIndex(k); pi >= 0 {
				r.props |= 1 << pi
			}
		}
		if r.props != 0 {
			s.elem.add(r, i)
		}
	}
	return s
}

func parseDecls(body string) map[string]string {
	m := map[string]string{}
	for _, d := range cssscan.Split(body, ';') {
		k, v, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
		switch k {
		case "display", "visibility":
			m[k] = strings.ToLower(v)
		case "content":
			m[k] = v // the last declaration wins, as in a browser that parses both
		}
	}
	return m
}

func parseSelector(sel string) (cssRule, bool) {
	var r cssRule
	if sel == "" {
		return r, false
	}
	for _, pe := range []string{"::before", ":before"} {
		if s, ok := strings.CutSuffix(sel, pe); ok {
			sel, r.pseudo = s, "before"
		}
	}
	for _, pe := range []string{"::after", ":after"} {
		if s, ok := strings.CutSuffix(sel, pe); ok {
			sel, r.pseudo = s, "after"
		}
	}
	sel = strings.ReplaceAll(sel, ">", " > ")
	pendingComb := byte(0)
	for _, tok := range strings.Fields(sel) {
		if tok == ">" {
			pendingComb = '>'
			continue
		}
		c, spec, ok := parseCompound(tok)
		if !ok {
			return r, false
		}
		if len(r.sel) > 0 {
			if pendingComb == 0 {
				pendingComb = ' '
			}
			r.comb = append(r.comb, pendingComb)
		}
		pendingComb = 0
		r.sel = append(r.sel, c)
		r.spec += spec
	}
	return r, len(r.sel) > 0 && pendingComb == 0
}

func parseCompound(tok string) (cssCompound, int, bool) {
	var c cssCompound
	spec := 0
	i := 0
	readIdent := func() string {
		j := i
		for j < len(tok) && (isIdentByte(tok[j])) {
			j++
		}
		s := tok[i:j]
		i = j
		return s
	}
	if i < len(tok) && tok[i] == '*' {
		i++
	} else if i < len(tok) && isIdentByte(tok[i]) {
		c.tag = strings.ToLower(readIdent())
		spec++
	}
	for i < len(tok) {
		switch tok[i] {
		case '#':
			i++
			c.id = readIdent()
			spec += 10000
		case '.':
			i++
			c.classes = append(c.classes, readIdent())
			spec += 100
		case '[':
			j := strings.IndexByte(tok[i:], ']')
			if j < 0 {
				return c, 0, false
			}
			inner := tok[i+1 : i+j]
			i += j + 1
			k, v, ok := strings.Cut(inner, "=")
			if !ok {
				v = "\x00"
			} else {
				v = strings.Trim(v, `"'`)
			}
			c.attrs = append(c.attrs, [2]string{strings.ToLower(strings.TrimSpace(k)), v})
			spec += 100
		case ':':
			rest := tok[i:]
			switch {
			case strings.HasPrefix(rest, ":dir(rtl)"):
				c.dir = "rtl"
				i += len(":dir(rtl)")
			case strings.HasPrefix(rest, ":dir(ltr)"):
				c.dir = "ltr"
				i += len(":dir(ltr)")
			default:
				return c, 0, false
			}
			spec += 100
		default:
			return c, 0, false
		}
	}
	return c, spec, true
}

func isIdentByte(b byte) bool {
	return b == '-' || b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

func (c *cssCompound) matches(n *html.Node) bool {
	if n == nil || n.Type != html.ElementNode {
		return false
	}
	if c.tag != "" && n.Data != c.tag {
		return false
	}
	if c.id != "" && attr(n, "id") != c.id {
		return false
	}
	if len(c.classes) > 0 {
		have := attr(n, "class")
		for _, want := range c.classes {
			if !hasToken(have, want) {
				return false
			}
		}
	}
	for _, a := range c.attrs {
		if a[1] == "\x00" {
			if !hasAttr(n, a[0]) {
				return false
			}
		} else if attr(n, a[0]) != a[1] {
			return false
		}
	}
	if c.dir != "" && dirOf(n) != c.dir {
		return false
	}
	return true
}

// hasToken reports whether the space-separated list holds tok, without
// allocating.
func hasToken(list, tok string) bool {
	for len(list) > 0 {
		i := strings.IndexAny(list, " \t\n\f\r")
		word := list
		if i >= 0 {
			word, list = list[:i], list[i+1:]
		} else {
			list = ""
		}
		if word == tok {
			return true
		}
	}
	return false
}

// dirOf is the element's directionality from dir attributes (auto is
// treated as ltr).
func dirOf(n *html.Node) string {
	for p := n; p != nil; p = p.Parent {
		if p.Type == html.ElementNode {
			switch strings.ToLower(attr(p, "dir")) {
			case "rtl":
				return "rtl"
			case "ltr":
				return "ltr"
			}
		}
	}
	return "ltr"
}

// matchRule matches a rule's selector chain against n, right to left. It
// does not backtrack (a descendant compound takes the nearest matching
// ancestor) and examines a bounded number of ancestors, so a rule costs
// linear time at most.
func (r *cssRule) matchRule(n *html.Node) bool {
	i := len(r.sel) - 1
	if !r.sel[i].matches(n) {
		return false
	}
	p := n.Parent
	steps := 0
	for i--; i >= 0; i-- {
		if r.comb[i] == '>' {
			if !r.sel[i].matches(p) {
				return false
			}
			p = p.Parent
			continue
		}
		for ; p != nil && steps < 256 && !r.sel[i].matches(p); p = p.Parent {
			steps++
		}
		if p == nil || steps >= 256 {
			return false
		}
		p = p.Parent
	}
	return true
}

// lookup returns the winning value of prop for n (pseudo "" for the element
// itself).
func (s *styleSheet) lookup(n *html.Node, pseudo, prop string) (string, bool) {
	if pseudo == "" {
		pi := propIndex(prop)
		if pi < 0 {
			return "", false
		}
		st := s.elementStyle(n, 1<<pi)
		return st.val[pi], st.spec[pi] >= 0
	}
	bestSpec, bestOrder := -1, -1
	val := ""
	for _, i := range s.pseudoRules(pseudo) {
		r := &s.rules[i]
		if r.pseudo != pseudo {
			continue
		}
		v, ok := r.decl[prop]
		if !ok {
			continue
		}
		if r.spec < bestSpec || (r.spec == bestSpec && r.order < bestOrder) {
			continue
		}
		if !r.matchRule(n) {
			continue
		}
		bestSpec, bestOrder, val = r.spec, r.order, v
	}
	return val, bestSpec >= 0
}

func (s *styleSheet) displayVisibility(n *html.Node, id, class string) (display, visibility string) {
	var st elemStyle
	s.elementStyleOf(&st, n, 1<<propDisplay|1<<propVisibility, id, class)
	return st.val[propDisplay], st.val[propVisibility]
}

// elemStyle is the winning rule, per property, of an element's own style:
// spec -1 where no rule sets the property.
type elemStyle struct {
	spec, order [numProps]int
	val         [numProps]string
}

// elementStyle looks up the properties of mask for the element itself.
func (s *styleSheet) elementStyle(n *html.Node, mask uint8) elemStyle {
	var st elemStyle
	s.elementStyleOf(&st, n, mask, attr(n, "id"), attr(n, "class"))
	return st
}

// elementStyleOf is elementStyle for an element whose id and class
// attributes the caller has read, trying only the rules the index files
// under the element's tag, id and classes. The winner of each property is
// the matching rule of highest (specificity, order), whatever order the
// rules are tried in.
func (s *styleSheet) elementStyleOf(st *elemStyle, n *html.Node, mask uint8, id, class string) {
	st.spec = [numProps]int{-1, -1, -1}
	st.order = [numProps]int{-1, -1, -1}
	x := &s.elem
	if len(x.any) > 0 {
		s.consider(st, x.any, n, mask)
	}
	if len(x.byTag.keys) > 0 {
		if l := x.byTag.get(n.Data); l != nil {
			s.consider(st, l, n, mask)
		}
	}
	if id != "" && len(x.byID.keys) > 0 {
		if l := x.byID.get(id); l != nil {
			s.consider(st, l, n, mask)
		}
	}
	if len(x.byClass.keys) > 0 {
		// the words as hasToken splits them, empty ones included
		for start, i := 0, 0; start < len(class); i++ {
			if i < len(class) && !classSpace[class[i]] {
				continue
			}
			if l := x.byClass.get(class[start:i]); l != nil {
				s.consider(st, l, n, mask)
			}
			start = i + 1
		}
	}
}

// classSpace marks the bytes hasToken splits a class list on.
var classSpace = [256]bool{' ': true, '\t': true, '\n': true, '\f': true, '\r': true}

func (s *styleSheet) consider(st *elemStyle, list []int, n *html.Node, mask uint8) {
	for _, i := range list {
		r := &s.rules[i]
		m := r.props & mask
		if m == 0 {
			continue
		}
		matched := 0 // 0 unknown, 1 matches, 2 does not
		for pi := 0; pi < numProps; pi++ {
			if m&(1<<pi) == 0 {
				continue
			}
			if r.spec < st.spec[pi] || (r.spec == st.spec[pi] && r.order < st.order[pi]) {
				continue
			}
			if matched == 0 {
				matched = 2
				if r.matchRule(n) {
					matched = 1
				}
			}
			if matched == 1 {
				st.spec[pi], st.order[pi], st.val[pi] = r.spec, r.order, r.decl[propNames[pi]]
			}
		}
	}
}

var propNames = [numProps]string{"display", "visibility", "content"}

// pseudoContent is the text a ::before or ::after rule adds, with its
// alternative text ("content: 'x' / 'alt'") preferred, as accname asks.
func (s *styleSheet) pseudoContent(n *html.Node, pseudo string) (string, bool) {
	if s == nil {
		return "", false
	}
	v, ok := s.lookup(n, pseudo, "content")
	if !ok {
		return "", false
	}
	if d, _ := s.lookup(n, pseudo, "display"); d == "none" {
		return "", false
	}
	text, ok := cssContentText(n, v)
	if !ok {
		return "", false
	}
	if d, _ := s.lookup(n, pseudo, "display"); d != "" && d != "inline" {
		text = " " + text + " "
	}
	return text, true
}

// cssContentText evaluates a content value: strings, attr() and url()
// (nothing), with the part after "/" as alternative text.
func cssContentText(n *html.Node, v string) (string, bool) {
	v = strings.TrimSpace(v)
	if v == "" || v == "none" || v == "normal" {
		return "", false
	}
	parts := cssscan.SplitTop(v, '/')
	src := parts[0]
	if len(parts) > 1 {
		src = parts[1]
	}
	var b strings.Builder
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j > len(src) {
				j = len(src)
			}
			b.WriteString(src[i+1 : min(j, len(src))])
			i = j + 1
		case strings.HasPrefix(src[i:], "attr("):
			j := strings.IndexByte(src[i:], ')')
			if j < 0 {
				return b.String(), true
			}
			b.WriteString(attr(n, strings.TrimSpace(src[i+5:i+j])))
			i += j + 1
		case strings.HasPrefix(src[i:], "url("):
			j := strings.IndexByte(src[i:], ')')
			if j < 0 {
				return b.String(), true
			}
			i += j + 1
		default:
			i++
		}
	}
	return b.String(), true
}

// styleProp returns one property of an inline style attribute, lower-case.
func styleProp(style, prop string) string {
	val := ""
	for _, decl := range strings.Split(style, ";") {
		k, v, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		if strings.EqualFold(strings.TrimSpace(k), prop) {
			val = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.ToLower(v)), "!important"))
		}
	}
	return val
}
