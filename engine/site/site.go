// Package site describes a chat site the lab drives (SPEC SITE-1): its
// name and base URL, the adapter that reads its markup, where its
// composer, send control and stop control are, whether a message is sent
// by a click or by Enter, the page-level signals that mean "an answer is
// streaming", and which clock the harness runs it on. The sim is the
// built-in profile of one site (Sim); every other site is described by a
// site profile file.
//
// # Site profile files
//
// A profile is JSON, version 1 (comments are for this page only):
//
//	{
//	  "version": 1,                          // required, must be 1
//	  "name": "testsite",                    // required: [a-z0-9-]+, names the site in messages
//	  "base_url": "http://127.0.0.1:8700",   // required: absolute http(s) URL; "I open "/path"" is relative to it
//	  "chat_path": "/",                      // optional, default "/": what "I open the chat" opens
//	  "clock": "wall",                       // optional: "wall" (default) or "lab" (the lab clock; the sim's)
//	  "adapter": "testsite.adapter.json",    // required: marker, heading, auto, an adapter file (relative
//	                                         // to this file) or an inline adapter object (engine/adapter's format)
//	  "composer": {"role": "textbox", "name": "Message"},   // required: role and name, or {"selector": "div.composer"}
//	  "send": {"role": "button", "name": "Send", "by": "click"}, // required; "by": "click" (default) or "enter"
//	                                                        // (Enter is pressed in the composer; role/name may then be left out)
//	  "stop": {"role": "button", "name": "Stop"},            // optional: the control that replaces Send while streaming
//	  "generating": {                        // optional page-level signals: any of them on the page means the
//	    "selectors": ["#log[aria-busy=true]"],//   newest assistant group (after the last user turn) is still generating
//	    "controls": [{"role": "button", "name": "Stop"}]    // a visible control with that role and name
//	  }
//	}
//
// Speaker rules by pattern ("every speaker that is not the user is the
// assistant": "assistant": ["*"]) and text exclusions (a cursor glyph, figure
// captions: "text": {"exclude": ["span.cursor", "figcaption"]}) belong to the
// adapter, inline or in its file (see engine/adapter).
//
// A file that breaks a rule is refused with a *FileError naming the JSON
// path of the field ("send.by", "adapter.turn.selector", …) and the reason;
// errors.Is(err, ErrBadProfile) holds.
package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/andybalholm/cascadia"

	"github.com/replaylab/replaylab/engine/adapter"
)

// FileVersion is the profile format this build reads.
const FileVersion = 1

// FileBytesMax bounds a profile file.
const FileBytesMax = 1 << 20

// Clocks a profile may name.
const (
	ClockWall = "wall"
	ClockLab  = "lab"
)

// Send modes.
const (
	SendClick = "click"
	SendEnter = "enter"
)

// ErrBadProfile is wrapped by every *FileError.
var ErrBadProfile = errors.New("bad site profile")

// FileError refuses a profile: Field is the JSON path of the offending
// value ("" for the whole file).
type FileError struct {
	Source string
	Field  string
	Reason string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString("site: ")
	if e.Source != "" {
		b.WriteString(e.Source + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap makes errors.Is(err, ErrBadProfile) true.
func (e *FileError) Unwrap() error { return ErrBadProfile }

// Control names an element: a role and an accessible name, or a CSS
// selector.
type Control struct {
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Selector string `json:"selector,omitempty"`
}

// IsZero reports whether c names nothing.
func (c Control) IsZero() bool { return c.Role == "" && c.Selector == "" }

func (c Control) String() string {
	if c.Selector != "" {
		return "selector " + strconv.Quote(c.Selector)
	}
	if c.Name == "" {
		return c.Role
	}
	return fmt.Sprintf("%s %q", c.Role, c.Name)
}

// Signals are page-level generating signals.
type Signals struct {
	Selectors []string  `json:"selectors,omitempty"`
	Controls  []Control `json:"controls,omitempty"`
}

// Empty reports whether s has no signal.
func (s Signals) Empty() bool { return len(s.Selectors) == 0 && len(s.Controls) == 0 }

// Profile is one site.
type Profile struct {
	Name     string
	BaseURL  string
	ChatPath string
	Clock    string
	// AdapterSource is the adapter as the profile named it: a built-in
	// name, a file path (resolved against the profile's directory) or
	// "inline".
	AdapterSource string
	Adapter       adapter.Adapter
	Composer      Control
	Send          Control
	SendBy        string
	Stop          Control
	Generating    Signals
	// Source is the profile's file, "" for a built-in profile.
	Source string

	sels []cascadia.Matcher
}

// IsSim reports whether p is the sim's built-in profile.
func (p *Profile) IsSim() bool { return p != nil && p.Name == SimName && p.Source == "" }

// SimName names the sim's built-in profile.
const SimName = "sim"

// Sim returns the built-in profile of the sim at base, reading its chat
// with ad (the adapter of the chat's markup style).
func Sim(base string, ad adapter.Adapter) *Profile {
	if ad == nil {
		ad = adapter.DefaultMarker
	}
	return &Profile{
		Name: SimName, BaseURL: base, ChatPath: "/chat", Clock: ClockLab,
		AdapterSource: ad.Name(), Adapter: ad,
		Composer: Control{Role: "textbox", Name: "Message"},
		Send:     Control{Role: "button", Name: "Send"}, SendBy: SendClick,
		Stop: Control{Role: "button", Name: "Stop generating"},
	}
}

// WithBase returns a copy of p at another base URL.
func (p *Profile) WithBase(base string) *Profile {
	q := *p
	q.BaseURL = strings.TrimRight(base, "/")
	return &q
}

// URL resolves a path against the base URL; an absolute URL is returned
// as it is.
func (p *Profile) URL(path string) string {
	if u, err := url.Parse(path); err == nil && u.IsAbs() {
		return path
	}
	if path != "" && !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return p.BaseURL + path
}

// Load reads and checks a profile file.
func Load(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("site: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, FileBytesMax+1))
	if err != nil {
		return nil, fmt.Errorf("site: read %s: %w", path, err)
	}
	return Parse(data, path)
}

// Parse checks a profile's content; source names it in errors, and an
// adapter file it names is read relative to source's directory.
func Parse(data []byte, source string) (*Profile, error) {
	return ParseIn(data, source, "")
}

// ParseIn is Parse for a profile named source relative to root: an
// adapter file it names is read from root but named (in its rule, and so
// in traces) relative to source's directory, so the name does not depend
// on where the run started.
func ParseIn(data []byte, source, root string) (*Profile, error) {
	p, ferr := parse(data, source, root)
	if ferr != nil {
		ferr.Source = source
		return nil, ferr
	}
	p.Source = source
	return p, nil
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

func parse(data []byte, source, root string) (*Profile, *FileError) {
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
	top, ok := v.(map[string]any)
	if !ok {
		return nil, &FileError{Reason: "wrong type: want an object, got " + jsonType(v)}
	}
	ps := &parser{}
	p := ps.profile(obj{m: top}, source, root)
	if ps.err != nil {
		return nil, ps.err
	}
	return p, nil
}

type parser struct{ err *FileError }

type obj struct {
	path string
	m    map[string]any
}

func (ps *parser) fail(field, reason string) {
	if ps.err == nil {
		ps.err = &FileError{Field: field, Reason: reason}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
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

func (ps *parser) known(o obj, keys ...string) {
	var unknown []string
	for k := range o.m {
		found := false
		for _, want := range keys {
			found = found || k == want
		}
		if !found {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		ps.fail(join(o.path, unknown[0]), "unknown field (known: "+strings.Join(keys, ", ")+")")
	}
}

func (ps *parser) str(o obj, key string, required bool) string {
	v, ok := o.m[key]
	if !ok {
		if required {
			ps.fail(join(o.path, key), "missing required field")
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		ps.fail(join(o.path, key), "wrong type: want a string, got "+jsonType(v))
		return ""
	}
	if strings.TrimSpace(s) == "" {
		ps.fail(join(o.path, key), "empty")
	}
	return s
}

func (ps *parser) object(o obj, key string, required bool) (obj, bool) {
	v, ok := o.m[key]
	if !ok {
		if required {
			ps.fail(join(o.path, key), "missing required field")
		}
		return obj{}, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		ps.fail(join(o.path, key), "wrong type: want an object, got "+jsonType(v))
		return obj{}, false
	}
	return obj{path: join(o.path, key), m: m}, true
}

func (ps *parser) list(o obj, key string) []any {
	v, ok := o.m[key]
	if !ok {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		ps.fail(join(o.path, key), "wrong type: want an array, got "+jsonType(v))
		return nil
	}
	if len(l) > adapter.ListLenMax {
		ps.fail(join(o.path, key), "more than "+strconv.Itoa(adapter.ListLenMax)+" entries")
		return nil
	}
	return l
}

func (ps *parser) selector(field, s string) cascadia.Matcher {
	if len(s) > adapter.SelectorBytesMax {
		ps.fail(field, "selector longer than "+strconv.Itoa(adapter.SelectorBytesMax)+" bytes")
		return nil
	}
	sel, err := adapter.CompileSelector(s)
	if err != nil {
		ps.fail(field, err.Error())
		return nil
	}
	return sel
}

func (ps *parser) profile(o obj, source, root string) *Profile {
	ps.known(o, "version", "name", "base_url", "chat_path", "clock", "adapter", "composer", "send", "stop", "generating")
	if ps.err != nil {
		return nil
	}
	v, ok := o.m["version"]
	if !ok {
		ps.fail("version", "missing required field")
		return nil
	}
	n, isNum := v.(json.Number)
	if !isNum {
		ps.fail("version", "wrong type: want an integer, got "+jsonType(v))
		return nil
	}
	if n.String() != strconv.Itoa(FileVersion) {
		ps.fail("version", fmt.Sprintf("unknown version %s (this build reads version %d)", n, FileVersion))
		return nil
	}
	p := &Profile{ChatPath: "/", Clock: ClockWall, SendBy: SendClick}
	p.Name = ps.str(o, "name", true)
	if ps.err == nil && !nameRE.MatchString(p.Name) {
		ps.fail("name", fmt.Sprintf("%q is not a site name (lower-case letters, digits and dashes, at most 63)", p.Name))
	}
	if ps.err == nil && p.Name == SimName {
		ps.fail("name", `"sim" is the built-in profile's name; choose another`)
	}
	base := ps.str(o, "base_url", true)
	if ps.err == nil {
		u, err := url.Parse(base)
		switch {
		case err != nil:
			ps.fail("base_url", "not a URL: "+err.Error())
		case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
			ps.fail("base_url", fmt.Sprintf("%q is not an absolute http(s) URL", base))
		case u.RawQuery != "" || u.Fragment != "":
			ps.fail("base_url", "no query or fragment in a base URL")
		}
		p.BaseURL = strings.TrimRight(base, "/")
	}
	if _, ok := o.m["chat_path"]; ok {
		p.ChatPath = ps.str(o, "chat_path", false)
		if ps.err == nil && !strings.HasPrefix(p.ChatPath, "/") {
			ps.fail("chat_path", "must start with /")
		}
	}
	if _, ok := o.m["clock"]; ok {
		p.Clock = ps.str(o, "clock", false)
		if ps.err == nil && p.Clock != ClockWall && p.Clock != ClockLab {
			ps.fail("clock", fmt.Sprintf("unknown clock %q (want wall or lab)", p.Clock))
		}
	}
	ps.adapter(o, p, source, root)
	if c, ok := ps.object(o, "composer", true); ok {
		p.Composer = ps.control(c, true)
	}
	if s, ok := ps.object(o, "send", true); ok {
		ps.known(s, "role", "name", "selector", "by")
		if _, ok := s.m["by"]; ok {
			p.SendBy = ps.str(s, "by", false)
			if ps.err == nil && p.SendBy != SendClick && p.SendBy != SendEnter {
				ps.fail(join(s.path, "by"), fmt.Sprintf("unknown send mode %q (want click or enter)", p.SendBy))
			}
		}
		delete(s.m, "by")
		p.Send = ps.control(s, p.SendBy == SendClick)
	}
	if s, ok := ps.object(o, "stop", false); ok {
		p.Stop = ps.control(s, true)
	}
	if g, ok := ps.object(o, "generating", false); ok {
		ps.known(g, "selectors", "controls")
		for i, v := range ps.list(g, "selectors") {
			field := join(g.path, "selectors") + "[" + strconv.Itoa(i) + "]"
			s, ok := v.(string)
			if !ok {
				ps.fail(field, "wrong type: want a string, got "+jsonType(v))
				break
			}
			sel := ps.selector(field, s)
			p.Generating.Selectors = append(p.Generating.Selectors, s)
			p.sels = append(p.sels, sel)
		}
		for i, v := range ps.list(g, "controls") {
			field := join(g.path, "controls") + "[" + strconv.Itoa(i) + "]"
			m, ok := v.(map[string]any)
			if !ok {
				ps.fail(field, "wrong type: want an object, got "+jsonType(v))
				break
			}
			c := ps.control(obj{path: field, m: m}, true)
			if ps.err == nil && c.Selector != "" {
				ps.fail(field, `a page-level control is a role and name; put selectors in "selectors"`)
			}
			p.Generating.Controls = append(p.Generating.Controls, c)
		}
	}
	if ps.err != nil {
		return nil
	}
	return p
}

// control reads {"role","name"} or {"selector"}.
func (ps *parser) control(o obj, required bool) Control {
	ps.known(o, "role", "name", "selector")
	var c Control
	_, hasRole := o.m["role"]
	_, hasSel := o.m["selector"]
	_, hasName := o.m["name"]
	switch {
	case hasRole && hasSel:
		ps.fail(join(o.path, "selector"), "give a role and name or a selector, not both")
	case hasSel:
		c.Selector = ps.str(o, "selector", true)
		if hasName {
			ps.fail(join(o.path, "name"), "a selector control has no name")
		}
		if ps.err == nil {
			ps.selector(join(o.path, "selector"), c.Selector)
		}
	case hasRole:
		c.Role = ps.str(o, "role", true)
		if hasName {
			c.Name = ps.str(o, "name", false)
		}
	case hasName:
		ps.fail(join(o.path, "role"), "missing required field (a name needs its role)")
	case required:
		ps.fail(join(o.path, "role"), "missing required field (or selector)")
	}
	return c
}

func (ps *parser) adapter(o obj, p *Profile, source, root string) {
	v, ok := o.m["adapter"]
	if !ok {
		ps.fail("adapter", "missing required field")
		return
	}
	switch a := v.(type) {
	case string:
		if strings.TrimSpace(a) == "" {
			ps.fail("adapter", "empty")
			return
		}
		p.AdapterSource = a
		var ad adapter.Adapter
		var err error
		switch a {
		case "marker", "heading", "auto":
			ad, err = adapter.ByName(a)
		default:
			name := a
			if !filepath.IsAbs(a) && source != "" {
				name = filepath.ToSlash(filepath.Join(filepath.Dir(source), a))
			}
			read := name
			if root != "" && !filepath.IsAbs(name) {
				read = filepath.Join(root, name)
			}
			data, rerr := os.ReadFile(read)
			if rerr != nil {
				ps.fail("adapter", fmt.Sprintf("adapter file %s: %v", name, errors.Unwrap(rerr)))
				return
			}
			p.AdapterSource = name
			ad, err = adapter.ParseFile(data, name)
		}
		if err != nil {
			var fe *adapter.FileError
			if errors.As(err, &fe) {
				ps.fail("adapter", "adapter file "+strings.TrimPrefix(fe.Error(), "adapter: "))
				return
			}
			ps.fail("adapter", err.Error())
			return
		}
		p.Adapter = ad
	case map[string]any:
		data, err := json.Marshal(a)
		if err != nil {
			ps.fail("adapter", err.Error())
			return
		}
		p.AdapterSource = "inline"
		ad, err := adapter.ParseFile(data, "inline")
		if err != nil {
			var fe *adapter.FileError
			if errors.As(err, &fe) {
				ps.fail(join("adapter", fe.Field), fe.Reason)
				return
			}
			ps.fail("adapter", err.Error())
			return
		}
		p.Adapter = ad
	default:
		ps.fail("adapter", "wrong type: want a string (built-in name or file) or an object (inline adapter), got "+jsonType(v))
	}
}

// LoadIn reads the profile at path relative to root (see ParseIn); an
// absolute path is read as it is.
func LoadIn(path, root string) (*Profile, error) {
	read := path
	if root != "" && !filepath.IsAbs(path) {
		read = filepath.Join(root, path)
	}
	data, err := os.ReadFile(read)
	if err != nil {
		return nil, fmt.Errorf("site: %w", err)
	}
	return ParseIn(data, path, root)
}
