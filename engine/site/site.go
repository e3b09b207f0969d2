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
//	  "clock": "wall",                       // optional: "wall" (default), "lab" (the lab clock; the sim's) or
//	                                         // "page" (the site's own JS timers on the lab clock; see ClockPage)
//	  "adapter": "testsite.adapter.json",    // required: marker, heading, auto, an adapter file (relative
//	                                         // to this file) or an inline adapter object (engine/adapter's format)
//	  "composer": {"role": "textbox", "name": "Message"},   // required: role and name, or {"selector": "div.composer"}
//	  "send": {"role": "button", "name": "Send", "by": "click"}, // required; "by": "click" (default) or "enter"
//	                                                        // (Enter is pressed in the composer; role/name may then be left out)
//	  "stop": {"role": "button", "name": "Stop"},            // optional: the control that replaces Send while streaming;
//	                                                        //   {"none": "why"} for a site without one (a stop skips)
//	  "regenerate": {"role": "button", "name": "Regenerate"}, // optional (default: button "Regenerate")
//	  "retry": {"role": "button", "name": "Retry"},          // optional (default: button "Retry" or "Try again")
//	                                         // stop, regenerate and retry may add "in": "newest" (or a group id):
//	                                         //   only the match inside that answer counts (one per answer)
//	  "generating": {                        // optional page-level signals: any of them on the page means the
//	    "selectors": ["#log[aria-busy=true]"],//   newest assistant group (after the last user turn) is still generating
//	    "controls": [{"role": "button", "name": "Stop"}]    // a visible control with that role and name
//	  },
//	  "failed": {"selectors": [".toast.error"]}, // optional page-level failure signals (a toast outside the
//	                                         //   turns): the newest assistant group has failed while one shows
//	  "settle_ms": 300,                      // optional: the settle window (default 300, 0 = off, at most 10000):
//	                                         //   an answer is complete once it has been still this long
//	  "ready": {                             // optional (APP-1): when the page is ready to be read; all named must hold
//	    "selector": "#thread[data-ready=true]", // an element present (visible)
//	    "text": "Today",                     //   a text present
//	    "absent": ".skeleton",               //   no loading indicator
//	    "timeout_ms": 10000                  //   the bound (default 10 s); without "ready": no request in flight
//	  }                                      //   and the DOM quiet for 100 ms (engine.Readiness)
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
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/cascadia"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/internal/jsonfile"
)

// FileVersion is the profile format this build reads.
const FileVersion = 1

// FileBytesMax bounds a profile file.
const FileBytesMax = 1 << 20

// Clocks a profile may name. ClockPage was added to version 1 without a
// new version: every file an older build read still reads the same, and
// an older build refuses "page" by name (unknown clock).
const (
	ClockWall = "wall"
	ClockLab  = "lab"
	// ClockPage: the site's own JavaScript keeps time on the lab clock
	// (browser.Page.InstallPageClock): its timers, Date and
	// performance.now are fakes the lab advances, and a read waits until
	// the page is quiet. For a team's own site whose delays are JS timers.
	ClockPage = "page"
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
	return jsonfile.Message("site", e.Source, e.Field, e.Reason)
}

// Unwrap makes errors.Is(err, ErrBadProfile) true.
func (e *FileError) Unwrap() error { return ErrBadProfile }

// Control names an element: a role and an accessible name, or a CSS
// selector (which also reaches an icon button without a name). In scopes
// it to one answer (LIB-5): InNewest ("newest", the newest answer group)
// or a group's id; a page with one Regenerate or Copy per answer then
// resolves to the one inside that answer.
type Control struct {
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Selector string `json:"selector,omitempty"`
	In       string `json:"in,omitempty"`
}

// InNewest scopes a control to the newest answer group.
const InNewest = engine.InNewest

// IsZero reports whether c names nothing.
func (c Control) IsZero() bool { return c.Role == "" && c.Selector == "" }

func (c Control) String() string {
	s := ""
	switch {
	case c.Selector != "":
		s = "selector " + strconv.Quote(c.Selector)
	case c.Name == "":
		s = c.Role
	default:
		s = fmt.Sprintf("%s %q", c.Role, c.Name)
	}
	if c.In != "" {
		s += " in answer " + c.In
	}
	return s
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
	// NoStop says why the site has no Stop control (the profile's
	// "stop": {"none": "…"}): StopAnswer refuses with ErrNoStop, and a
	// scenario that stops an answer is skipped with the reason.
	NoStop string
	// Regenerate and Retry are the controls that regenerate an answer or
	// retry a failed one (APP-3); zero: the built-in names.
	Regenerate Control
	Retry      Control
	Generating Signals
	// Failed are page-level failure signals (LIB-5): a toast or banner
	// outside the turns; while one is on the page, the newest assistant
	// group (after the last user turn) has failed, with the signal as
	// evidence.
	Failed Signals
	// Settle is the settle window of answer waits (LIB-3, "settle_ms"):
	// zero takes answer.DefaultSettle, negative turns it off.
	Settle time.Duration
	// Ready says when the site's page is ready to be read (APP-1).
	Ready Ready
	// Source is the profile's file, "" for a built-in profile.
	Source string

	sels, failSels []cascadia.Matcher
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
	data, err := jsonfile.ReadFile(path, FileBytesMax)
	if err != nil {
		return nil, fmt.Errorf("site: %w", err)
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
	top, jerr := jsonfile.Decode(data, FileBytesMax)
	if jerr != nil {
		return nil, &FileError{Field: jerr.Field, Reason: jerr.Reason}
	}
	ps := &parser{jsonfile.Reader{ListLenMax: adapter.ListLenMax}}
	p := ps.profile(top, source, root)
	if ps.Err != nil {
		return nil, &FileError{Field: ps.Err.Field, Reason: ps.Err.Reason}
	}
	return p, nil
}

// parser reads the decoded JSON, keeping the first error.
type parser struct{ jsonfile.Reader }

func (ps *parser) selector(field, s string) cascadia.Matcher {
	if len(s) > adapter.SelectorBytesMax {
		ps.Fail(field, "selector longer than "+strconv.Itoa(adapter.SelectorBytesMax)+" bytes")
		return nil
	}
	sel, err := adapter.CompileSelector(s)
	if err != nil {
		ps.Fail(field, err.Error())
		return nil
	}
	return sel
}

func (ps *parser) profile(o jsonfile.Object, source, root string) *Profile {
	ps.Known(o, "version", "name", "base_url", "chat_path", "clock", "adapter", "composer", "send", "stop", "regenerate", "retry", "generating", "failed", "ready", "settle_ms")
	if ps.Err != nil {
		return nil
	}
	v, ok := o.M["version"]
	if !ok {
		ps.Fail("version", "missing required field")
		return nil
	}
	n, isNum := v.(json.Number)
	if !isNum {
		ps.Fail("version", "wrong type: want an integer, got "+jsonfile.TypeOf(v))
		return nil
	}
	if n.String() != strconv.Itoa(FileVersion) {
		ps.Fail("version", fmt.Sprintf("unknown version %s (this build reads version %d)", n, FileVersion))
		return nil
	}
	p := &Profile{ChatPath: "/", Clock: ClockWall, SendBy: SendClick}
	p.Name = ps.Str(o, "name", true)
	if ps.Err == nil && !nameRE.MatchString(p.Name) {
		ps.Fail("name", fmt.Sprintf("%q is not a site name (lower-case letters, digits and dashes, at most 63)", p.Name))
	}
	if ps.Err == nil && p.Name == SimName {
		ps.Fail("name", `"sim" is the built-in profile's name; choose another`)
	}
	base := ps.Str(o, "base_url", true)
	if ps.Err == nil {
		u, err := url.Parse(base)
		switch {
		case err != nil:
			ps.Fail("base_url", "not a URL: "+err.Error())
		case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
			ps.Fail("base_url", fmt.Sprintf("%q is not an absolute http(s) URL", base))
		case u.RawQuery != "" || u.Fragment != "":
			ps.Fail("base_url", "no query or fragment in a base URL")
		}
		p.BaseURL = strings.TrimRight(base, "/")
	}
	if _, ok := o.M["chat_path"]; ok {
		p.ChatPath = ps.Str(o, "chat_path", true)
		if ps.Err == nil && !strings.HasPrefix(p.ChatPath, "/") {
			ps.Fail("chat_path", "must start with /")
		}
	}
	if _, ok := o.M["clock"]; ok {
		p.Clock = ps.Str(o, "clock", true)
		if ps.Err == nil && p.Clock != ClockWall && p.Clock != ClockLab && p.Clock != ClockPage {
			ps.Fail("clock", fmt.Sprintf("unknown clock %q (want wall, lab or page)", p.Clock))
		}
	}
	ps.adapter(o, p, source, root)
	if c, ok := ps.Object(o, "composer", true); ok {
		p.Composer = ps.control(c, true)
		if ps.Err == nil && p.Composer.In != "" {
			ps.Fail("composer.in", "the composer is not scoped to an answer")
		}
	}
	if s, ok := ps.Object(o, "send", true); ok {
		ps.Known(s, "role", "name", "selector", "by")
		if _, ok := s.M["by"]; ok {
			p.SendBy = ps.Str(s, "by", true)
			if ps.Err == nil && p.SendBy != SendClick && p.SendBy != SendEnter {
				ps.Fail(jsonfile.Join(s.Path, "by"), fmt.Sprintf("unknown send mode %q (want click or enter)", p.SendBy))
			}
		}
		delete(s.M, "by")
		p.Send = ps.control(s, p.SendBy == SendClick)
	}
	if s, ok := ps.Object(o, "stop", false); ok {
		if _, none := s.M["none"]; none {
			ps.Known(s, "none")
			p.NoStop = ps.Str(s, "none", true)
			if ps.Err == nil && strings.TrimSpace(p.NoStop) == "" {
				ps.Fail(jsonfile.Join(s.Path, "none"), "empty: say why the site has no Stop control")
			}
		} else {
			p.Stop = ps.control(s, true)
		}
	}
	if s, ok := ps.Object(o, "regenerate", false); ok {
		p.Regenerate = ps.control(s, true)
	}
	if s, ok := ps.Object(o, "retry", false); ok {
		p.Retry = ps.control(s, true)
	}
	if g, ok := ps.Object(o, "generating", false); ok {
		p.Generating, p.sels = ps.signals(g)
	}
	if g, ok := ps.Object(o, "failed", false); ok {
		p.Failed, p.failSels = ps.signals(g)
	}
	if _, ok := o.M["settle_ms"]; ok {
		// 0 turns the window off; absent takes the default
		p.Settle = time.Duration(ps.Int(o, "settle_ms", false, 0, SettleMSMax, 0)) * time.Millisecond
		if p.Settle == 0 {
			p.Settle = -1
		}
	}
	ps.ready(o, p)
	if ps.Err != nil {
		return nil
	}
	return p
}

// SettleMSMax bounds "settle_ms".
const SettleMSMax = 10_000

// signals reads {"selectors": [...], "controls": [...]}.
func (ps *parser) signals(g jsonfile.Object) (Signals, []cascadia.Matcher) {
	var out Signals
	var matchers []cascadia.Matcher
	ps.Known(g, "selectors", "controls")
	sels, _ := ps.List(g, "selectors")
	for i, v := range sels {
		field := jsonfile.Index(jsonfile.Join(g.Path, "selectors"), i)
		s, ok := v.(string)
		if !ok {
			ps.Fail(field, "wrong type: want a string, got "+jsonfile.TypeOf(v))
			break
		}
		sel := ps.selector(field, s)
		out.Selectors = append(out.Selectors, s)
		matchers = append(matchers, sel)
	}
	controls, _ := ps.List(g, "controls")
	for i, v := range controls {
		field := jsonfile.Index(jsonfile.Join(g.Path, "controls"), i)
		co, err := jsonfile.AsObject(field, v)
		if err != nil {
			ps.Fail(err.Field, err.Reason)
			break
		}
		c := ps.control(co, true)
		if ps.Err == nil && c.Selector != "" {
			ps.Fail(field, `a page-level control is a role and name; put selectors in "selectors"`)
		}
		if ps.Err == nil && c.In != "" {
			ps.Fail(jsonfile.Join(field, "in"), `a page-level control is not scoped to an answer`)
		}
		out.Controls = append(out.Controls, c)
	}
	return out, matchers
}

// control reads {"role","name"} or {"selector"}, and "in".
func (ps *parser) control(o jsonfile.Object, required bool) Control {
	ps.Known(o, "role", "name", "selector", "in")
	var c Control
	if _, ok := o.M["in"]; ok {
		c.In = ps.Str(o, "in", true)
		if ps.Err == nil && strings.TrimSpace(c.In) == "" {
			ps.Fail(jsonfile.Join(o.Path, "in"), `empty: "newest" or a group id`)
		}
	}
	_, hasRole := o.M["role"]
	_, hasSel := o.M["selector"]
	_, hasName := o.M["name"]
	switch {
	case hasRole && hasSel:
		ps.Fail(jsonfile.Join(o.Path, "selector"), "give a role and name or a selector, not both")
	case hasSel:
		c.Selector = ps.Str(o, "selector", true)
		if hasName {
			ps.Fail(jsonfile.Join(o.Path, "name"), "a selector control has no name")
		}
		if ps.Err == nil {
			ps.selector(jsonfile.Join(o.Path, "selector"), c.Selector)
		}
	case hasRole:
		c.Role = ps.Str(o, "role", true)
		if hasName {
			c.Name = ps.Str(o, "name", true)
		}
	case hasName:
		ps.Fail(jsonfile.Join(o.Path, "role"), "missing required field (a name needs its role)")
	case required:
		ps.Fail(jsonfile.Join(o.Path, "role"), "missing required field (or selector)")
	}
	return c
}

func (ps *parser) adapter(o jsonfile.Object, p *Profile, source, root string) {
	v, ok := o.M["adapter"]
	if !ok {
		ps.Fail("adapter", "missing required field")
		return
	}
	switch a := v.(type) {
	case string:
		if strings.TrimSpace(a) == "" {
			ps.Fail("adapter", "empty")
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
				ps.Fail("adapter", fmt.Sprintf("adapter file %s: %v", name, errors.Unwrap(rerr)))
				return
			}
			p.AdapterSource = name
			ad, err = adapter.ParseFile(data, name)
		}
		if err != nil {
			var fe *adapter.FileError
			if errors.As(err, &fe) {
				ps.Fail("adapter", "adapter file "+strings.TrimPrefix(fe.Error(), "adapter: "))
				return
			}
			ps.Fail("adapter", err.Error())
			return
		}
		p.Adapter = ad
	case map[string]any:
		data, err := json.Marshal(a)
		if err != nil {
			ps.Fail("adapter", err.Error())
			return
		}
		p.AdapterSource = "inline"
		ad, err := adapter.ParseFile(data, "inline")
		if err != nil {
			var fe *adapter.FileError
			if errors.As(err, &fe) {
				ps.Fail(jsonfile.Join("adapter", fe.Field), fe.Reason)
				return
			}
			ps.Fail("adapter", err.Error())
			return
		}
		p.Adapter = ad
	default:
		ps.Fail("adapter", "wrong type: want a string (built-in name or file) or an object (inline adapter), got "+jsonfile.TypeOf(v))
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
