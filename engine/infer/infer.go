// Package infer works out a chat site's profile and adapter from a recorded
// session of one send (SPEC AUTH-1): the turn container, the speaker signal,
// the message ids, the generating signals, the Stop control, per-answer
// controls, the composer and the send control, each with its evidence and a
// confidence, and what it could not find.
//
// Everything here is a pure function of a recorded session (replay.Session):
// no browser, no files. `replaylab init URL` records the session live and
// calls Infer; `replaylab init --from SESSION.json` calls it on a session
// recorded before, so the inference is tested offline.
package infer

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
)

// Confidence says how sure an inference is.
type Confidence string

// Confidences.
const (
	High   Confidence = "high"   // the recorded evidence leaves no other reading
	Medium Confidence = "medium" // a heuristic chose among readings the evidence allows
	Low    Confidence = "low"    // a guess: check it by hand
	None   Confidence = "none"   // not found: set it by hand if the site has it
)

// Finding is one inferred field of the profile or the adapter.
type Finding struct {
	Field      string     `json:"field"`
	Value      string     `json:"value"`
	Evidence   string     `json:"evidence"`
	Confidence Confidence `json:"confidence"`
}

// ErrNoInference is wrapped by every error of Infer: the session does not
// show what an inference needs (a send, the sent text on the page, an answer).
var ErrNoInference = errors.New("infer: cannot infer")

// Control names an element as a site profile does: a role and an accessible
// name, or a CSS selector; In scopes it to an answer ("newest").
type Control struct {
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Selector string `json:"selector,omitempty"`
	By       string `json:"by,omitempty"`
	In       string `json:"in,omitempty"`
}

func (c Control) String() string {
	if c.Selector != "" {
		return fmt.Sprintf("selector %q", c.Selector)
	}
	if c.Role == "" && c.By == "enter" {
		return "Enter in the composer"
	}
	return fmt.Sprintf("%s %q", c.Role, c.Name)
}

// Attr is an attribute signal: Value "" means present.
type Attr struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Signals are generating signals: selectors and attributes.
type Signals struct {
	Selectors  []string `json:"selectors,omitempty"`
	Attributes []Attr   `json:"attributes,omitempty"`
}

// Speaker is the adapter's turn.speaker.
type Speaker struct {
	Selector  string   `json:"selector,omitempty"`
	Attribute string   `json:"attribute,omitempty"`
	Assistant []string `json:"assistant"`
	User      []string `json:"user"`
}

// ID is the adapter's turn.id (file version 2).
type ID struct {
	Attribute string `json:"attribute,omitempty"`
	Kind      string `json:"kind"`
}

// Turn is the adapter's turn.
type Turn struct {
	Selector string  `json:"selector"`
	Speaker  Speaker `json:"speaker"`
	ID       ID      `json:"id"`
}

// States is the adapter's states.
type States struct {
	Generating *Signals `json:"generating,omitempty"`
}

// Adapter is an adapter file (engine/adapter's format, version 2).
type Adapter struct {
	Version int     `json:"version"`
	Name    string  `json:"name"`
	Turn    Turn    `json:"turn"`
	States  *States `json:"states,omitempty"`
	Text    *Text   `json:"text,omitempty"`
}

// Text is the adapter's text: what inside a turn is no answer text.
type Text struct {
	Exclude []string `json:"exclude,omitempty"`
}

// Ready is a profile's ready.
type Ready struct {
	Selector  string `json:"selector,omitempty"`
	TimeoutMS int    `json:"timeout_ms,omitempty"`
}

// Profile is a site profile file (engine/site's format, version 1).
type Profile struct {
	Version    int      `json:"version"`
	Name       string   `json:"name"`
	BaseURL    string   `json:"base_url"`
	ChatPath   string   `json:"chat_path"`
	Clock      string   `json:"clock"`
	Adapter    string   `json:"adapter"`
	Composer   Control  `json:"composer"`
	Send       Control  `json:"send"`
	Stop       *Control `json:"stop,omitempty"`
	Regenerate *Control `json:"regenerate,omitempty"`
	Generating *Signals `json:"generating,omitempty"`
	Ready      *Ready   `json:"ready,omitempty"`
}

// Options are what the caller knows that a session does not say.
type Options struct {
	// Name names the site ([a-z0-9-]+); default from the chat page's URL.
	Name string
	// BaseURL is the site's live base URL; default the session's.
	BaseURL string
	// AdapterFile is the file name the profile names its adapter by.
	AdapterFile string
	// Clock is the clock the caller observed ("page" when the answer came
	// over fetch, EventSource or WebSocket) with its evidence; "" leaves
	// the default (wall).
	Clock, ClockEvidence string
}

// Result is an inference.
type Result struct {
	Profile  Profile
	Adapter  Adapter
	Findings []Finding
	// ByHand lists what the session could not tell: set it by hand.
	ByHand []string
}

// snap is one parsed capture in step order.
type snap struct {
	step int
	doc  *observe.Document
}

// Infer works out the profile and the adapter from s, a session that opens
// the chat page, types one message, sends it and records the answer.
func Infer(s *replay.Session, opt Options) (*Result, error) {
	in, err := newInput(s)
	if err != nil {
		return nil, err
	}
	r := &Result{}
	r.Profile.Version = 1
	r.Adapter.Version = 2
	if err := r.site(in, opt); err != nil {
		return nil, err
	}
	if err := r.controls(in); err != nil {
		return nil, err
	}
	t, err := r.turns(in)
	if err != nil {
		return nil, err
	}
	r.speaker(in, t)
	r.ids(in, t)
	r.generating(in, t)
	r.perAnswer(in, t)
	r.shadow(t)
	r.clock(opt)
	r.ready(in)
	return r, nil
}

// input is the session cut at its send.
type input struct {
	s                 *replay.Session
	open              string // the URL the session opened
	sent              string // what was typed, normalised
	typeStep, sendIdx int
	composerNode      string
	sendNode          string
	byEnter           bool
	first             *snap  // the first capture after the navigation
	baseline          *snap  // the last capture before the send
	after             []snap // the captures after the send, to the next type
}

func newInput(s *replay.Session) (*input, error) {
	in := &input{s: s, typeStep: -1, sendIdx: -1}
	docs := map[int]*observe.Document{}
	parse := func(i int) (*observe.Document, error) {
		if d, ok := docs[i]; ok {
			return d, nil
		}
		if i < 0 || i >= len(s.Captures) {
			return nil, fmt.Errorf("%w: a step names capture %d of %d", ErrNoInference, i, len(s.Captures))
		}
		d, err := observe.Parse(s.Captures[i])
		if err != nil {
			return nil, fmt.Errorf("%w: capture %d: %w", ErrNoInference, i, err)
		}
		docs[i] = d
		return d, nil
	}
	var last *snap
	for i, st := range s.Steps {
		switch {
		case st.Kind == replay.KindNavigate && in.open == "":
			in.open = st.URL
		case st.Kind == replay.KindCapture && st.Capture != nil:
			d, err := parse(*st.Capture)
			if err != nil {
				return nil, err
			}
			last = &snap{step: i, doc: d}
			switch {
			case in.open != "" && in.first == nil:
				in.first = last
			case in.sendIdx >= 0:
				in.after = append(in.after, *last)
			}
		case st.Kind == replay.KindType && in.sendIdx < 0:
			in.typeStep, in.sent, in.composerNode = i, observe.Normalize(st.Text), st.Node
		case in.sendIdx < 0 && in.typeStep >= 0 && (st.Kind == replay.KindClick || st.Kind == replay.KindPress && st.Key == "Enter"):
			if st.Kind == replay.KindClick && st.Node == in.composerNode {
				continue // a click into the composer is no send
			}
			in.sendIdx, in.baseline = i, last
			in.byEnter = st.Kind == replay.KindPress
			in.sendNode = st.Node
		case st.Kind == replay.KindType && in.sendIdx >= 0:
			goto done // the next send: the answer's window ends
		}
	}
done:
	switch {
	case in.open == "":
		return nil, fmt.Errorf("%w: the session opens no page", ErrNoInference)
	case in.typeStep < 0 || in.sent == "":
		return nil, fmt.Errorf("%w: nothing was typed in the session", ErrNoInference)
	case in.sendIdx < 0:
		return nil, fmt.Errorf("%w: %q was typed but never sent (no click and no Enter after it)", ErrNoInference, in.sent)
	case in.baseline == nil:
		return nil, fmt.Errorf("%w: no capture before the send", ErrNoInference)
	case len(in.after) == 0:
		return nil, fmt.Errorf("%w: no capture after the send", ErrNoInference)
	}
	return in, nil
}

func (in *input) final() *snap { return &in.after[len(in.after)-1] }

func (r *Result) add(field, value, evidence string, c Confidence) {
	r.Findings = append(r.Findings, Finding{Field: field, Value: value, Evidence: evidence, Confidence: c})
}

var nameRE = regexp.MustCompile(`[^a-z0-9]+`)

func (r *Result) site(in *input, opt Options) error {
	u, err := url.Parse(in.open)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w: the session opens %q, not an absolute URL", ErrNoInference, in.open)
	}
	base := u.Scheme + "://" + u.Host
	if opt.BaseURL != "" {
		base = strings.TrimRight(opt.BaseURL, "/")
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	name := opt.Name
	if name == "" {
		name = strings.Trim(nameRE.ReplaceAllString(strings.ToLower(strings.Trim(u.Path, "/")), "-"), "-")
		if name == "" {
			name = strings.Trim(nameRE.ReplaceAllString(strings.ToLower(u.Hostname()), "-"), "-")
		}
		if i := strings.LastIndex(name, "-"); len(name) > 30 && i > 0 {
			name = name[i+1:]
		}
	}
	r.Profile.Name, r.Adapter.Name = name, name
	r.Profile.BaseURL, r.Profile.ChatPath = base, path
	r.Profile.Adapter = opt.AdapterFile
	if r.Profile.Adapter == "" {
		r.Profile.Adapter = name + ".adapter.json"
	}
	r.add("chat_path", path, "the page the session opened: "+in.open, High)
	return nil
}

// controls: the composer is the element typed into, the send control the
// one clicked (or Enter), each named as the capture before the send shows
// them.
func (r *Result) controls(in *input) error {
	d := in.baseline.doc
	n := byNode(d, in.composerNode)
	if n == nil {
		return fmt.Errorf("%w: the composer (node %s, typed into) is not in the capture before the send", ErrNoInference, in.composerNode)
	}
	c, how := Describe(d, n)
	r.Profile.Composer = c
	r.add("composer", c.String(), "the element the message was typed into ("+how+")", High)
	if in.byEnter {
		r.Profile.Send = Control{By: "enter"}
		r.add("send", "Enter", "the message was sent with Enter in the composer", High)
		return nil
	}
	n = byNode(d, in.sendNode)
	if n == nil {
		return fmt.Errorf("%w: the send control (node %s, clicked) is not in the capture before the send", ErrNoInference, in.sendNode)
	}
	c, how = Describe(d, n)
	c.By = "click"
	r.Profile.Send = c
	r.add("send", c.String(), "the control clicked to send ("+how+")", High)
	return nil
}

// turnInfo is the turn container found in the final capture.
type turnInfo struct {
	sel      string
	match    cascadia.Matcher
	user     *html.Node // the new user turn in the final capture
	answer   *html.Node // the new answer in the final capture
	siblings []*html.Node
	final    *observe.Document
}

// turns finds the repeated sibling structure that gained the user turn and
// the answer: from the deepest new element holding the sent text up to the
// first level whose parent gained another new element of the same tag with
// text of its own.
func (r *Result) turns(in *input) (*turnInfo, error) {
	fin := in.final().doc
	old := nodeSet(in.baseline.doc)
	isNew := func(n *html.Node) bool { return !old[observe.Attr(n, capture.AttrNode)] }
	var leaf *html.Node
	fin.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if fin.Hidden(n) {
			return false
		}
		if isNew(n) && strings.Contains(fin.Text(n), in.sent) && !observe.IsEditor(observe.Role(n)) {
			leaf = n // document order: the last match on the path is the deepest
		}
		return true
	})
	if leaf == nil {
		return nil, fmt.Errorf("%w: the sent text %q is in no new element after the send: the page did not show the user's turn", ErrNoInference, in.sent)
	}
	for a := leaf; a.Parent != nil && a.Parent.Type == html.ElementNode; a = a.Parent {
		if !isNew(a) {
			break
		}
		var answer *html.Node
		for s := a.NextSibling; s != nil && answer == nil; s = s.NextSibling {
			if s.Type != html.ElementNode || s.Data != a.Data || !isNew(s) || fin.Hidden(s) {
				continue
			}
			if ca, cs := classes(a), classes(s); (len(ca) > 0 || len(cs) > 0) && len(intersect(ca, cs)) == 0 {
				continue // another kind of element: a name label beside the text
			}
			if t := fin.Text(s); t != "" && !strings.Contains(t, in.sent) || hasMedia(s) {
				answer = s // the first after the user's turn: a later send's turns follow it
			}
		}
		if answer == nil {
			continue
		}
		t := &turnInfo{user: a, answer: answer, final: fin}
		if err := r.turnSelector(t); err != nil {
			return nil, err
		}
		return t, nil
	}
	return nil, fmt.Errorf("%w: no repeated structure gained the user's turn %q and an answer beside it (waited for the answer long enough?)", ErrNoInference, in.sent)
}

func hasMedia(n *html.Node) bool {
	found := false
	observe.WalkElements(n, func(c *html.Node) bool {
		if c.Data == "img" || c.Data == "video" || c.Data == "audio" {
			found = true
		}
		return !found
	})
	return found
}

// turnSelector chooses the narrowest selector that matches the user turn,
// the answer and their siblings of that shape, and nothing else.
func (r *Result) turnSelector(t *turnInfo) error {
	common := intersect(classes(t.user), classes(t.answer))
	common = slices.DeleteFunc(common, volatileClass)
	base := t.user.Data
	for _, c := range common {
		base += "." + cssIdent(c)
	}
	p := t.user.Parent
	var want []*html.Node
	m0, _ := adapter.CompileSelector(base)
	for s := p.FirstChild; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode && m0 != nil && m0.Match(s) {
			want = append(want, s)
		}
	}
	cands := []string{base}
	if ps := selfSelector(p); ps != "" {
		cands = append(cands, ps+" > "+base)
		if gp := p.Parent; gp != nil && gp.Type == html.ElementNode {
			if gs := selfSelector(gp); gs != "" {
				cands = append(cands, gs+" > "+ps+" > "+base)
			}
		}
	}
	best, bestExtra := "", -1
	for _, c := range cands {
		m, err := adapter.CompileSelector(c)
		if err != nil {
			continue
		}
		got := matches(t.final, m)
		extra := len(got) - len(want)
		if extra < 0 || !containsAll(got, want) {
			continue
		}
		if bestExtra < 0 || extra < bestExtra {
			best, bestExtra = c, extra
		}
		if extra == 0 {
			break
		}
	}
	if best == "" {
		return fmt.Errorf("%w: no CSS selector matches the user's turn <%s> and the answer beside it", ErrNoInference, t.user.Data)
	}
	t.sel = best
	t.match, _ = adapter.CompileSelector(best)
	t.siblings = want
	conf := High
	ev := fmt.Sprintf("<%s> gained the user's turn and the answer after the send; %d turns match, nothing else", describeNode(p), len(want))
	if bestExtra > 0 {
		conf = Medium
		ev = fmt.Sprintf("<%s> gained the user's turn and the answer after the send; the selector also matches %d elements elsewhere (no speaker: not turns)", describeNode(p), bestExtra)
	}
	r.Adapter.Turn.Selector = best
	r.add("turn.selector", best, ev, conf)
	return nil
}

// speaker finds what tells the user's turn from the answer: an attribute of
// the turn, a class, a child's attribute, a child's text or an avatar's alt.
func (r *Result) speaker(in *input, t *turnInfo) {
	d := t.final
	type cand struct {
		sp    Speaker
		score int
		ev    string
	}
	var cands []cand
	tryValues := func(sel, attr string, val func(*html.Node) (string, bool), ev string, score int) {
		uv, ok1 := val(t.user)
		av, ok2 := val(t.answer)
		if !ok1 || !ok2 || uv == "" || av == "" || strings.EqualFold(uv, av) {
			return
		}
		seen := map[string]bool{}
		var asst []string
		for _, s := range t.siblings {
			v, ok := val(s)
			if !ok || v == "" {
				return // a turn without the signal: not the speaker
			}
			if lv := strings.ToLower(v); !strings.EqualFold(v, uv) && !seen[lv] {
				seen[lv] = true
				asst = append(asst, lv)
			}
		}
		sort.Strings(asst)
		if len(seen) > 3 {
			return // ids or texts, not speakers
		}
		score += roleWordScore(uv, av)
		cands = append(cands, cand{Speaker{Selector: sel, Attribute: attr, Assistant: asst, User: []string{strings.ToLower(uv)}}, score, ev})
	}
	for _, a := range t.user.Attr {
		if skipAttr(a.Key) || a.Key == "class" {
			continue
		}
		k := a.Key
		score := 1
		if speakerAttrRE.MatchString(k) {
			score = 4
		}
		tryValues("", k, func(n *html.Node) (string, bool) { return observe.Attr(n, k), observe.HasAttr(n, k) }, "the turn's attribute "+k, score)
	}
	// a class only the user's turns carry, and one only the answers carry
	if ut, at := minus(classes(t.user), classes(t.answer)), minus(classes(t.answer), classes(t.user)); len(ut) > 0 && len(at) > 0 {
		u, a := pickRoleWord(ut), pickRoleWord(at)
		sp := Speaker{Attribute: "class", User: []string{"*" + u + "*"}, Assistant: []string{"*" + a + "*"}}
		ok := true
		for _, s := range t.siblings {
			cs := classes(s)
			if slices.Contains(cs, u) == slices.Contains(cs, a) {
				ok = false
			}
		}
		if ok {
			cands = append(cands, cand{sp, 2 + roleWordScore(u, a), fmt.Sprintf("the class %q on the user's turns, %q on the answers", u, a)})
		}
	}
	// a child's attribute, a child's text, an avatar's alt
	for _, c := range childSigs(t.user) {
		m, err := adapter.CompileSelector(c)
		if err != nil {
			continue
		}
		un, an := first(t.user, m), first(t.answer, m)
		if un == nil || an == nil {
			continue
		}
		for _, a := range un.Attr {
			if skipAttr(a.Key) || a.Key == "class" || a.Key == "src" || a.Key == "href" {
				continue
			}
			k := a.Key
			score := 1
			if speakerAttrRE.MatchString(k) || k == "alt" {
				score = 3
			}
			tryValues(c, k, func(n *html.Node) (string, bool) {
				x := first(n, m)
				if x == nil {
					return "", false
				}
				return observe.Attr(x, k), observe.HasAttr(x, k)
			}, fmt.Sprintf("the attribute %s of the turn's %s", k, c), score)
		}
		if ut := d.Text(un); ut != "" && len(ut) <= 40 {
			tryValues(c, "", func(n *html.Node) (string, bool) {
				x := first(n, m)
				if x == nil {
					return "", false
				}
				v := d.Text(x)
				return v, len(v) <= 40
			}, fmt.Sprintf("the text of the turn's %s", c), 1)
		}
	}
	if len(cands) == 0 {
		r.Adapter.Turn.Speaker = Speaker{Attribute: "class", Assistant: []string{"*"}, User: []string{"__set-by-hand__"}}
		r.add("turn.speaker", "not found", "no attribute, class, child attribute or child text tells the user's turn from the answer", None)
		r.ByHand = append(r.ByHand, "turn.speaker: nothing in the markup tells the user's turn from the answer; name the attribute or child that does")
		return
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	c := cands[0]
	r.Adapter.Turn.Speaker = c.sp
	conf := Medium
	if c.score >= 5 {
		conf = High
	}
	where := c.sp.Attribute
	if c.sp.Selector != "" {
		where = c.sp.Selector + " " + where
	}
	r.add("turn.speaker", fmt.Sprintf("%s: user %v, assistant %v", strings.TrimSpace(where), c.sp.User, c.sp.Assistant),
		fmt.Sprintf("%s; %d turns read, every one has it", c.ev, len(t.siblings)), conf)
	if len(cands) > 1 {
		r.add("turn.speaker (also)", cands[1].ev, "another signal that tells them apart, not chosen", Low)
	}
	// a name label ("You", "Assistant") the chosen signal does not skip
	// is no answer text
	answerText := d.Text(t.answer)
	for _, o := range cands {
		if o.sp.Attribute != "" || o.sp.Selector == "" || o.sp.Selector == c.sp.Selector {
			continue
		}
		m, err := adapter.CompileSelector(o.sp.Selector)
		if err != nil {
			continue
		}
		x := first(t.answer, m)
		if x == nil || len(d.Text(x)) > 20 || d.Text(x) == answerText || strings.Contains(d.Text(x), in.sent) {
			continue
		}
		if r.Adapter.Text == nil {
			r.Adapter.Text = &Text{}
		}
		r.Adapter.Text.Exclude = append(r.Adapter.Text.Exclude, o.sp.Selector)
		r.add("text.exclude", o.sp.Selector, fmt.Sprintf("%s holds the speaker's name (%q on the answer, %q on the user's turn): a label, no answer text", o.sp.Selector, d.Text(x), o.sp.User[0]), Medium)
	}
}

var speakerAttrRE = regexp.MustCompile(`(?i)role|author|speaker|who|from|sender|direction|aria-label|persona|type`)

var roleWords = []string{"user", "human", "you", "me", "self", "outgoing", "sent", "assistant", "bot", "ai", "model", "incoming", "received", "agent"}

func roleWordScore(u, a string) int {
	s := 0
	for _, v := range []string{u, a} {
		lv := strings.ToLower(v)
		for _, w := range roleWords {
			if lv == w || strings.HasSuffix(lv, "-"+w) || strings.HasSuffix(lv, "_"+w) || strings.HasSuffix(lv, "--"+w) || strings.HasPrefix(lv, w+" ") {
				s++
				break
			}
		}
	}
	return s
}

func pickRoleWord(tokens []string) string {
	for _, t := range tokens {
		if roleWordScore(t, "") > 0 {
			return t
		}
	}
	return tokens[0]
}

// ids finds the message id: an attribute of the turn with one value per
// turn that never changes for a turn from capture to capture.
func (r *Result) ids(in *input, t *turnInfo) {
	d := t.final
	sp := r.Adapter.Turn.Speaker
	type cand struct {
		attr  string
		score int
	}
	var cands []cand
	for _, a := range t.answer.Attr {
		k := a.Key
		if skipAttr(k) || k == "class" || k == "role" || strings.HasPrefix(k, "aria-") || (sp.Selector == "" && k == sp.Attribute) {
			continue
		}
		vals := map[string]bool{}
		ok := observe.Attr(t.answer, k) != ""
		for _, s := range t.siblings {
			if v := observe.Attr(s, k); v == "" && s != t.user {
				ok = false // an answer without it
			} else if v != "" {
				if vals[v] {
					ok = false // shared: a persona, a state
				}
				vals[v] = true
			}
		}
		if !ok || !stableAcross(in, t, k) {
			continue
		}
		score := 1
		if regexp.MustCompile(`(?i)id|key|entry`).MatchString(k) {
			score = 2
		}
		cands = append(cands, cand{k, score})
	}
	if len(cands) == 0 {
		r.Adapter.Turn.ID = ID{Kind: "position"}
		r.add("turn.id", "kind position", "no attribute of the turns holds one value per turn that stays the same from capture to capture", Medium)
		return
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	k := cands[0].attr
	v := observe.Attr(t.answer, k)
	kind, ev := "stable", fmt.Sprintf("%s=%q on the answer, one value per turn, the same in every capture", k, v)
	conf := Medium
	if randomID(v) {
		kind = "volatile"
		ev += "; the value looks made up in the browser (random), so it is declared volatile (new on every load)"
	} else {
		ev += "; the value does not look random, so it is taken as the site's own id (stable across loads: a reload was not recorded)"
	}
	_ = d
	r.Adapter.Turn.ID = ID{Attribute: k, Kind: kind}
	r.add("turn.id", k+" (kind "+kind+")", ev, conf)
}

// stableAcross says whether attribute k of every turn keeps its value from
// capture to capture (a turn followed by its node id, the answer by its
// position among the turns).
func stableAcross(in *input, t *turnInfo, k string) bool {
	final := map[string]string{}
	for _, s := range t.siblings {
		final[observe.Attr(s, capture.AttrNode)] = observe.Attr(s, k)
	}
	for _, sn := range append([]snap{*in.baseline}, in.after...) {
		for _, n := range matches(sn.doc, t.match) {
			if v, ok := final[observe.Attr(n, capture.AttrNode)]; ok && v != observe.Attr(n, k) {
				return false
			}
		}
	}
	return true
}

var uuidRE = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// randomID says whether an id looks made up in the browser.
func randomID(v string) bool {
	if uuidRE.MatchString(v) {
		return true
	}
	if len(v) < 10 {
		return false
	}
	var up, low, dig int
	for _, c := range v {
		switch {
		case c >= 'A' && c <= 'Z':
			up++
		case c >= 'a' && c <= 'z':
			low++
		case c >= '0' && c <= '9':
			dig++
		}
	}
	return up > 0 && low > 0 && up+low+dig == len(v)
}

// answerIn is the answer in a capture: the last turn after the user's
// turn that holds the sent text.
func answerIn(in *input, t *turnInfo, d *observe.Document) *html.Node {
	var ans *html.Node
	user := false
	for _, n := range matches(d, t.match) {
		switch {
		case strings.Contains(d.Text(n), in.sent):
			user, ans = true, nil // the last such turn is this send's
		case user && ans == nil:
			ans = n
		}
	}
	return ans
}

// generating finds what is present only while the answer's text grows: on
// the turn (an attribute, a class, a child) or on the page; and the Stop
// control, present only then.
func (r *Result) generating(in *input, t *turnInfo) {
	fin := t.final
	finalText := fin.Text(t.answer)
	var growing []snap
	for _, sn := range in.after {
		a := answerIn(in, t, sn.doc)
		if a != nil && sn.doc.Text(a) != finalText {
			growing = append(growing, sn)
		}
	}
	if len(growing) == 0 {
		r.add("states.generating", "none", "no capture shows the answer before its final text (it arrived whole, or between captures)", Low)
		r.ByHand = append(r.ByHand, "states.generating: the session never caught the answer streaming; if the site streams, send a longer question (init --send) or name its streaming signal")
		return
	}
	// turn-level features
	count := map[string]int{}
	for _, sn := range growing {
		for f := range turnFeatures(sn.doc, answerIn(in, t, sn.doc)) {
			count[f]++
		}
	}
	// what a finished turn shows: the answer at the end, the turns that
	// were there before the send
	doneTurns := turnFeatures(fin, t.answer)
	for _, s := range matches(in.baseline.doc, t.match) {
		for f := range turnFeatures(in.baseline.doc, s) {
			doneTurns[f] = true
		}
	}
	var sig Signals
	var evs []string
	for _, f := range sortedKeys(count) {
		if doneTurns[f] || count[f]*2 < len(growing) {
			continue
		}
		switch {
		case strings.HasPrefix(f, "@"):
			k, v, _ := strings.Cut(f[1:], "=")
			sig.Attributes = append(sig.Attributes, Attr{Name: k, Value: v})
		default:
			sig.Selectors = append(sig.Selectors, f)
		}
		evs = append(evs, fmt.Sprintf("%s in %d of %d captures while the text grew, on no finished turn", strings.TrimPrefix(f, "@"), count[f], len(growing)))
	}
	if len(sig.Selectors)+len(sig.Attributes) > 0 {
		r.Adapter.States = &States{Generating: &sig}
		r.add("states.generating", strings.Join(append(slices.Clone(sig.Selectors), attrStrings(sig.Attributes)...), ", "), strings.Join(evs, "; "), High)
	}
	// page-level features: elements outside the turns
	pcount := map[string]int{}
	for _, sn := range growing {
		for f := range pageFeatures(sn.doc, t.match) {
			pcount[f]++
		}
	}
	before := pageFeatures(in.baseline.doc, t.match)
	after := pageFeatures(fin, t.match)
	var page Signals
	for _, f := range sortedKeys(pcount) {
		if before[f] || after[f] || pcount[f]*2 < len(growing) {
			continue
		}
		page.Selectors = append(page.Selectors, f)
		r.add("generating (page)", f, fmt.Sprintf("outside the turns, in %d of %d captures while the text grew, neither before the send nor at the end", pcount[f], len(growing)), High)
	}
	if len(page.Selectors) > 0 {
		r.Profile.Generating = &page
	}
	if len(sig.Selectors)+len(sig.Attributes)+len(page.Selectors) == 0 {
		r.add("states.generating", "built-in", fmt.Sprintf("%d captures show the answer growing; nothing beyond the built-in signals is present only then", len(growing)), Low)
	}
	// the Stop control
	bcount := map[string]int{}
	nodes := map[string]*html.Node{}
	docs := map[string]*observe.Document{}
	for _, sn := range growing {
		for k, n := range buttons(sn.doc) {
			bcount[k]++
			nodes[k], docs[k] = n, sn.doc
		}
	}
	bBefore, bAfter := buttons(in.baseline.doc), buttons(fin)
	var stops []string
	for _, k := range sortedKeys(bcount) {
		if bBefore[k] == nil && bAfter[k] == nil && bcount[k]*2 >= len(growing) {
			stops = append(stops, k)
		}
	}
	sort.SliceStable(stops, func(i, j int) bool {
		return strings.Contains(strings.ToLower(stops[i]), "stop") && !strings.Contains(strings.ToLower(stops[j]), "stop")
	})
	if len(stops) > 0 {
		c, how := Describe(docs[stops[0]], nodes[stops[0]])
		r.Profile.Stop = &c
		r.add("stop", c.String(), fmt.Sprintf("a control present in %d of %d captures while the text grew, neither before the send nor at the end (%s)", bcount[stops[0]], len(growing), how), High)
		return
	}
	// a send control that becomes Stop: a page signal inside it
	if !in.byEnter && r.Profile.Generating != nil {
		sendNode := byNode(in.baseline.doc, in.sendNode)
		for _, sel := range r.Profile.Generating.Selectors {
			m, _ := adapter.CompileSelector(sel)
			for _, sn := range growing {
				if sn.doc == nil {
					continue
				}
				if n := byNode(sn.doc, in.sendNode); n != nil && m != nil && first(n, m) != nil && sendNode != nil {
					c := r.Profile.Send
					c.By = ""
					r.Profile.Stop = &c
					r.add("stop", c.String(), fmt.Sprintf("the send control's element holds %s while the text grows: Send becomes Stop", sel), Medium)
					return
				}
			}
		}
	}
	r.add("stop", "none", "no control showed only while the answer grew", None)
	r.ByHand = append(r.ByHand, "stop: no Stop control showed while the answer streamed; if the site has one, name it")
}

func attrStrings(as []Attr) []string {
	var out []string
	for _, a := range as {
		out = append(out, fmt.Sprintf("[%s=%q]", a.Name, a.Value))
	}
	return out
}

// turnFeatures are the turn's attributes ("@name=value"), its classes
// ("tag.class") and its children's selectors.
func turnFeatures(d *observe.Document, n *html.Node) map[string]bool {
	out := map[string]bool{}
	if n == nil {
		return out
	}
	for _, a := range n.Attr {
		if skipAttr(a.Key) || a.Key == "class" || a.Key == "style" || a.Key == "id" {
			continue
		}
		out["@"+a.Key+"="+a.Val] = true
	}
	for _, c := range classes(n) {
		if validIdent(c) { // a state class ("state-streaming") is what a signal is
			out[n.Data+"."+cssIdent(c)] = true
		}
	}
	observe.WalkElements(n, func(c *html.Node) bool {
		if c != n && !d.Hidden(c) {
			if s := sigOf(c); s != "" {
				out[s] = true
			}
		}
		return true
	})
	return out
}

// pageFeatures are the selectors of elements outside the turns (with an
// aria-busy attribute as a selector of its own).
func pageFeatures(d *observe.Document, turn cascadia.Matcher) map[string]bool {
	out := map[string]bool{}
	d.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if d.Hidden(n) || turn.Match(n) {
			return false
		}
		if s := sigOf(n); s != "" {
			out[s] = true
		}
		if observe.Attr(n, "aria-busy") == "true" {
			if s := selfSelector(n); s != "" {
				out[s+"[aria-busy=true]"] = true
			}
		}
		return true
	})
	return out
}

// sigOf is a selector for an element that a signal can name: a tag with
// its classes, or an id; "" for a plain element.
func sigOf(n *html.Node) string {
	if id := observe.Attr(n, "id"); id != "" && !randomID(id) && validIdent(id) {
		return n.Data + "#" + id
	}
	cs := slices.DeleteFunc(classes(n), volatileClass)
	if len(cs) == 0 {
		return ""
	}
	s := n.Data
	for _, c := range cs[:min(2, len(cs))] {
		s += "." + cssIdent(c)
	}
	return s
}

// buttons are the visible buttons of a capture by "name|selector".
func buttons(d *observe.Document) map[string]*html.Node {
	out := map[string]*html.Node{}
	d.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if d.Hidden(n) {
			return false
		}
		if observe.Role(n) == "button" {
			k := d.Name(n)
			if k == "" {
				k = "|" + sigOf(n)
			}
			out[k] = n
		}
		return true
	})
	return out
}

// perAnswer finds the controls every answer carries (regenerate, copy).
func (r *Result) perAnswer(in *input, t *turnInfo) {
	d := t.final
	var names []string
	observe.WalkElements(t.answer, func(n *html.Node) bool {
		if d.Hidden(n) {
			return false
		}
		if observe.Role(n) == "button" {
			names = append(names, d.Name(n))
		}
		return true
	})
	// a toolbar: an element holding two controls or more and a text of
	// its own (a model badge) is no answer text
	var toolbars []string
	observe.WalkElements(t.answer, func(n *html.Node) bool {
		if n == t.answer || d.Hidden(n) {
			return n == t.answer
		}
		nb, own := 0, false
		observe.WalkElements(n, func(c *html.Node) bool {
			if observe.Role(c) == "button" {
				nb++
				return false
			}
			for x := c.FirstChild; x != nil; x = x.NextSibling {
				if x.Type == html.TextNode && strings.TrimSpace(x.Data) != "" {
					own = true
				}
			}
			return true
		})
		if rest := len(d.Text(n)) - buttonText(d, n); nb >= 2 && own && rest <= 40 && rest*2 < len(d.Text(t.answer)) {
			if s := sigOf(n); s != "" && !slices.Contains(toolbars, s) {
				toolbars = append(toolbars, s)
				r.add("text.exclude", s, fmt.Sprintf("inside the answer, %q holds %d controls and a text of its own (%q): a toolbar, no answer text", s, nb, d.Text(n)), Medium)
			}
			return false
		}
		return true
	})
	if len(toolbars) > 0 {
		if r.Adapter.Text == nil {
			r.Adapter.Text = &Text{}
		}
		r.Adapter.Text.Exclude = append(r.Adapter.Text.Exclude, toolbars...)
	}
	for _, nm := range names {
		switch l := strings.ToLower(nm); {
		case strings.Contains(l, "regenerate") || strings.Contains(l, "retry") || strings.Contains(l, "try again") || strings.Contains(l, "redo"):
			r.Profile.Regenerate = &Control{Role: "button", Name: nm, In: "newest"}
			r.add("regenerate", fmt.Sprintf("button %q in the newest answer", nm), "a control inside the finished answer; scoped to the newest answer, as every answer may carry one", High)
		case strings.Contains(l, "copy"):
			r.add("per-answer control", fmt.Sprintf("button %q", nm), "inside the finished answer: a step clicks it with `in the newest answer`", High)
		}
	}
}

// buttonText is the length of the text n's buttons hold.
func buttonText(d *observe.Document, n *html.Node) int {
	l := 0
	observe.WalkElements(n, func(c *html.Node) bool {
		if observe.Role(c) == "button" {
			l += len(d.Text(c))
			return false
		}
		return true
	})
	return l
}

// shadow says whether the turns live inside a custom element (an open
// shadow root's host: the capture composes open roots under their hosts).
func (r *Result) shadow(t *turnInfo) {
	for p := t.user.Parent; p != nil && p.Type == html.ElementNode; p = p.Parent {
		if strings.Contains(p.Data, "-") {
			r.add("shadow roots", "<"+p.Data+">", "the turns are inside the custom element <"+p.Data+">; open shadow roots are read as page, so the selectors are written as if the roots were not there", Medium)
			return
		}
	}
	r.add("shadow roots", "none", "no custom element holds the turns", High)
}

func (r *Result) clock(opt Options) {
	switch opt.Clock {
	case "":
		r.Profile.Clock = "wall"
		r.add("clock", "wall", "the session says nothing of the network; live, init reads how the answer arrived", Low)
		r.ByHand = append(r.ByHand, "clock: \"page\" when the answer streams over fetch, EventSource or WebSocket (the site's own timers then run on the lab clock)")
	default:
		r.Profile.Clock = opt.Clock
		r.add("clock", opt.Clock, opt.ClockEvidence, High)
	}
}

// ready: the composer missing from the first capture after the page
// opened, present before the send, is what readiness waits for.
func (r *Result) ready(in *input) {
	if in.first == nil || in.first == in.baseline || r.Profile.Composer.Selector == "" {
		r.add("ready", "not set", "the page was ready when it had loaded and been quiet (the composer and the thread were there at the first capture)", Medium)
		return
	}
	m, err := adapter.CompileSelector(r.Profile.Composer.Selector)
	if err != nil || len(matches(in.first.doc, m)) > 0 {
		r.add("ready", "not set", "the composer was there at the first capture", Medium)
		return
	}
	r.Profile.Ready = &Ready{Selector: r.Profile.Composer.Selector, TimeoutMS: 10000}
	r.add("ready", r.Profile.Composer.Selector, "the composer was missing at the first capture and there before the send", Medium)
}

// Describe names n as a profile control: its role and accessible name when
// they find it alone, else a CSS selector that matches only it; how says
// which.
func Describe(d *observe.Document, n *html.Node) (c Control, how string) {
	role, name := observe.Role(n), d.Name(n)
	if role != "" && name != "" {
		count := 0
		d.Walk(func(_ *observe.Frame, x *html.Node) bool {
			if d.Hidden(x) {
				return false
			}
			if observe.Role(x) == role && d.Name(x) == name {
				count++
			}
			return true
		})
		if count == 1 {
			return Control{Role: role, Name: name}, "its role and accessible name find it alone"
		}
		how = fmt.Sprintf("%d elements are %s %q, so ", count, role, name)
	} else {
		how = "it has no accessible name, so "
	}
	if s := uniqueSelector(d, n); s != "" {
		return Control{Selector: s}, how + "a selector that matches only it"
	}
	return Control{Role: role, Name: name}, how + "no selector matches it alone: check it by hand"
}

// uniqueSelector is a selector that matches n alone in d, "" for none.
func uniqueSelector(d *observe.Document, n *html.Node) string {
	var cands []string
	if id := observe.Attr(n, "id"); id != "" && !randomID(id) && validIdent(id) {
		cands = append(cands, "#"+id)
	}
	cs := slices.DeleteFunc(classes(n), volatileClass)
	for _, c := range cs {
		cands = append(cands, n.Data+"."+cssIdent(c))
	}
	if len(cs) > 1 {
		s := n.Data
		for _, c := range cs {
			s += "." + cssIdent(c)
		}
		cands = append(cands, s)
	}
	if v := observe.Attr(n, "name"); v != "" && validIdent(v) {
		cands = append(cands, n.Data+"[name="+v+"]")
	}
	cands = append(cands, n.Data)
	var scoped []string
	for p := n.Parent; p != nil && p.Type == html.ElementNode && len(scoped) < 12; p = p.Parent {
		if ps := selfSelector(p); ps != "" {
			for _, c := range cands {
				scoped = append(scoped, ps+" "+c)
			}
		}
	}
	for _, c := range append(cands, scoped...) {
		m, err := adapter.CompileSelector(c)
		if err != nil {
			continue
		}
		if got := matches(d, m); len(got) == 1 && got[0] == n {
			return c
		}
	}
	return ""
}

// selfSelector is an element's own selector: #id, tag.class, or a custom
// element's tag; "" when none names it.
func selfSelector(n *html.Node) string {
	if id := observe.Attr(n, "id"); id != "" && !randomID(id) && validIdent(id) {
		return "#" + id
	}
	if cs := slices.DeleteFunc(classes(n), volatileClass); len(cs) > 0 {
		return n.Data + "." + cssIdent(cs[0])
	}
	if strings.Contains(n.Data, "-") || n.Data == "main" || n.Data == "form" || n.Data == "ol" || n.Data == "ul" {
		return n.Data
	}
	return ""
}

// childSigs are selectors for the turn's descendants that can carry a
// speaker.
func childSigs(n *html.Node) []string {
	var out []string
	seen := map[string]bool{}
	observe.WalkElements(n, func(c *html.Node) bool {
		if c == n {
			return true
		}
		s := sigOf(c)
		if s == "" && c.Data == "img" {
			s = "img"
		}
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
		return true
	})
	return out
}

func first(n *html.Node, m cascadia.Matcher) *html.Node {
	var out *html.Node
	observe.WalkElements(n, func(c *html.Node) bool {
		if out != nil {
			return false
		}
		if c != n && m.Match(c) {
			out = c
		}
		return out == nil
	})
	return out
}

// matches are the outermost visible elements m matches, in document order.
func matches(d *observe.Document, m cascadia.Matcher) []*html.Node {
	var out []*html.Node
	d.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if d.Hidden(n) {
			return false
		}
		if m.Match(n) {
			out = append(out, n)
			return false
		}
		return true
	})
	return out
}

func byNode(d *observe.Document, id string) *html.Node {
	if id == "" {
		return nil
	}
	var out *html.Node
	d.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if out == nil && observe.Attr(n, capture.AttrNode) == id {
			out = n
		}
		return out == nil
	})
	return out
}

func nodeSet(d *observe.Document) map[string]bool {
	out := map[string]bool{}
	d.Walk(func(_ *observe.Frame, n *html.Node) bool {
		if id := observe.Attr(n, capture.AttrNode); id != "" {
			out[id] = true
		}
		return true
	})
	return out
}

func classes(n *html.Node) []string { return strings.Fields(observe.Attr(n, "class")) }

// volatileClass: a class that names a state or a place, not a kind of
// element (first/last, active, a generated hash).
func volatileClass(c string) bool {
	l := strings.ToLower(c)
	for _, w := range []string{"top", "bottom", "first", "last", "active", "streaming", "loading", "busy", "hover", "focus", "selected", "new", "intro", "single", "done", "state-", "complete", "pending", "error", "stopped"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return randomID(c) || !validIdent(c)
}

var identRE = regexp.MustCompile(`^-?[A-Za-z_][A-Za-z0-9_-]*$`)

func validIdent(s string) bool { return identRE.MatchString(s) }

func cssIdent(s string) string { return s }

func skipAttr(k string) bool {
	return strings.HasPrefix(k, "data-rl-") || k == "style" || k == "tabindex" || k == "hidden" || k == "title"
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && validIdent(x) {
			out = append(out, x)
		}
	}
	return out
}

func containsAll(got, want []*html.Node) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func describeNode(n *html.Node) string {
	if s := selfSelector(n); s != "" {
		return s
	}
	return n.Data
}
