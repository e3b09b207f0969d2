package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/observe"
)

// FileVersion is the adapter-file format this build reads.
const FileVersion = 1

// Bounds of an adapter file.
const (
	FileBytesMax     = 1 << 20 // whole file
	SelectorBytesMax = 1024    // one CSS selector
	// SelectorScansMax bounds the descendant (" ") and general-sibling
	// ("~") combinators and :has() of one selector: each may try every
	// ancestor or sibling, so matching costs depth to their power (a
	// failing "a * * * * * * * * p" takes seconds on a 40-deep page).
	SelectorScansMax = 3
	ListLenMax       = 256 // entries of any list
)

// ErrBadAdapterFile is wrapped by every *FileError.
var ErrBadAdapterFile = errors.New("bad adapter file")

// FileError refuses an adapter file: Field is the JSON path of the
// offending value ("turn.speaker.assistant[1]", "" for the whole file) and
// Reason says what is wrong with it.
type FileError struct {
	Source string // the file's path or name, may be empty
	Field  string
	Reason string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString("adapter: ")
	if e.Source != "" {
		b.WriteString(e.Source + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap makes errors.Is(err, ErrBadAdapterFile) true.
func (e *FileError) Unwrap() error { return ErrBadAdapterFile }

// File is an adapter described by an adapter file (schema in the package
// doc). Its zero value finds nothing.
type File struct {
	name   string
	source string

	turn       cascadia.Matcher
	turnSrc    string
	speakAttr  string
	speakSel   cascadia.Matcher
	speakSrc   string
	assistant  []string // folded
	user       []string // folded
	idAttr     string
	idSel      cascadia.Matcher
	idSrc      string
	states     States
	media      []MediaRule
	videoMin   int
	hasSpeaker bool
	exclude    []cascadia.Matcher // text.exclude: left out of a group's text
}

// LoadFile reads and checks an adapter file.
func LoadFile(path string) (Adapter, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("adapter: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, FileBytesMax+1))
	if err != nil {
		return nil, fmt.Errorf("adapter: read %s: %w", path, err)
	}
	return ParseFile(data, path)
}

// ParseFile checks an adapter file's content; source names it in errors and
// in the adapter's default name.
func ParseFile(data []byte, source string) (Adapter, error) {
	a, err := parseFile(data, source)
	if err != nil {
		err.Source = source
		return nil, err
	}
	return a, nil
}

func parseFile(data []byte, source string) (*File, *FileError) {
	if len(data) > FileBytesMax {
		return nil, &FileError{Reason: "larger than " + strconv.Itoa(FileBytesMax) + " bytes"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &FileError{Reason: "not JSON: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &FileError{Reason: "not JSON: data after the top-level object"}
	}
	root, ferr := asObject("", v)
	if ferr != nil {
		return nil, ferr
	}
	p := &parser{}
	a := p.file(root, source)
	if p.err != nil {
		return nil, p.err
	}
	return a, nil
}

// parser reads the decoded JSON, keeping the first error.
type parser struct{ err *FileError }

type object struct {
	path string
	m    map[string]any
}

func (p *parser) fail(field, reason string) {
	if p.err == nil {
		p.err = &FileError{Field: field, Reason: reason}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func asObject(path string, v any) (object, *FileError) {
	m, ok := v.(map[string]any)
	if !ok {
		return object{}, &FileError{Field: path, Reason: "wrong type: want an object, got " + jsonType(v)}
	}
	return object{path: path, m: m}, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// known refuses fields of o not in keys (the first in sorted order, so the
// error is the same on every run).
func (p *parser) known(o object, keys ...string) {
	var unknown []string
	for k := range o.m {
		found := false
		for _, want := range keys {
			if k == want {
				found = true
				break
			}
		}
		if !found {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		p.fail(join(o.path, unknown[0]), "unknown field (known: "+strings.Join(keys, ", ")+")")
	}
}

func (p *parser) object(o object, key string, required bool) (object, bool) {
	v, ok := o.m[key]
	if !ok {
		if required {
			p.fail(join(o.path, key), "missing required field")
		}
		return object{}, false
	}
	sub, err := asObject(join(o.path, key), v)
	if err != nil {
		p.fail(err.Field, err.Reason)
		return object{}, false
	}
	return sub, true
}

func (p *parser) str(o object, key string, required bool) string {
	v, ok := o.m[key]
	if !ok {
		if required {
			p.fail(join(o.path, key), "missing required field")
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		p.fail(join(o.path, key), "wrong type: want a string, got "+jsonType(v))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		p.fail(join(o.path, key), "empty")
	}
	return s
}

func (p *parser) boolean(o object, key string, def bool) bool {
	v, ok := o.m[key]
	if !ok {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		p.fail(join(o.path, key), "wrong type: want a boolean, got "+jsonType(v))
	}
	return b
}

func (p *parser) integer(o object, key string, required bool, lo, hi int64, def int) int {
	v, ok := o.m[key]
	if !ok {
		if required {
			p.fail(join(o.path, key), "missing required field")
		}
		return def
	}
	num, ok := v.(json.Number)
	if !ok {
		p.fail(join(o.path, key), "wrong type: want an integer, got "+jsonType(v))
		return def
	}
	n, err := num.Int64()
	if err != nil {
		p.fail(join(o.path, key), "wrong type: want an integer, got "+num.String())
		return def
	}
	if n < lo || n > hi {
		p.fail(join(o.path, key), fmt.Sprintf("%d out of range %d…%d", n, lo, hi))
		return def
	}
	return int(n)
}

func (p *parser) list(o object, key string) ([]any, bool) {
	v, ok := o.m[key]
	if !ok {
		return nil, false
	}
	l, ok := v.([]any)
	if !ok {
		p.fail(join(o.path, key), "wrong type: want an array, got "+jsonType(v))
		return nil, false
	}
	if len(l) > ListLenMax {
		p.fail(join(o.path, key), "more than "+strconv.Itoa(ListLenMax)+" entries")
		return nil, false
	}
	return l, true
}

func (p *parser) strs(o object, key string, required bool) []string {
	l, ok := p.list(o, key)
	if !ok {
		if required && p.err == nil {
			p.fail(join(o.path, key), "missing required field")
		}
		return nil
	}
	if required && len(l) == 0 {
		p.fail(join(o.path, key), "empty list")
	}
	out := make([]string, 0, len(l))
	for i, v := range l {
		field := join(o.path, key) + "[" + strconv.Itoa(i) + "]"
		s, ok := v.(string)
		if !ok {
			p.fail(field, "wrong type: want a string, got "+jsonType(v))
			return nil
		}
		if strings.TrimSpace(s) == "" {
			p.fail(field, "empty")
			return nil
		}
		out = append(out, s)
	}
	return out
}

// selector compiles a CSS selector, refusing empty and invalid ones.
func (p *parser) selector(field, s string) cascadia.Matcher {
	if strings.TrimSpace(s) == "" {
		p.fail(field, "empty selector")
		return nil
	}
	if len(s) > SelectorBytesMax {
		p.fail(field, "selector longer than "+strconv.Itoa(SelectorBytesMax)+" bytes")
		return nil
	}
	if n := scans(s); n > SelectorScansMax {
		p.fail(field, fmt.Sprintf("selector has %d descendant, sibling (~) or :has() steps, more than %d (matching cost grows with page depth to their power)", n, SelectorScansMax))
		return nil
	}
	// a group ("a, b") is a list of selectors
	sel, err := cascadia.ParseGroup(s)
	if err != nil {
		p.fail(field, "invalid CSS selector: "+err.Error())
		return nil
	}
	return sel
}

// scans counts the steps of a selector that scan ancestors, siblings or
// subtrees: descendant combinators (white space between two compounds),
// "~" and ":has(". Quoted strings and attribute brackets are skipped.
func scans(s string) int {
	n := 0
	var quote byte
	brackets := 0
	prev := byte(0) // last significant byte outside strings and brackets
	space := false
	isOp := func(c byte) bool { return c == '>' || c == '+' || c == '~' || c == ',' || c == '(' }
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '"' || c == '\'':
			quote = c
			continue
		case brackets > 0:
			if c == ']' {
				brackets--
			}
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			space = true
			continue
		}
		if space && prev != 0 && !isOp(prev) && !isOp(c) && c != ')' {
			n++
		}
		if c == '~' {
			n++
		}
		if c == '[' {
			brackets++
		}
		if c == '(' && strings.HasSuffix(strings.ToLower(s[:i]), ":has") {
			n++
		}
		space = false
		prev = c
	}
	return n
}

func fold(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = strings.ToLower(observe.Normalize(s))
	}
	return out
}

func (p *parser) file(o object, source string) *File {
	p.known(o, "version", "name", "turn", "states", "media", "text")
	if p.err != nil {
		return nil
	}
	if _, ok := o.m["version"]; !ok {
		p.fail("version", "missing required field")
		return nil
	}
	if v := p.integer(o, "version", true, -1<<62, 1<<62, 0); p.err == nil && v != FileVersion {
		p.fail("version", fmt.Sprintf("unknown version %d (this build reads version %d)", v, FileVersion))
	}
	a := &File{source: source, videoMin: 3}
	a.name = p.str(o, "name", false)
	if a.name == "" && p.err == nil {
		a.name = strings.TrimSuffix(filepath.Base(source), filepath.Ext(source))
	}
	if t, ok := p.object(o, "turn", true); ok {
		p.turn(t, a)
	}
	if s, ok := p.object(o, "states", false); ok {
		p.known(s, "builtin", "generating", "confirmation", "failure")
		a.states.NoBuiltin = !p.boolean(s, "builtin", true)
		a.states.Generating = p.signals(s, "generating")
		a.states.Confirmation = p.signals(s, "confirmation")
		a.states.Failure = p.signals(s, "failure")
	}
	if t, ok := p.object(o, "text", false); ok {
		p.known(t, "exclude")
		for i, src := range p.strs(t, "exclude", false) {
			a.exclude = append(a.exclude, p.selector(join(t.path, "exclude")+"["+strconv.Itoa(i)+"]", src))
		}
	}
	if m, ok := p.object(o, "media", false); ok {
		p.known(m, "items", "video_ready_state_min")
		a.videoMin = p.integer(m, "video_ready_state_min", false, 1, 4, 3)
		if l, ok := p.list(m, "items"); ok {
			a.media = []MediaRule{}
			for i, v := range l {
				field := join(m.path, "items") + "[" + strconv.Itoa(i) + "]"
				it, err := asObject(field, v)
				if err != nil {
					p.fail(err.Field, err.Reason)
					break
				}
				p.known(it, "selector", "kind")
				src := p.str(it, "selector", true)
				kind := p.str(it, "kind", true)
				if p.err == nil && kind != "image" && kind != "video" && kind != "audio" {
					p.fail(join(field, "kind"), "unknown kind "+strconv.Quote(kind)+" (want image, video or audio)")
				}
				sel := p.selector(join(field, "selector"), src)
				a.media = append(a.media, MediaRule{Selector: sel, Kind: kind, source: src})
			}
		}
	}
	if p.err != nil {
		return nil
	}
	return a
}

func (p *parser) turn(t object, a *File) {
	p.known(t, "selector", "speaker", "id")
	a.turnSrc = p.str(t, "selector", true)
	if p.err == nil {
		a.turn = p.selector(join(t.path, "selector"), a.turnSrc)
	}
	if s, ok := p.object(t, "speaker", false); ok {
		a.hasSpeaker = true
		p.known(s, "attribute", "selector", "assistant", "user")
		a.speakAttr = p.str(s, "attribute", false)
		a.speakSrc = p.str(s, "selector", false)
		_, hasAttr := s.m["attribute"]
		_, hasSel := s.m["selector"]
		switch {
		case p.err != nil:
		case !hasAttr && !hasSel:
			p.fail(join(s.path, "attribute"), "missing required field (or selector)")
		case hasAttr && strings.TrimSpace(a.speakAttr) == "":
			p.fail(join(s.path, "attribute"), "empty")
		case hasSel:
			a.speakSel = p.selector(join(s.path, "selector"), a.speakSrc)
		}
		a.assistant = fold(p.strs(s, "assistant", true))
		a.user = fold(p.strs(s, "user", false))
	}
	if id, ok := p.object(t, "id", true); ok {
		p.known(id, "attribute", "selector")
		a.idAttr = p.str(id, "attribute", true)
		if _, ok := id.m["selector"]; ok {
			a.idSrc = p.str(id, "selector", false)
			if p.err == nil {
				a.idSel = p.selector(join(id.path, "selector"), a.idSrc)
			}
		}
	}
}

func (p *parser) signals(o object, key string) Signals {
	s, ok := p.object(o, key, false)
	if !ok {
		return Signals{}
	}
	p.known(s, "selectors", "attributes", "buttons", "texts")
	var out Signals
	for i, src := range p.strs(s, "selectors", false) {
		sel := p.selector(join(s.path, "selectors")+"["+strconv.Itoa(i)+"]", src)
		out.Selectors = append(out.Selectors, sel)
		out.sources = append(out.sources, src)
	}
	if l, ok := p.list(s, "attributes"); ok {
		for i, v := range l {
			field := join(s.path, "attributes") + "[" + strconv.Itoa(i) + "]"
			it, err := asObject(field, v)
			if err != nil {
				p.fail(err.Field, err.Reason)
				break
			}
			p.known(it, "name", "value")
			name := p.str(it, "name", true)
			if _, ok := it.m["value"]; !ok {
				p.fail(join(field, "value"), `missing required field ("" for: the attribute is present)`)
			}
			value := p.str(it, "value", false)
			out.Attrs = append(out.Attrs, AttrValue{Name: strings.ToLower(strings.TrimSpace(name)), Value: strings.TrimSpace(value)})
		}
	}
	out.Buttons = fold(p.strs(s, "buttons", false))
	out.Texts = fold(p.strs(s, "texts", false))
	return out
}

// Name implements Adapter: "file:<name>".
func (a *File) Name() string { return "file:" + a.name }

// Source is the path or name the adapter was read from.
func (a *File) Source() string { return a.source }

// Groups implements Adapter. Turns are the outermost visible elements
// matching the turn selector; a turn whose speaker is neither the
// assistant nor the user is not a turn.
func (a *File) Groups(doc *observe.Document) Result { return loaded(a.find(doc)) }

func (a *File) find(doc *observe.Document) Result {
	r := Result{Adapter: a.Name(), Groups: []Group{}}
	if a.turn == nil {
		return r
	}
	for _, f := range doc.Frames {
		pos := 0
		walkEl(f.Root, func(n *html.Node) bool {
			if doc.Hidden(n) {
				return false
			}
			if !a.turn.Match(n) {
				return true
			}
			speaker, label, rule := a.speaker(n)
			if speaker == "" {
				return true // not a turn: its descendants may be
			}
			r.Turns++
			if speaker == "user" {
				r.Users = append(r.Users, n)
				return false
			}
			pos++
			g := Group{Frame: f.ID}
			id, idRule := a.messageID(n)
			if id == "" {
				id = "pos-" + strconv.Itoa(pos)
				idRule = "id from position " + strconv.Itoa(pos) + " (no " + a.idAttr + ")"
			}
			g.ID = id
			if f.ID != "main" {
				g.ID = f.ID + "/" + id
			}
			g.Rule = a.Name() + " (" + a.source + "): turn " + strconv.Quote(a.turnSrc) + rule + "; " + idRule
			g.read(doc, span{nodes: []*html.Node{n}, skip: label, exclude: a.exclude}, &a.states, a.media, a.videoMin)
			r.Groups = append(r.Groups, g)
			return false
		})
	}
	r.Structure = r.Turns > 0
	return r
}

// speaker tells a turn's speaker; label is the element that told it by
// its text (left out of the group's text).
func (a *File) speaker(n *html.Node) (speaker string, label *html.Node, rule string) {
	if !a.hasSpeaker {
		return "assistant", nil, ""
	}
	var v string
	var where string
	switch {
	case a.speakAttr != "" && a.speakSel != nil:
		// the attribute of a descendant ("li > span.who[data-speaker]")
		holder := first(n, a.speakSel)
		if holder == nil {
			return "", nil, ""
		}
		v = observe.Attr(holder, a.speakAttr)
		where = a.speakAttr + " of " + strconv.Quote(a.speakSrc)
		label = holder
	case a.speakAttr != "":
		v = observe.Attr(n, a.speakAttr)
		where = a.speakAttr
	default:
		label = first(n, a.speakSel)
		if label == nil {
			return "", nil, ""
		}
		v = one(label).textRaw()
		where = "text of " + strconv.Quote(a.speakSrc)
	}
	v = strings.ToLower(observe.Normalize(v))
	switch speakerOf(v, a.assistant, a.user) {
	case "assistant":
		return "assistant", label, ", speaker " + where + "=" + strconv.Quote(v)
	case "user":
		return "user", label, ""
	}
	return "", nil, ""
}

// speakerOf matches a folded speaker value: exact values of either list
// first, then patterns ("*" any run of characters, "?" one; "*" alone:
// any speaker the other list does not name exactly), assistant before
// user within each kind.
func speakerOf(v string, assistant, user []string) string {
	if contains(assistant, v) {
		return "assistant"
	}
	if contains(user, v) {
		return "user"
	}
	if v == "" {
		return ""
	}
	for _, l := range []struct {
		who  string
		list []string
	}{{"assistant", assistant}, {"user", user}} {
		for _, pat := range l.list {
			if strings.ContainsAny(pat, "*?") {
				if ok, err := path.Match(pat, v); err == nil && ok {
					return l.who
				}
			}
		}
	}
	return ""
}

func (a *File) messageID(n *html.Node) (id, rule string) {
	holder := n
	if a.idSel != nil {
		holder = first(n, a.idSel)
		if holder == nil {
			return "", ""
		}
	}
	v := strings.TrimSpace(observe.Attr(holder, a.idAttr))
	if v == "" {
		return "", ""
	}
	if holder == n {
		return v, "id from " + a.idAttr
	}
	return v, "id from " + a.idAttr + " of " + strconv.Quote(a.idSrc)
}

// first is the first descendant of n (n excluded) matching sel.
func first(n *html.Node, sel cascadia.Matcher) *html.Node {
	var found *html.Node
	walkEl(n, func(c *html.Node) bool {
		if found != nil {
			return false
		}
		if c != n && sel.Match(c) {
			found = c
			return false
		}
		return true
	})
	return found
}

// textRaw is the text of a span's nodes, hidden or not (a speaker label
// may be screen-reader-only).
func (s span) textRaw() string {
	var b strings.Builder
	for _, n := range s.nodes {
		walk := []*html.Node{n}
		for len(walk) > 0 {
			c := walk[len(walk)-1]
			walk = walk[:len(walk)-1]
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
				continue
			}
			b.WriteString(" ")
			for k := c.LastChild; k != nil; k = k.PrevSibling {
				walk = append(walk, k)
			}
		}
	}
	return observe.Normalize(b.String())
}

// CompileSelector compiles a CSS selector under the same rules as an
// adapter file's selectors (not empty, at most SelectorBytesMax bytes and
// SelectorScansMax scanning steps), for other formats that embed
// selectors (site profiles).
func CompileSelector(s string) (cascadia.Matcher, error) {
	p := &parser{}
	sel := p.selector("", s)
	if p.err != nil {
		return nil, errors.New(p.err.Reason)
	}
	return sel, nil
}
