package adapter

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/internal/cssscan"
	"github.com/replaylab/replaylab/internal/jsonfile"
)

// FileVersion is the newest adapter-file format this build reads.
// Version 2 added turn.id.kind (ids the page makes up, or none: SPEC
// LIB-1); version 1 files are still read.
const FileVersion = 2

// Kinds of message ids an adapter file declares (turn.id.kind).
const (
	// IDStable: the attribute holds the message's id for the life of the
	// turn (the default; a turn without it gets a position id, which
	// validate reports).
	IDStable = "stable"
	// IDVolatile: the attribute holds an id the page makes up per load
	// or per run; it names one turn while the page is loaded.
	IDVolatile = "volatile"
	// IDPosition: the page has no message ids; turns are named by their
	// position among the assistant's turns.
	IDPosition = "position"
)

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
	return jsonfile.Message("adapter", e.Source, e.Field, e.Reason)
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
	idKind     string // IDStable, IDVolatile or IDPosition
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
	data, err := jsonfile.ReadFile(path, FileBytesMax)
	if err != nil {
		return nil, fmt.Errorf("adapter: %w", err)
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
	root, jerr := jsonfile.Decode(data, FileBytesMax)
	if jerr != nil {
		return nil, &FileError{Field: jerr.Field, Reason: jerr.Reason}
	}
	p := &parser{jsonfile.Reader{ListLenMax: ListLenMax}}
	a := p.file(root, source)
	if p.Err != nil {
		return nil, &FileError{Field: p.Err.Field, Reason: p.Err.Reason}
	}
	return a, nil
}

// parser reads the decoded JSON, keeping the first error.
type parser struct{ jsonfile.Reader }

// selector compiles a CSS selector, refusing empty and invalid ones.
func (p *parser) selector(field, s string) cascadia.Matcher {
	if strings.TrimSpace(s) == "" {
		p.Fail(field, "empty selector")
		return nil
	}
	if len(s) > SelectorBytesMax {
		p.Fail(field, "selector longer than "+strconv.Itoa(SelectorBytesMax)+" bytes")
		return nil
	}
	if n := scans(s); n > SelectorScansMax {
		p.Fail(field, fmt.Sprintf("selector has %d descendant, sibling (~) or :has() steps, more than %d (matching cost grows with page depth to their power)", n, SelectorScansMax))
		return nil
	}
	// a group ("a, b") is a list of selectors
	sel, err := cascadia.ParseGroup(s)
	if err != nil {
		p.Fail(field, "invalid CSS selector: "+err.Error())
		return nil
	}
	return sel
}

// scans counts the steps of a selector that scan ancestors, siblings or
// subtrees: descendant combinators (white space between two compounds),
// "~" and ":has(". Quoted strings and attribute brackets are skipped.
func scans(s string) int {
	n := 0
	brackets := 0
	prev := byte(0) // last significant byte outside strings and brackets
	space := false
	isOp := func(c byte) bool { return c == '>' || c == '+' || c == '~' || c == ',' || c == '(' }
	for i, c := range cssscan.Unquoted(s) {
		switch {
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

func (p *parser) file(o jsonfile.Object, source string) *File {
	p.Known(o, "version", "name", "turn", "states", "media", "text")
	if p.Err != nil {
		return nil
	}
	if _, ok := o.M["version"]; !ok {
		p.Fail("version", "missing required field")
		return nil
	}
	v := p.Int(o, "version", true, -1<<62, 1<<62, 0)
	if p.Err == nil && (v < 1 || v > FileVersion) {
		p.Fail("version", fmt.Sprintf("unknown version %d (this build reads versions 1 to %d)", v, FileVersion))
	}
	a := &File{source: source, videoMin: 3, idKind: IDStable}
	a.name = p.Str(o, "name", false)
	if a.name == "" && p.Err == nil {
		a.name = strings.TrimSuffix(filepath.Base(source), filepath.Ext(source))
	}
	if t, ok := p.Object(o, "turn", true); ok {
		p.turn(t, a, v)
	}
	if s, ok := p.Object(o, "states", false); ok {
		p.Known(s, "builtin", "generating", "confirmation", "failure", "stopped")
		a.states.NoBuiltin = !p.Bool(s, "builtin", true)
		a.states.Generating = p.signals(s, "generating")
		a.states.Confirmation = p.signals(s, "confirmation")
		a.states.Failure = p.signals(s, "failure")
		a.states.Stopped = p.signals(s, "stopped")
	}
	if t, ok := p.Object(o, "text", false); ok {
		p.Known(t, "exclude")
		for i, src := range p.Strs(t, "exclude", false) {
			a.exclude = append(a.exclude, p.selector(jsonfile.Index(jsonfile.Join(t.Path, "exclude"), i), src))
		}
	}
	if m, ok := p.Object(o, "media", false); ok {
		p.Known(m, "items", "video_ready_state_min")
		a.videoMin = p.Int(m, "video_ready_state_min", false, 1, 4, 3)
		if l, ok := p.List(m, "items"); ok {
			a.media = []MediaRule{}
			for i, v := range l {
				field := jsonfile.Index(jsonfile.Join(m.Path, "items"), i)
				it, err := jsonfile.AsObject(field, v)
				if err != nil {
					p.Fail(err.Field, err.Reason)
					break
				}
				p.Known(it, "selector", "kind")
				src := p.Str(it, "selector", true)
				kind := p.Str(it, "kind", true)
				if p.Err == nil && kind != "image" && kind != "video" && kind != "audio" {
					p.Fail(jsonfile.Join(field, "kind"), "unknown kind "+strconv.Quote(kind)+" (want image, video or audio)")
				}
				sel := p.selector(jsonfile.Join(field, "selector"), src)
				a.media = append(a.media, MediaRule{Selector: sel, Kind: kind, source: src})
			}
		}
	}
	if p.Err != nil {
		return nil
	}
	return a
}

func (p *parser) turn(t jsonfile.Object, a *File, version int) {
	p.Known(t, "selector", "speaker", "id")
	a.turnSrc = p.Str(t, "selector", true)
	if p.Err == nil {
		a.turn = p.selector(jsonfile.Join(t.Path, "selector"), a.turnSrc)
	}
	if s, ok := p.Object(t, "speaker", false); ok {
		a.hasSpeaker = true
		p.Known(s, "attribute", "selector", "assistant", "user")
		a.speakAttr = p.Str(s, "attribute", false)
		a.speakSrc = p.Str(s, "selector", false)
		_, hasAttr := s.M["attribute"]
		_, hasSel := s.M["selector"]
		switch {
		case p.Err != nil:
		case !hasAttr && !hasSel:
			p.Fail(jsonfile.Join(s.Path, "attribute"), "missing required field (or selector)")
		case hasAttr && strings.TrimSpace(a.speakAttr) == "":
			p.Fail(jsonfile.Join(s.Path, "attribute"), "empty")
		case hasSel:
			a.speakSel = p.selector(jsonfile.Join(s.Path, "selector"), a.speakSrc)
		}
		a.assistant = fold(p.Strs(s, "assistant", true))
		a.user = fold(p.Strs(s, "user", false))
	}
	if id, ok := p.Object(t, "id", true); ok {
		p.Known(id, "attribute", "selector", "kind")
		if _, ok := id.M["kind"]; ok {
			kind := p.Str(id, "kind", true)
			switch {
			case p.Err != nil:
			case version < 2:
				p.Fail(jsonfile.Join(id.Path, "kind"), `needs "version": 2 (version 1 files have no id kinds)`)
			case kind != IDStable && kind != IDVolatile && kind != IDPosition:
				p.Fail(jsonfile.Join(id.Path, "kind"), "unknown kind "+strconv.Quote(kind)+" (want stable, volatile or position)")
			default:
				a.idKind = kind
			}
		}
		if a.idKind == IDPosition {
			for _, k := range []string{"attribute", "selector"} {
				if _, ok := id.M[k]; ok && p.Err == nil {
					p.Fail(jsonfile.Join(id.Path, k), "a position id reads no attribute: leave it out, or declare the kind the attribute's ids are (stable or volatile)")
				}
			}
			return
		}
		a.idAttr = p.Str(id, "attribute", true)
		if _, ok := id.M["selector"]; ok {
			a.idSrc = p.Str(id, "selector", false)
			if p.Err == nil {
				a.idSel = p.selector(jsonfile.Join(id.Path, "selector"), a.idSrc)
			}
		}
	}
}

func (p *parser) signals(o jsonfile.Object, key string) Signals {
	s, ok := p.Object(o, key, false)
	if !ok {
		return Signals{}
	}
	p.Known(s, "selectors", "attributes", "buttons", "texts")
	var out Signals
	for i, src := range p.Strs(s, "selectors", false) {
		sel := p.selector(jsonfile.Index(jsonfile.Join(s.Path, "selectors"), i), src)
		out.Selectors = append(out.Selectors, sel)
		out.sources = append(out.sources, src)
	}
	if l, ok := p.List(s, "attributes"); ok {
		for i, v := range l {
			field := jsonfile.Index(jsonfile.Join(s.Path, "attributes"), i)
			it, err := jsonfile.AsObject(field, v)
			if err != nil {
				p.Fail(err.Field, err.Reason)
				break
			}
			p.Known(it, "name", "value")
			name := p.Str(it, "name", true)
			if _, ok := it.M["value"]; !ok {
				p.Fail(jsonfile.Join(field, "value"), `missing required field ("" for: the attribute is present)`)
			}
			value := p.Str(it, "value", false)
			out.Attrs = append(out.Attrs, AttrValue{Name: strings.ToLower(strings.TrimSpace(name)), Value: strings.TrimSpace(value)})
		}
	}
	out.Buttons = fold(p.Strs(s, "buttons", false))
	out.Texts = fold(p.Strs(s, "texts", false))
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
			if a.idKind == IDPosition {
				id, idRule = "pos-"+strconv.Itoa(pos), "id by position "+strconv.Itoa(pos)+" (declared: turn.id.kind position)"
			} else if id == "" {
				id = "pos-" + strconv.Itoa(pos)
				idRule = "id from position " + strconv.Itoa(pos) + " (no " + a.idAttr + ")"
			} else if a.idKind == IDVolatile {
				idRule += " (declared: turn.id.kind volatile)"
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

// IDKind is the kind of message ids the file declares: IDStable (the
// default), IDVolatile or IDPosition.
func (a *File) IDKind() string { return a.idKind }

func (a *File) messageID(n *html.Node) (id, rule string) {
	if a.idKind == IDPosition {
		return "", ""
	}
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
	if p.Err != nil {
		return nil, errors.New(p.Err.Reason)
	}
	return sel, nil
}
