package conformance

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
)

// The checks of a real chat app's lifecycle (SPEC APP-4).
const (
	CheckSpeakerUnknown = "speaker-unknown"       // turns whose speaker value is in neither list
	CheckNoSpeaker      = "turn-without-speaker"  // the turn selector matches elements with no speaker
	CheckTextChanged    = "text-after-complete"   // a group's text changed after it was read complete
	CheckStreamEnded    = "streaming-ended-early" // generating ended before the text stopped growing
	CheckErrorComplete  = "error-as-complete"     // an error (alert, Retry) read as complete
	CheckControlText    = "control-text"          // a toolbar's or badge's text inside an answer
	CheckStopControl    = "stop-control"          // the profile's stop control never showed while streaming
	CheckReadyEarly     = "ready-too-early"       // turns arrived without an action after the page was ready
	CheckReadyNever     = "never-ready"           // the profile's ready never held on a page with turns
)

// Kinds of recorded actions.
const (
	actSend     = "send"       // a send: a new user turn and a new group
	actReplace  = "regenerate" // regenerate or retry: a new group in place of one
	actStop     = "stop"       // stop: the answer followed goes on being followed
	actComposer = "composer"   // a click into the composer
	actOther    = "other"      // any other click or key (links, Copy, thumbs)
)

var (
	stopNames    = []string{"stop generating", "stop streaming", "stop responding", "stop response", "stop"}
	replaceNames = []string{"regenerate", "regenerate response", "retry", "try again"}
	retryNames   = []string{"retry", "try again"}
)

func nameIs(name string, list []string) bool {
	name = strings.ToLower(observe.Normalize(name))
	for _, s := range list {
		if name == s || strings.HasPrefix(name, s+" ") {
			return true
		}
	}
	return false
}

// actionKind tells what a recorded click or key press was: a send (the
// send control, or Enter), a regenerate or retry, a stop, a click into
// the composer, or something else. A click on an element the capture
// before it does not show counts as a send, as before this distinction.
func actionKind(st replay.Step, o *observe.Observation, opt Options, typed bool) string {
	var el *observe.Element
	if o != nil {
		for i := range o.All {
			if o.All[i].Node == st.Node {
				el = &o.All[i]
				break
			}
		}
	}
	composer, send := opt.Composer, opt.Send
	var p *site.Profile
	if opt.Profile != nil {
		p = opt.Profile
	}
	matches := func(c site.Control, fallbackRole, fallbackName string) bool {
		if el == nil {
			return false
		}
		if c.Selector != "" {
			m, err := adapter.CompileSelector(c.Selector)
			n := el.HTMLNode()
			return err == nil && n != nil && m.Match(n)
		}
		role, name := c.Role, c.Name
		if c.IsZero() {
			role, name = fallbackRole, fallbackName
		}
		return el.Role == role && (name == "" || el.Name == name)
	}
	if st.Kind == replay.KindPress {
		if st.Key != "Enter" {
			return actOther
		}
		if el != nil && el.Role == "button" {
			return actionKind(replay.Step{Kind: replay.KindClick, Node: st.Node}, o, opt, typed)
		}
		return actSend
	}
	if el == nil {
		return actSend
	}
	if p != nil {
		if matches(p.Composer, "", "") {
			return actComposer
		}
		// a Stop on the Send button's element (one button that turns
		// into Stop while streaming) is a stop; when stop and send are
		// given by the same selector, a click after text was typed is
		// the send
		sendToo := typed && p.SendBy == site.SendClick && matches(p.Send, "", "")
		if matches(p.StopControl(), "", "") && !sendToo || el.Role == "button" && nameIs(el.Name, stopNames) {
			return actStop
		}
		if p.SendBy == site.SendClick && matches(p.Send, "", "") {
			return actSend
		}
		if matches(p.RegenerateControl(), "", "") {
			return actReplace
		}
		for _, c := range p.RetryControls() {
			if matches(c, "", "") {
				return actReplace
			}
		}
	} else {
		if el.Role == composer.Role && (composer.Name == "" || el.Name == composer.Name) {
			return actComposer
		}
		if el.Role == send.Role && (send.Name == "" || el.Name == send.Name) {
			return actSend
		}
	}
	if el.Role == "textbox" || el.Role == "searchbox" {
		return actComposer
	}
	if el.Role == "button" {
		switch {
		case nameIs(el.Name, stopNames):
			return actStop
		case nameIs(el.Name, replaceNames):
			return actReplace
		}
	}
	return actOther
}

// groupTrack follows one group id through a session's captures.
type groupTrack struct {
	generating bool   // seen generating
	complete   bool   // read complete (and not generating again since)
	text       string // its text when first read complete
	at         int    // that capture
	atMS       int64  // the time of the first complete read
	settled    bool   // a whole settle window has passed since
}

// lifecycle holds a session's state for the lifecycle checks, each of
// which is reported once per session.
type lifecycle struct {
	groups   map[string]*groupTrack
	reported map[string]bool
	// stop control: captures with a generating group, whether the
	// profile's stop control showed in one, and another stop-named
	// button seen there
	streaming, stopSeen int
	otherStop           string
	// readiness
	readyHeld, turnsSeen bool
	readyTurns           int  // turns when ready first held since the page loaded (-1: not held)
	usedSinceLoad        bool // an action other than a load since the page loaded: later turns are its
}

func newLifecycle() *lifecycle {
	return &lifecycle{groups: map[string]*groupTrack{}, reported: map[string]bool{}, readyTurns: -1}
}

// once reports whether check is reported for the first time.
func (l *lifecycle) once(check string) bool {
	if l.reported[check] {
		return false
	}
	l.reported[check] = true
	return true
}

// speakers checks what the speaker rule drops.
func (l *lifecycle) speakers(f *adapter.File, doc *observe.Document, add func(check, detail string)) {
	if f == nil || doc == nil {
		return
	}
	sp := f.SpeakerCheck(doc)
	if len(sp.Unknown) > 0 && l.once(CheckSpeakerUnknown) {
		var vals []string
		n, after := 0, 0
		for v, c := range sp.Unknown {
			vals = append(vals, fmt.Sprintf("%q×%d", v, c))
			n += c
			after += sp.AfterUser[v]
		}
		sort.Strings(vals)
		hint := "list each value under turn.speaker.assistant (a persona or model that answers) or turn.speaker.user"
		if after > 0 {
			hint = "they follow user turns, so they are answers the engine never sees: add the values to turn.speaker.assistant"
		}
		add(CheckSpeakerUnknown, fmt.Sprintf("%d turns have a speaker value in neither turn.speaker list (%s) and are dropped (no group, no user turn); %s", n, strings.Join(vals, ", "), hint))
	}
	if sp.NoSpeaker > 0 && l.once(CheckNoSpeaker) {
		d := f.Diagnose(doc)
		add(CheckNoSpeaker, fmt.Sprintf("turn.selector %q matches %d elements with no speaker value (first: <%s>) beside the turns (speaker values seen: %s): it matches more than the chat's turns (a sidebar, a list of chats); narrow turn.selector to the turns", d.TurnSelector, sp.NoSpeaker, sp.Sample, d.SpeakerList()))
	}
}

// group follows g through the session: text changing after complete,
// generating ending before the text stops growing, an error read as
// complete, control text inside the answer.
//
// A change within the settle window after the first complete read
// (settleMS, the profile's; 0 while the page shows its stop control) is no
// violation: the engine waits it out (LIB-3), as for a renderer that
// paints its last words after "done".
func (l *lifecycle) group(doc *observe.Document, g adapter.Group, capture int, atMS, settleMS int64, add func(check, detail string)) {
	t := l.groups[g.ID]
	if t == nil {
		t = &groupTrack{}
		l.groups[g.ID] = t
	}
	switch g.State {
	case adapter.StateGenerating:
		t.generating, t.complete = true, false
		return
	case adapter.StateComplete:
	default:
		t.complete = false
		return
	}
	if t.complete && !t.settled && (atMS-t.atMS >= settleMS || settleMS == 0) {
		t.settled = true
	}
	if !t.complete {
		t.complete, t.text, t.at, t.atMS, t.settled = true, g.Text, capture, atMS, settleMS == 0
	} else if g.Text != t.text && !t.settled {
		// inside the settle window of the first complete read: the
		// engine reads on (a last paint after "done"); a text that
		// still changes after it is a violation
		t.text, t.at = g.Text, capture
	} else if g.Text != t.text {
		check, why := CheckTextChanged, "its text changed after it was read complete: a signal the adapter does not know still says it is streaming, or text outside the answer (a timestamp, a counter) is read with it; add that signal to states.generating, or the element to text.exclude"
		if t.generating {
			check, why = CheckStreamEnded, "it left the generating state while its text still grew: the generating signal covers only part of the stream (a \"Thinking…\" placeholder, the first token); add a signal that holds until the answer is complete (states.generating, or the profile's page-level generating)"
		}
		if l.once(check) {
			add(check, fmt.Sprintf("group %s was complete at capture %d with %q, then %q: %s", g.ID, t.at, cut(t.text), cut(g.Text), why))
		}
		t.text = g.Text
	}
	if g.Node == nil || doc == nil {
		return
	}
	if ev := errorSign(doc, g.Node); ev != "" && l.once(CheckErrorComplete) {
		add(CheckErrorComplete, fmt.Sprintf("group %s is read complete but holds %s (text %q): an error read as complete; map the site's error in states.failure (its selector, attribute or text)", g.ID, ev, cut(g.Text)))
	}
	if ev := controlText(doc, g.Node, g.Text); ev != "" && l.once(CheckControlText) {
		add(CheckControlText, fmt.Sprintf("group %s's text holds %s: a toolbar's or badge's text read as the answer's; add a selector for it to text.exclude", g.ID, ev))
	}
}

// errorSign is the evidence of an error inside a turn: role=alert, a
// retry control ("Retry", "Try again"; Regenerate stands under every
// answer and is none), or a class or state attribute that says error
// (a library's error bubble: "state-error", data-status="failed").
func errorSign(doc *observe.Document, turn *html.Node) string {
	found := ""
	observe.WalkElements(turn, func(n *html.Node) bool {
		if found != "" || doc.Hidden(n) {
			return false
		}
		switch role := observe.Role(n); {
		case role == "alert":
			found = "role=alert"
		case role == "button" && nameIs(doc.Name(n), retryNames):
			found = "a retry control " + strconv.Quote(doc.Name(n))
		default:
			found = stateMark(n, errorWords)
		}
		return found == ""
	})
	return found
}

var (
	errorWords   = []string{"error", "errored", "failed", "failure"}
	stoppedWords = []string{"stopped", "aborted", "cancelled", "canceled", "interrupted"}
	// stoppedNotes are the notes a site shows under a stopped answer
	stoppedNotes = []string{"stopped", "stopped generating", "generation stopped", "response stopped", "cancelled", "canceled", "interrupted", "(stopped)"}
)

// stateMark is the evidence that n's class or state attribute (data-state,
// data-status) names one of words, as a whole token or a token's
// dash-separated part ("state-error", "msg--failed"), "" for none.
func stateMark(n *html.Node, words []string) string {
	for _, attr := range []string{"class", "data-state", "data-status"} {
		for _, tok := range strings.Fields(observe.Attr(n, attr)) {
			for _, part := range strings.FieldsFunc(strings.ToLower(tok), func(r rune) bool { return r == '-' || r == '_' }) {
				if slices.Contains(words, part) {
					return fmt.Sprintf("%s %q", attr, tok)
				}
			}
		}
	}
	return ""
}

// stopSign is the evidence inside a turn that the site marks it stopped:
// a class or state attribute that says so, or a note ("Stopped").
func stopSign(doc *observe.Document, turn *html.Node) string {
	found := ""
	observe.WalkElements(turn, func(n *html.Node) bool {
		if found != "" || doc.Hidden(n) || observe.Role(n) == "button" {
			return false
		}
		if found = stateMark(n, stoppedWords); found != "" {
			return false
		}
		if own := strings.ToLower(observe.Normalize(ownText(doc, n))); own != "" && slices.Contains(stoppedNotes, own) {
			found = fmt.Sprintf("the note %q", observe.Normalize(ownText(doc, n)))
		}
		return found == ""
	})
	return found
}

// controlTextMax bounds the text of a control bar that counts as a
// toolbar's (a badge, "2 / 2"), not a paragraph with buttons.
const controlTextMax = 40

// controlText finds, inside a turn, an element holding two controls or
// more and a short text of its own that the group's text contains, or a
// code block's label or toolbar ("python", "Copy code") read with it.
func controlText(doc *observe.Document, turn *html.Node, text string) string {
	if ev := codeLabel(doc, turn, text); ev != "" {
		return ev
	}
	found := ""
	observe.WalkElements(turn, func(n *html.Node) bool {
		if found != "" || doc.Hidden(n) || observe.Role(n) == "button" {
			return false
		}
		if n == turn {
			return true
		}
		if buttons(doc, n) < 2 {
			return true
		}
		// an element whose own text is the whole answer is the answer's
		// wrapper (its controls beside the text), not a toolbar in it
		own := observe.Normalize(ownText(doc, n))
		if own != "" && own != observe.Normalize(text) && utf8.RuneCountInString(own) <= controlTextMax && strings.Contains(text, own) {
			desc := n.Data
			if c := observe.Attr(n, "class"); c != "" {
				desc += " class=" + strconv.Quote(c)
			}
			found = fmt.Sprintf("%q from <%s>, which holds %d controls", own, desc, buttons(doc, n))
		}
		return false
	})
	return found
}

// codeLabel finds a code block's header inside a turn: beside a <pre>, in
// the block's own wrapper (not the answer's body, where paragraphs stand
// beside it), elements with a short text of their own (a language label,
// a toolbar) that the group's text contains.
func codeLabel(doc *observe.Document, turn *html.Node, text string) string {
	found := ""
	observe.WalkElements(turn, func(n *html.Node) bool {
		if found != "" || doc.Hidden(n) {
			return false
		}
		if n.Data != "pre" {
			return true
		}
		block := n
		for block.Parent != nil && block.Parent != turn && onlyChild(block.Parent) == block {
			block = block.Parent
		}
		wrap := block.Parent
		if wrap == nil || wrap == turn {
			return false
		}
		var label []string
		var holder *html.Node
		for c := wrap.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c == block || doc.Hidden(c) {
				continue
			}
			switch c.Data {
			case "p", "ul", "ol", "table", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6":
				return false // the answer's body: its paragraphs beside the code
			}
			if own := observe.Normalize(ownText(doc, c)); own != "" {
				label = append(label, own)
				if holder == nil {
					holder = c
				}
			}
		}
		own := strings.Join(label, " ")
		inText := len(label) > 0 && !slices.ContainsFunc(label, func(l string) bool { return !strings.Contains(text, l) })
		if inText && utf8.RuneCountInString(own) <= controlTextMax {
			desc := holder.Data
			if c := observe.Attr(holder, "class"); c != "" {
				desc += " class=" + strconv.Quote(c)
			}
			found = fmt.Sprintf("%q from <%s>, a code block's label or toolbar beside its <pre>", own, desc)
		}
		return false
	})
	return found
}

// onlyChild is n's one visible element child, nil when it has none or
// several, or text of its own.
func onlyChild(n *html.Node) *html.Node {
	var one *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			return nil
		case c.Type != html.ElementNode:
		case one != nil:
			return nil
		default:
			one = c
		}
	}
	return one
}

func buttons(doc *observe.Document, n *html.Node) int {
	c := 0
	observe.WalkElements(n, func(e *html.Node) bool {
		if doc.Hidden(e) {
			return false
		}
		if observe.Role(e) == "button" {
			c++
			return false
		}
		return true
	})
	return c
}

// ownText is n's visible text without its controls.
func ownText(doc *observe.Document, n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				b.WriteString(c.Data)
			case c.Type == html.ElementNode && !doc.Hidden(c) && observe.Role(c) != "button":
				b.WriteString(" ")
				rec(c)
				b.WriteString(" ")
			}
		}
	}
	rec(n)
	return b.String()
}

// stop notes, for a capture with a generating group, whether the
// profile's stop control shows, and the name of another stop control.
func (l *lifecycle) stop(o *observe.Observation, p *site.Profile) {
	if p == nil || p.Stop.IsZero() || o == nil {
		return
	}
	l.streaming++
	if resolveControl(o, locate.Locator{}, p, "stop").Status == "ok" {
		l.stopSeen++
		return
	}
	if l.otherStop == "" {
		for _, e := range o.All {
			if e.Role == "button" && nameIs(e.Name, stopNames) {
				l.otherStop = e.Name
				break
			}
		}
	}
}

// ready notes the profile's readiness on one capture and reports turns
// that arrive after it held with no action in between.
func (l *lifecycle) ready(p *site.Profile, doc *observe.Document, turns int, add func(check, detail string)) bool {
	if turns > 0 {
		l.turnsSeen = true
	}
	if p == nil || !p.Ready.Named() || doc == nil {
		return true
	}
	ok := p.Ready.Missing(doc) == ""
	if !ok {
		return false
	}
	l.readyHeld = true
	switch {
	case l.readyTurns < 0:
		l.readyTurns = turns
	case turns > l.readyTurns && !l.usedSinceLoad && l.once(CheckReadyEarly):
		add(CheckReadyEarly, fmt.Sprintf("ready (%s) held with %d turns on the page, then %d turns arrived with no action in between: the page was not ready yet (a thread that loads after the ready signal); name a signal that holds only once the thread is there (\"ready\": selector, text or absent)", p.Ready.Awaited(), l.readyTurns, turns-l.readyTurns))
	}
	return true
}

// acted is told of every recorded action. A load (navigate) starts the
// readiness question again; any other action answers it: the turns added
// after it are its (a send's own user turn and its answer may arrive
// several captures after the click), never a thread loading late.
func (l *lifecycle) acted(load bool) {
	l.readyTurns = -1
	l.usedSinceLoad = !load
}

// end reports the session-wide checks.
func (l *lifecycle) end(p *site.Profile, add func(check, detail string)) {
	if p != nil && p.Ready.Named() && !l.readyHeld && l.turnsSeen {
		add(CheckReadyNever, fmt.Sprintf("ready (%s) never held in this session, though the page showed turns: the page is never ready to the engine (every open fails PAGE_NOT_READY); fix \"ready\" to name what the loaded page shows", p.Ready.Awaited()))
	}
	if p != nil && !p.Stop.IsZero() && l.streaming > 0 && l.stopSeen == 0 && l.otherStop != "" {
		add(CheckStopControl, fmt.Sprintf("the profile's stop control %s never showed in the %d captures where an answer streamed; the page showed button %q there: set \"stop\" (and the page-level generating control) to it", p.Stop, l.streaming, l.otherStop))
	}
}
