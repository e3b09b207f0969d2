// Package conformance checks a site adapter against recorded sessions
// (SPEC HAR-5): for every capture, the answer groups the adapter finds
// (ids, rules, states, media readiness), whether turn boundaries hold (no
// turn holding two speakers or the composer), whether the composer and
// the send control resolve to exactly one element, whether group ids stay
// stable from capture to capture, and the baseline/new-group decision the
// engine would make after each send.
//
// It is what `replaylab validate` prints; a team adding a site records
// sessions with `replaylab record` and runs this over them in CI.
package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
)

// Options name the controls a capture must resolve.
type Options struct {
	// Composer locates the message box; with an empty Name, the page must
	// have exactly one editor of that role.
	Composer locate.Locator
	// Send locates the send control.
	Send locate.Locator
	// Profile, when set, is the site profile: its composer, send and stop
	// controls (role and name or selector) replace Composer and Send, a
	// missing Send is no violation while its stop control or a page-level
	// generating signal shows (Stop replaces Send while streaming), and
	// page signals count as generating.
	Profile *site.Profile
}

// OptionsFor returns the options of a site profile.
func OptionsFor(p *site.Profile) Options {
	o := DefaultOptions
	o.Profile = p
	return o
}

// DefaultOptions expect one textbox and a button named "Send".
var DefaultOptions = Options{Composer: locate.Locator{Role: "textbox"}, Send: locate.Locator{Role: "button", Name: "Send"}}

// Check names.
const (
	CheckStructure = "structure"       // the adapter found no turns
	CheckBoundary  = "turn-boundary"   // a turn holds the composer or another speaker's turn
	CheckComposer  = "composer"        // the composer does not resolve to one element
	CheckSend      = "send-control"    // the send control does not resolve to one element
	CheckStability = "group-id-stable" // a group's id changed between captures
	CheckNewGroup  = "new-group"       // a send produced no new group

	CheckDuplicateID = "duplicate-group-id" // two groups of one capture share an id
	CheckPositionID  = "position-id"        // ids fell back to position (a warning)
	CheckSwapped     = "speakers-swapped"   // the new group's text is what was typed
	CheckSendTurns   = "send-turns"         // a send did not add one user turn and one group
	CheckMedia       = "media-uncovered"    // media in a turn that no media rule covers
	CheckGenerating  = "never-generating"   // a send's new group never showed generating
	CheckNoSends     = "no-sends"           // clicks and presses were recorded, none of them a send (LIB-6)

	// For adapters that declare their ids (turn.id.kind, SPEC LIB-1): a
	// declared kind is no violation; what can break is checked instead.
	CheckPositionShift = "position-shift" // declared position ids: a turn inserted above shifted them
	CheckIDReused      = "id-reused"      // declared volatile ids: one id named two turns in one load

	// The mistakes of adapters for chat UI libraries (SPEC LIB-6).
	CheckContainerTurn  = "container-turn"          // one turn holds several messages: the selector matches their list
	CheckStoppedAsDone  = "stopped-as-complete"     // an answer stopped with Stop, marked stopped by the site, read complete
	CheckGeneratingStay = "generating-never-clears" // a page-level generating signal shows on the idle page before a send
	CheckSendBy         = "send-by"                 // clicks on the send control are no sends under send.by "enter"
)

// Severities.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Violation is one failed check.
type Violation struct {
	Capture  int    `json:"capture"`
	Check    string `json:"check"`
	Detail   string `json:"detail"`
	Severity string `json:"severity"`
}

// Errors counts the violations that are errors (warnings do not fail).
func (s Session) Errors() int {
	n := 0
	for _, v := range s.Violations {
		if v.Severity != SeverityWarning {
			n++
		}
	}
	return n
}

// Group is what the adapter found of one group.
type Group struct {
	ID    string          `json:"id"`
	Rule  string          `json:"rule"`
	State string          `json:"state"`
	Text  string          `json:"text"`
	Media []adapter.Media `json:"media"`
}

// Resolve is the verdict for one control.
type Resolve struct {
	Status string `json:"status"` // ok or a locate code
	Count  int    `json:"count,omitempty"`
	// Candidates describe the matches of an ambiguous control.
	Candidates []string `json:"candidates,omitempty"`
}

// Capture is the report of one capture of a session.
type Capture struct {
	Index     int     `json:"index"`
	Step      int     `json:"step"`
	AtMS      int64   `json:"atMs"`
	Adapter   string  `json:"adapter"`
	Structure bool    `json:"structure"`
	Groups    []Group `json:"groups"`
	Composer  Resolve `json:"composer"`
	Send      Resolve `json:"send"`
}

// Decision is the new-group decision after a send.
type Decision struct {
	Step     int      `json:"step"`
	Action   string   `json:"action"`
	Baseline []string `json:"baseline"`
	Group    string   `json:"group,omitempty"`
	States   []string `json:"states,omitempty"`
	// Typed is what was typed before the send, Text the new group's last
	// text; UsersAdded and GroupsAdded what the send added by its last
	// capture.
	Typed       string `json:"typed,omitempty"`
	Text        string `json:"text,omitempty"`
	UsersAdded  int    `json:"usersAdded"`
	GroupsAdded int    `json:"groupsAdded"`
	// Failure is the evidence of the page-level failure signal (a site
	// profile's "failed", LIB-5) that met the send when no new group
	// did: absent before the send, present after it, read as the engine
	// reads it (answer.Baseline.Failed). The library added no answer:
	// the engine ends such a send ANSWER_FAILED.
	Failure string `json:"failure,omitempty"`

	users0, groups0, capture int
	// failed: the texts of the baseline's failed groups; failedGone how
	// many of them the site took away since (an error message removed at
	// the next send: not the send's doing)
	failed     []string
	failedGone int
	speakers   string
	structure  bool // the send's last capture had turns
	// streamed: the new group's text changed from capture to capture, or
	// the page's stop control or generating signal showed beside it
	streamed bool
	replace  bool // a regenerate or retry: a new group in place of one
	// swapped: the new group's id changed once while it was generating
	// (a placeholder replaced by the real message); Was is the first id
	was string
}

// Session is the report of one recorded session.
type Session struct {
	File       string      `json:"file"`
	Captures   []Capture   `json:"captures"`
	Decisions  []Decision  `json:"decisions"`
	Violations []Violation `json:"violations"`
}

// textMax bounds the group text a report shows.
const textMax = 80

// Check runs every check over a session.
func Check(file string, s *replay.Session, ad adapter.Adapter, opt Options) Session {
	rep := Session{File: file, Captures: []Capture{}, Decisions: []Decision{}, Violations: []Violation{}}
	if opt.Profile != nil {
		ad = opt.Profile.Reader()
	}
	file_, _ := ad.(*adapter.File)
	if opt.Profile != nil {
		file_, _ = opt.Profile.Adapter.(*adapter.File)
	}
	var prev []Group
	var prevObs *observe.Observation
	var prevRes adapter.Result
	var pending *Decision
	var baseline answer.Baseline
	lastIdx := -1
	users, groups := 0, 0
	typed := ""
	positionWarned := false
	life := newLifecycle()
	// no-sends (LIB-6): the last click that was no send, and the clicks
	// after which a user turn appeared (the likely send controls)
	var other *struct {
		name  string
		users int
	}
	likely := map[string]int{}
	sendSeen := false // the send control resolved in some capture
	idKind := adapter.IDStable
	if file_ != nil {
		idKind = file_.IDKind()
	}
	navigated := false            // a navigation since the last capture: a new load
	swapped := map[string]bool{}  // ids that replaced a generating placeholder's
	idText := map[string]string{} // declared volatile ids: the text each named in this load
	// readiness (APP-1): a page is ready while the profile's "ready"
	// holds, or, in a session recorded with the default readiness, after
	// its quiet wait; before it, the composer and send checks are skipped
	quietSession := slices.ContainsFunc(s.Steps, func(st replay.Step) bool { return st.Kind == replay.KindQuiet })
	quiet := !quietSession
	var noTurns *Violation      // a capture with no turns after a send, until a turn shows
	noTurnsStep := -1           // the step of the send noTurns followed
	var posViolation *Violation // every group with a position id (unless a container turn is why)
	var prevDoc *observe.Document
	// LIB-6: the groups generating when Stop was clicked (stopped-as-
	// complete), clicks on the send control under send.by "enter"
	stopped := map[string]string{} // id → the stop action
	byClicks, byName := 0, ""
	var candidates []string // the buttons of a page where the send control resolved to none
	for si, st := range s.Steps {
		if st.Kind == replay.KindRead {
			continue // the page as the capture before showed it
		}
		if st.Kind != replay.KindCapture {
			switch st.Kind {
			case replay.KindType:
				typed = st.Text
			case replay.KindQuiet:
				quiet = st.Error == ""
			case replay.KindNavigate:
				quiet = !quietSession
				if pending != nil {
					// a send's decision ends with its page: what the next
					// page shows is none of its doing
					rep.close(pending)
					pending, prev, lastIdx = nil, nil, -1
				}
				navigated = true
			}
			if st.Kind != replay.KindType {
				life.acted(st.Kind == replay.KindNavigate)
			}
			if st.Kind == replay.KindClick || st.Kind == replay.KindPress {
				kind := actionKind(st, prevObs, opt, typed != "")
				if kind == actStop {
					for _, g := range prevRes.Groups {
						if g.State == adapter.StateGenerating {
							stopped[g.ID] = actionName(st, prevObs)
						}
					}
					if pending != nil && pending.Group != "" {
						stopped[pending.Group] = actionName(st, prevObs)
					}
				}
				if p := opt.Profile; p != nil && p.SendBy == site.SendEnter && st.Kind == replay.KindClick && typed != "" && !p.Send.IsZero() && onControl(st, prevObs, p.Send) {
					byClicks++
					byName = actionName(st, prevObs)
				}
				if kind == actSend && opt.Profile != nil && prevDoc != nil && !ownGenerating(opt.Profile, prevDoc) {
					// a send on a page whose answers all rest by the
					// adapter's own reading, and still the page-level
					// signal shows
					if ev := opt.Profile.PageSignal(prevDoc); ev != "" && life.once(CheckGeneratingStay) {
						rep.Violations = append(rep.Violations, Violation{Capture: max(0, len(rep.Captures)-1), Check: CheckGeneratingStay, Severity: SeverityError,
							Detail: fmt.Sprintf("the page-level generating signal (%s) showed on the page a send was made on (step %d, %s), where no answer was streaming: it never clears, so every answer reads generating to its deadline; name a signal that shows only while an answer streams (the profile's \"generating\")", ev, si, actionName(st, prevObs))})
					}
				}
				if kind == actOther {
					other = &struct {
						name  string
						users int
					}{actionName(st, prevObs), users}
				}
				if kind != actSend && kind != actReplace {
					continue // a stop, a click into the composer, a link: no send
				}
				if pending != nil {
					rep.close(pending)
				}
				pending = &Decision{Step: si, Action: actionName(st, prevObs), Baseline: []string{}, Typed: typed, users0: users, groups0: groups, capture: -1, replace: kind == actReplace}
				if kind == actReplace {
					pending.Typed = ""
				}
				typed = ""
				if lastIdx >= 0 {
					pending.Baseline = append(pending.Baseline, ids(prev)...)
				}
				failure := ""
				if lastIdx >= 0 {
					failure = prevRes.Failure // a signal shown before the send is an earlier send's
				}
				baseline = baselineOf(pending.Baseline, failure)
				if kind == actReplace && lastIdx >= 0 {
					baseline.InPlace(prevRes) // the new answer may keep the old one's id
				}
				if lastIdx >= 0 {
					for _, g := range prevRes.Groups {
						if g.State == adapter.StateFailed {
							pending.failed = append(pending.failed, g.Text)
						}
					}
				}
			}
			continue
		}
		ci := *st.Capture
		lastIdx = ci
		res, o, doc := read(s, ci, ad)
		cr := Capture{Index: len(rep.Captures), Step: si, AtMS: st.AtMS, Adapter: res.Adapter, Structure: res.Structure, Groups: []Group{}}
		for _, g := range res.Groups {
			cr.Groups = append(cr.Groups, Group{ID: g.ID, Rule: g.Rule, State: g.State, Text: cut(g.Text), Media: g.Media})
		}
		add := func(check, detail string) {
			rep.Violations = append(rep.Violations, Violation{Capture: cr.Index, Check: check, Detail: detail, Severity: SeverityError})
		}
		ready := life.ready(opt.Profile, doc, res.Turns, add) && quiet
		if ready {
			life.speakers(file_, doc, add)
		}
		// while the page shows its stop control or a generating signal,
		// a text that grows is a stream, never a last paint
		settle := settleOf(opt.Profile)
		if stopShows(o, doc, opt.Profile) {
			settle = 0
		}
		for _, g := range res.Groups {
			life.group(doc, g, cr.Index, st.AtMS, settle, add)
		}
		if slices.ContainsFunc(res.Groups, func(g adapter.Group) bool { return g.State == adapter.StateGenerating }) {
			life.stop(o, opt.Profile)
		}
		// an empty chat before its first send has no turns yet, nor a page
		// that is not ready
		if res.Structure {
			noTurns = nil // the send's turns arrived
		}
		if pending != nil && pending.Group == "" {
			if ev, ok := baseline.Failed(res); ok && pending.Failure == "" {
				// the library added no answer and showed its failure
				// signal: the send's outcome, as the engine reads it
				// (ANSWER_FAILED, LIB-5)
				pending.Failure = ev
				pending.States = append(pending.States, adapter.StateFailed)
				if noTurnsStep == pending.Step {
					// a library that takes the send's turns away on an
					// error (NLUX shows its empty chat again) or never
					// rendered them: no turns is what the page shows
					noTurns = nil
				}
			}
		}
		failedSend := pending != nil && pending.Group == "" && pending.Failure != ""
		if ready && !res.Structure && (pending != nil || !hasSends(s)) && !failedSend {
			detail := "the " + res.Adapter + " adapter found no turns (STRUCTURE_UNKNOWN)"
			if file_ != nil && doc != nil {
				d := file_.Diagnose(doc)
				detail += fmt.Sprintf(": turn.selector %q matched %d elements; speaker values seen: %s; fix turn.selector, or list the assistant's and user's values in turn.speaker", d.TurnSelector, d.Matches, d.SpeakerList())
			}
			switch {
			case pending == nil:
				add(CheckStructure, detail)
			case noTurns == nil:
				// an empty chat just after its send: the send's own user
				// turn may come captures later; reported only if no turn
				// ever comes
				noTurns = &Violation{Capture: cr.Index, Check: CheckStructure, Detail: detail, Severity: SeverityError}
				noTurnsStep = pending.Step
			}
		}
		for _, v := range boundaries(o, res) {
			add(CheckBoundary, v)
		}
		container := false
		if file_ != nil && doc != nil {
			turns := slices.Clone(res.Users)
			for _, g := range res.Groups {
				if g.Node != nil {
					turns = append(turns, g.Node)
				}
			}
			for _, n := range turns {
				if k := file_.SpeakersInside(doc, n); k >= 2 {
					container = true
					if life.once(CheckContainerTurn) {
						add(CheckContainerTurn, fmt.Sprintf("one turn (<%s>) holds %d elements with a speaker value: turn.selector %q matches the list of the chat's messages, so the whole thread is read as one turn; point turn.selector at one message (the element each message has its own of)", describeNode(n), k, file_.Diagnose(doc).TurnSelector))
					}
					break
				}
			}
		}
		for _, g := range res.Groups {
			how, ok := stopped[g.ID]
			if !ok || g.State != adapter.StateComplete || g.Node == nil || doc == nil {
				continue
			}
			if ev := stopSign(doc, g.Node); ev != "" && life.once(CheckStoppedAsDone) {
				add(CheckStoppedAsDone, fmt.Sprintf("group %s was stopped (%s) and the site marks it stopped (%s), but it is read complete (text %q): map the site's mark in states.stopped", g.ID, how, ev, cut(g.Text)))
			}
		}
		seen := map[string]int{}
		for i, g := range res.Groups {
			if j, ok := seen[g.ID]; ok {
				add(CheckDuplicateID, fmt.Sprintf("groups %d and %d both have the id %q: turn.id does not name one message (ids must differ per turn); point turn.id at the message id attribute", j+1, i+1, g.ID))
				break
			}
			seen[g.ID] = i
		}
		if !positionWarned && !container {
			pos := 0
			var first adapter.Group
			for _, g := range res.Groups {
				if strings.Contains(g.Rule, "id from position") {
					if pos == 0 {
						first = g
					}
					pos++
				}
			}
			switch {
			case pos > 0 && pos == len(res.Groups):
				positionWarned = true
				// reported at the end, unless a container turn explains it
				posViolation = &Violation{Capture: cr.Index, Check: CheckPositionID, Severity: SeverityError}
				posViolation.Detail = fmt.Sprintf("every group has a position id (%s): the id attribute is on no turn, so ids shift when turns are added at the top; set turn.id to the attribute that holds the message id, or, if the turns carry none, declare \"kind\": \"position\" in turn.id (adapter file version 2)", first.Rule)
			case pos > 0:
				positionWarned = true
				rep.Violations = append(rep.Violations, Violation{Capture: cr.Index, Check: CheckPositionID, Severity: SeverityWarning,
					Detail: fmt.Sprintf("%d of %d groups fell back to a position id (first %s: %s): ids shift when turns are added at the top; set turn.id to an attribute every turn carries", pos, len(res.Groups), first.ID, first.Rule)})
			}
		}
		if file_ != nil && doc != nil {
			for _, g := range res.Groups {
				if u := file_.Uncovered(doc, g); len(u) > 0 {
					add(CheckMedia, fmt.Sprintf("group %s holds %s that no media.items rule covers: add a rule (selector and kind) for it", g.ID, strings.Join(u, ", ")))
					break
				}
			}
		}
		cr.Composer = resolveControl(o, opt.Composer, opt.Profile, "composer")
		if ready && cr.Composer.Status != "ok" {
			add(CheckComposer, fmt.Sprintf("%s: %s", controlName(opt, "composer"), describe(cr.Composer)))
		}
		cr.Send = resolveControl(o, opt.Send, opt.Profile, "send")
		sendSeen = sendSeen || cr.Send.Status == "ok"
		generating := slices.ContainsFunc(res.Groups, func(g adapter.Group) bool { return g.State == adapter.StateGenerating })
		if ready && cr.Send.Status != "ok" && !generating && !stopShows(o, doc, opt.Profile) {
			if opt.Profile == nil || opt.Profile.SendBy != site.SendEnter {
				detail := fmt.Sprintf("%s: %s", controlName(opt, "send"), describe(cr.Send))
				if cr.Send.Status == string(locate.TargetNotFound) {
					if bs := buttonsOn(o); len(bs) > 0 {
						detail += "; the page's buttons: " + strings.Join(bs, ", ") + ": set the profile's \"send\" to the one that sends"
						if candidates == nil {
							candidates = bs
						}
					}
				}
				add(CheckSend, detail)
			}
		}
		newLoad := navigated && idKind != adapter.IDStable // declared ids are made anew by each load
		acrossLoad := navigated
		if navigated {
			clear(idText)
		}
		navigated = false
		// a regenerate or retry replaces one answer in place, wherever it
		// stands: the site may take it out first and put the new one in
		// its place a capture later
		inPlace := pending != nil && pending.replace && oneApart(ids(prev), ids(cr.Groups), func(a, b string) bool { return a == b })
		// a failed answer the site took away at a send (an error message
		// removed when the next message goes) changes no other id
		if pending != nil && !pending.replace {
			prev = slices.DeleteFunc(slices.Clone(prev), func(g Group) bool {
				return g.State == adapter.StateFailed && !slices.ContainsFunc(cr.Groups, func(h Group) bool { return h.ID == g.ID })
			})
		}
		for i := 0; i < len(prev) && i < len(cr.Groups) && !newLoad && !inPlace; i++ {
			if pending != nil && pending.replace && i == len(prev)-1 {
				break // a regenerated or retried answer replaces the last group under a new id
			}
			if prev[i].ID != cr.Groups[i].ID && !slices.ContainsFunc(cr.Groups, func(g Group) bool { return g.ID == prev[i].ID }) {
				if prev[i].State == adapter.StateGenerating && !swapped[prev[i].ID] && !slices.ContainsFunc(prev, func(g Group) bool { return g.ID == cr.Groups[i].ID }) {
					swapped[cr.Groups[i].ID] = true // a placeholder replaced by the real message: one answer
					continue
				}
				detail := fmt.Sprintf("group %d was %s in the capture before, now %s", i+1, prev[i].ID, cr.Groups[i].ID)
				if swapped[prev[i].ID] {
					detail += " (its id had already changed once while it was generating)"
				}
				if acrossLoad {
					detail += `: the ids changed across a page load; if the page makes its ids up on every load, declare "kind": "volatile" in turn.id (adapter file version 2)`
				}
				add(CheckStability, detail)
				break
			}
		}
		switch {
		case idKind == adapter.IDPosition && !newLoad:
			same := func(was, now adapter.Group) bool {
				return was.State == adapter.StateGenerating || now.Text == was.Text || strings.HasPrefix(now.Text, was.Text)
			}
			if pending != nil && pending.replace && oneApart(prevRes.Groups, res.Groups, same) {
				break // the regenerated answer taken out or put back in its place
			}
			for i := 0; i < len(prevRes.Groups) && i < len(res.Groups); i++ {
				if pending != nil && pending.replace && i == len(prevRes.Groups)-1 {
					break
				}
				if same(prevRes.Groups[i], res.Groups[i]) {
					continue
				}
				was, now := prevRes.Groups[i], res.Groups[i]
				add(CheckPositionShift, fmt.Sprintf("%s read %q in the capture before and now reads %q: a turn was inserted above it, so the declared position ids now name other turns; they hold only while turns are added at the end (let the page load its history before sending, or point turn.id at an attribute the turns carry)", now.ID, cut(was.Text), cut(now.Text)))
				break
			}
		case idKind == adapter.IDVolatile:
			for i, g := range res.Groups {
				if g.State == adapter.StateGenerating || (pending != nil && pending.replace && i == len(res.Groups)-1) {
					continue
				}
				if t, ok := idText[g.ID]; ok && t != g.Text && !strings.HasPrefix(g.Text, t) {
					add(CheckIDReused, fmt.Sprintf("the id %s named a turn reading %q and now names one reading %q in the same page load: the page reuses its ids for other turns, so the engine cannot follow one by its id; point turn.id at an attribute that names one message, or declare \"kind\": \"position\"", g.ID, cut(t), cut(g.Text)))
					break
				}
				idText[g.ID] = g.Text
			}
		}
		users, groups = res.Turns-len(res.Groups), len(res.Groups)
		if other != nil && users > other.users {
			likely[other.name]++
			other = nil
		}
		if pending != nil {
			pending.capture = cr.Index
			pending.structure = res.Structure
			pending.UsersAdded, pending.GroupsAdded = users-pending.users0, groups-pending.groups0
			pending.failedGone = 0
			for _, t := range pending.failed {
				if !slices.ContainsFunc(res.Groups, func(g adapter.Group) bool { return g.Text == t }) {
					pending.failedGone++
				}
			}
			if file_ != nil && doc != nil {
				pending.speakers = file_.Diagnose(doc).SpeakerList()
			}
			if g, ok := baseline.Newest(res); ok {
				if pending.Group != g.ID {
					if n := len(pending.States); pending.was == "" && n > 0 && pending.States[n-1] == adapter.StateGenerating && !slices.Contains(res.IDs(), pending.Group) {
						pending.was, pending.Group = pending.Group, g.ID // the placeholder's id swapped: one answer
					} else {
						pending.Group, pending.States, pending.streamed, pending.was = g.ID, nil, false, ""
					}
				} else if g.Text != pending.Text {
					pending.streamed = true // its text grew: it streamed
				}
				if g.State != adapter.StateGenerating && stopShows(o, doc, opt.Profile) {
					pending.streamed = true // the page says it streams
				}
				pending.Text = g.Text
				if n := len(pending.States); n == 0 || pending.States[n-1] != g.State {
					pending.States = append(pending.States, g.State)
				}
			}
		}
		prev = cr.Groups
		prevRes = res
		prevObs = o
		prevDoc = doc
		rep.Captures = append(rep.Captures, cr)
	}
	if pending != nil {
		rep.close(pending)
	}
	if byClicks > 0 {
		rep.Violations = append(rep.Violations, Violation{Capture: max(0, len(rep.Captures)-1), Check: CheckSendBy, Severity: SeverityError,
			Detail: fmt.Sprintf("the profile's send.by is \"enter\", but the session sends by clicking the send control (%s, %d×): under \"enter\" those clicks are no sends, so no check of them ran (%d sends or regenerates were checked); set send.by to \"click\", or record the session again", byName, byClicks, len(rep.Decisions))})
	} else if len(rep.Decisions) == 0 && hasSends(s) && (len(likely) > 0 || !sendSeen) {
		rep.Violations = append(rep.Violations, Violation{Capture: max(0, len(rep.Captures)-1), Check: CheckNoSends, Severity: SeverityError, Detail: noSends(opt, likely, candidates)})
	}
	if noTurns != nil {
		rep.Violations = append(rep.Violations, *noTurns)
	}
	if posViolation != nil && !life.reported[CheckContainerTurn] {
		// a container turn has no id of its own: container-turn says why
		rep.Violations = append(rep.Violations, *posViolation)
	}
	if life.reported[CheckContainerTurn] {
		// the empty list before the first message has no speaker: not a
		// sidebar beside the turns, the same container
		rep.Violations = slices.DeleteFunc(rep.Violations, func(v Violation) bool { return v.Check == CheckNoSpeaker })
	}
	if life.reported[CheckGeneratingStay] {
		// a signal that never clears makes every answer look streamed:
		// never-generating would blame the wrong signal
		rep.Violations = slices.DeleteFunc(rep.Violations, func(v Violation) bool { return v.Check == CheckGenerating })
	}
	life.end(opt.Profile, func(check, detail string) {
		rep.Violations = append(rep.Violations, Violation{Capture: max(0, len(rep.Captures)-1), Check: check, Detail: detail, Severity: SeverityError})
	})
	return rep
}

// oneApart reports whether now is was with at most one element taken
// out, put in or replaced (same tells elements that are one).
func oneApart[T any](was, now []T, same func(was, now T) bool) bool {
	switch len(was) - len(now) {
	case 0:
		diff := 0
		for i := range was {
			if !same(was[i], now[i]) {
				diff++
			}
		}
		return diff <= 1
	case 1:
		return without(was, now, same)
	case -1:
		return without(now, was, func(a, b T) bool { return same(b, a) })
	}
	return false
}

// without reports whether short is long with one element taken out.
func without[T any](long, short []T, same func(l, s T) bool) bool {
	skipped := false
	for i, j := 0, 0; j < len(short); i++ {
		if same(long[i], short[j]) {
			j++
			continue
		}
		if skipped {
			return false
		}
		skipped = true
	}
	return true
}

// settleOf is the settle window of p's answer waits (LIB-3).
func settleOf(p *site.Profile) int64 {
	s := answer.DefaultSettle
	if p != nil && p.Settle != 0 {
		s = p.Settle
	}
	return max(0, s.Milliseconds())
}

// noSends says that no recorded action was a send, so every check of a
// send (new-group, send-turns, never-generating, …) was skipped, and names
// the actions after which a user turn appeared.
func noSends(opt Options, likely map[string]int, candidates []string) string {
	detail := fmt.Sprintf("the session records clicks or key presses, but none is on the send control (%s), so no check of a send ran", controlName(opt, "send"))
	if len(likely) == 0 {
		if len(candidates) > 0 {
			detail += "; the page's buttons: " + strings.Join(candidates, ", ")
		}
		return detail + "; no action was followed by a new user turn either: check turn.speaker's user values and the send control"
	}
	var names []string
	for n, c := range likely {
		names = append(names, fmt.Sprintf("%s (%d×)", n, c))
	}
	slices.Sort(names)
	return detail + "; a user turn appeared after " + strings.Join(names, ", ") + ": set the profile's \"send\" to that control"
}

// ownGenerating reports whether the profile's adapter, without the
// page-level signals, reads a group of doc generating: a send made while
// an answer streams (a site that queues messages) is no sign of a page
// signal that never clears.
func ownGenerating(p *site.Profile, doc *observe.Document) bool {
	if p.Adapter == nil {
		return false
	}
	return slices.ContainsFunc(p.Adapter.Groups(doc).Groups, func(g adapter.Group) bool { return g.State == adapter.StateGenerating })
}

// buttonsMax bounds the buttons a hint lists.
const buttonsMax = 6

// buttonsOn lists the page's visible buttons outside the turns, the
// likely send controls: role, name, and the element with its class for a
// button without a name (a selector's start).
func buttonsOn(o *observe.Observation) []string {
	if o == nil {
		return nil
	}
	var out []string
	for _, e := range o.All {
		if e.Role != "button" || e.Group != "" {
			continue
		}
		d := fmt.Sprintf("button %q", e.Name)
		if n := e.HTMLNode(); e.Name == "" && n != nil {
			d += " (" + describeNode(n) + ")"
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
		if len(out) == buttonsMax {
			break
		}
	}
	return out
}

// describeNode is an element's tag and class: `div class="thread"`.
func describeNode(n *html.Node) string {
	d := n.Data
	if c := observe.Attr(n, "class"); c != "" {
		d += " class=" + strconv.Quote(c)
	}
	return d
}

// onControl reports whether a recorded click is on the element of c.
func onControl(st replay.Step, o *observe.Observation, c site.Control) bool {
	if o == nil {
		return false
	}
	for _, e := range o.All {
		if e.Node != st.Node {
			continue
		}
		if c.Selector != "" {
			m, err := adapter.CompileSelector(c.Selector)
			n := e.HTMLNode()
			return err == nil && n != nil && m.Match(n)
		}
		return e.Role == c.Role && (c.Name == "" || e.Name == c.Name)
	}
	return false
}

// hasSends reports whether the session holds a click or key press.
func hasSends(s *replay.Session) bool {
	return slices.ContainsFunc(s.Steps, func(st replay.Step) bool { return st.Kind == replay.KindClick || st.Kind == replay.KindPress })
}

// actionName names a recorded click or press by its control's role and
// name, read from the capture before it.
func actionName(st replay.Step, o *observe.Observation) string {
	if st.Control != "" {
		return st.String()
	}
	if o != nil {
		for _, e := range o.All {
			if e.Node == st.Node {
				c := e.Role
				if e.Name != "" {
					c += fmt.Sprintf(" %q", e.Name)
				} else if n := e.HTMLNode(); n != nil {
					c += " <" + describeNode(n) + ">" // an icon button: its element
				}
				if st.Kind == replay.KindPress {
					return fmt.Sprintf("press %s in %s", st.Key, c)
				}
				return "click " + c
			}
		}
	}
	return st.String()
}

// stopShows reports whether the profile's stop control or a page-level
// generating signal is on the page (Stop replaces Send while streaming).
func stopShows(o *observe.Observation, doc *observe.Document, p *site.Profile) bool {
	if p == nil {
		for _, name := range []string{"Stop", "Stop generating", "Stop responding", "Stop streaming"} {
			if resolve(o, locate.Locator{Role: "button", Name: name}).Status == "ok" {
				return true
			}
		}
		return false
	}
	if !p.Stop.IsZero() && resolveControl(o, locate.Locator{}, p, "stop").Status == "ok" {
		return true
	}
	return doc != nil && p.PageSignal(doc) != ""
}

func (rep *Session) close(d *Decision) {
	rep.Decisions = append(rep.Decisions, *d)
	at := d.capture
	if at < 0 {
		at = len(rep.Captures) - 1
	}
	add := func(check, detail string) {
		rep.Violations = append(rep.Violations, Violation{Capture: at, Check: check, Detail: detail, Severity: SeverityError})
	}
	if d.Group == "" && d.Failure != "" {
		// the page's failure signal met the send (LIB-5): the library
		// added no answer, so no group and no assistant turn are due; at
		// most the send's own user turn stays (NLUX takes it away too)
		if !d.replace && d.capture >= 0 && d.structure && (d.UsersAdded > 1 || d.GroupsAdded > 0) {
			add(CheckSendTurns, fmt.Sprintf("after step %d (%s), which the page's failure signal met (%s), the send added %d user turns and %d assistant groups, want at most 1 and 0", d.Step, d.Action, d.Failure, d.UsersAdded, d.GroupsAdded))
		}
		return
	}
	if d.Group == "" {
		add(CheckNewGroup, fmt.Sprintf("after step %d (%s) no group outside the baseline of %d appeared", d.Step, d.Action, len(d.Baseline)))
	}
	if d.replace {
		// a regenerate or retry adds no user turn: the new group takes the
		// old one's place
		if d.Group != "" && d.streamed && !slices.Contains(d.States, adapter.StateGenerating) {
			add(CheckGenerating, fmt.Sprintf("after step %d (%s) the new group %s streamed but never showed a generating state (states %s): the generating signals probably match nothing", d.Step, d.Action, d.Group, strings.Join(d.States, " → ")))
		}
		return
	}
	if d.Typed != "" && d.Group != "" && observe.Normalize(d.Text) == observe.Normalize(d.Typed) {
		add(CheckSwapped, fmt.Sprintf("after step %d (%s) the new group %s holds exactly what was typed (%q): the user's turn is read as the assistant's; swap the assistant and user values of turn.speaker", d.Step, d.Action, d.Group, cut(d.Typed)))
	}
	if d.capture >= 0 && d.structure && (d.UsersAdded != 1 || d.GroupsAdded+d.failedGone != 1) {
		detail := fmt.Sprintf("after step %d (%s) the send added %d user turns and %d assistant groups, want 1 and 1", d.Step, d.Action, d.UsersAdded, d.GroupsAdded)
		if d.failedGone > 0 {
			detail += fmt.Sprintf(" (besides %d failed answers the site took away)", d.failedGone)
		}
		if d.speakers != "" {
			detail += "; speaker values seen: " + d.speakers + "; a turn whose value is in neither turn.speaker list is dropped: list an answering persona's value under assistant, the person's under user"
		}
		add(CheckSendTurns, detail)
	}
	// an answer that arrives whole (no stream: one text from its first
	// capture on, no stop control or generating signal beside it) is
	// correct without a generating state
	if d.Group != "" && d.streamed && !slices.Contains(d.States, adapter.StateGenerating) {
		add(CheckGenerating, fmt.Sprintf("after step %d (%s) the new group %s streamed (its text changed from capture to capture, or the page's stop control showed) but never showed a generating state (states %s): the generating signals (states.generating, or the profile's page-level generating) probably match nothing; check them on a capture taken while it streamed", d.Step, d.Action, d.Group, strings.Join(d.States, " → ")))
	}
}

// baselineOf is the engine's baseline of a send: the groups ids before
// it, and the page-level failure signal the page showed then.
func baselineOf(ids []string, failure string) answer.Baseline {
	return answer.NewBaseline(adapter.Result{Groups: groupsOf(ids), Failure: failure})
}

func groupsOf(ids []string) []adapter.Group {
	out := make([]adapter.Group, len(ids))
	for i, id := range ids {
		out[i] = adapter.Group{ID: id}
	}
	return out
}

func ids(gs []Group) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.ID
	}
	return out
}

func read(s *replay.Session, ci int, ad adapter.Adapter) (adapter.Result, *observe.Observation, *observe.Document) {
	doc, err := observe.Parse(s.Captures[ci])
	if err != nil {
		return adapter.Result{Adapter: ad.Name()}, nil, nil
	}
	res := ad.Groups(doc)
	return res, observe.Observe(doc, ci+1, observe.Options{GroupOf: res.GroupOf(), GroupRoots: res.GroupRoots()}), doc
}

// boundaries reports turns that hold the composer or a user turn, and
// turns nested in one another.
func boundaries(o *observe.Observation, res adapter.Result) []string {
	if o == nil {
		return nil
	}
	var out []string
	inside := func(g adapter.Group, n *html.Node) bool {
		nodes := g.Nodes
		if len(nodes) == 0 && g.Node != nil {
			nodes = []*html.Node{g.Node}
		}
		for _, root := range nodes {
			for c := n; c != nil; c = c.Parent {
				if c == root {
					return true
				}
			}
		}
		return false
	}
	for _, g := range res.Groups {
		for _, e := range o.All {
			if observe.IsEditor(e.Role) && inside(g, e.HTMLNode()) {
				out = append(out, fmt.Sprintf("group %s holds the editor %s %q", g.ID, e.Role, e.Name))
				break
			}
		}
		for _, u := range res.Users {
			if inside(g, u) {
				out = append(out, fmt.Sprintf("group %s holds a user turn (two speakers in one turn)", g.ID))
				break
			}
		}
		for _, h := range res.Groups {
			if h.ID != g.ID && h.Node != nil && inside(g, h.Node) {
				out = append(out, fmt.Sprintf("group %s holds group %s", g.ID, h.ID))
			}
		}
	}
	return out
}

func resolve(o *observe.Observation, l locate.Locator) Resolve {
	if o == nil {
		return Resolve{Status: "UNREADABLE"}
	}
	if _, err := locate.Resolve(o, l); err != nil {
		r := Resolve{Status: string(errcode.Of(err))}
		var le *locate.Error
		if errors.As(err, &le) {
			r.Count, r.Candidates = le.Count, le.Candidates
		}
		return r
	}
	return Resolve{Status: "ok"}
}

// resolveControl resolves the profile's control of that kind (composer,
// send, stop), or l without a profile.
func resolveControl(o *observe.Observation, l locate.Locator, p *site.Profile, kind string) Resolve {
	if p == nil {
		return resolve(o, l)
	}
	c := map[string]site.Control{"composer": p.Composer, "send": p.Send, "stop": p.Stop}[kind]
	if c.Selector == "" {
		if c.Role == "" {
			return Resolve{Status: "ok"} // send by Enter with no control named
		}
		return resolve(o, locate.Locator{Role: c.Role, Name: c.Name})
	}
	if o == nil {
		return Resolve{Status: "UNREADABLE"}
	}
	m, err := adapter.CompileSelector(c.Selector)
	if err != nil {
		return Resolve{Status: string(locate.InvalidLocator)}
	}
	var found []observe.Element
	for _, e := range o.All {
		if n := e.HTMLNode(); n != nil && m.Match(n) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 1:
		return Resolve{Status: "ok"}
	case 0:
		return Resolve{Status: string(locate.TargetNotFound)}
	}
	r := Resolve{Status: string(locate.TargetAmbiguous), Count: len(found)}
	for i, e := range found {
		if i == 5 {
			break
		}
		r.Candidates = append(r.Candidates, locate.Describe(e))
	}
	return r
}

func controlName(opt Options, kind string) string {
	if opt.Profile != nil {
		c := map[string]site.Control{"composer": opt.Profile.Composer, "send": opt.Profile.Send}[kind]
		return kind + " " + c.String()
	}
	if kind == "composer" {
		return opt.Composer.String()
	}
	return opt.Send.String()
}

func describe(r Resolve) string {
	out := r.Status
	if r.Count > 0 {
		out = fmt.Sprintf("%s (%d matches)", r.Status, r.Count)
	}
	if len(r.Candidates) > 0 {
		out += ": " + strings.Join(r.Candidates, "; ")
	}
	return out
}

func cut(s string) string {
	r := []rune(s)
	if len(r) > textMax {
		return string(r[:textMax]) + "…"
	}
	return s
}

// Text renders a report for people: per session one line per capture
// (its groups in short) and per send, then one line per kind of violation
// with the captures it spans.
func Text(reps []Session) string { return render(reps, false) }

// Quiet renders only each session's totals and its grouped violations.
func Quiet(reps []Session) string { return render(reps, true) }

func render(reps []Session, quiet bool) string {
	var b strings.Builder
	total, warnings := 0, 0
	for _, r := range reps {
		errs := r.Errors()
		fmt.Fprintf(&b, "== %s: %d captures, %d sends, %d violations", r.File, len(r.Captures), len(r.Decisions), errs)
		if w := len(r.Violations) - errs; w > 0 {
			fmt.Fprintf(&b, ", %d warnings", w)
		}
		b.WriteString("\n")
		if !quiet {
			for _, c := range r.Captures {
				fmt.Fprintf(&b, "capture %d (step %d, +%d ms) %s: %d groups", c.Index, c.Step, c.AtMS, c.Adapter, len(c.Groups))
				if n := len(c.Groups); n > 0 {
					g := c.Groups[n-1]
					fmt.Fprintf(&b, ", last %s %s %q", g.ID, g.State, g.Text)
				}
				fmt.Fprintf(&b, "; composer %s; send %s\n", describe(c.Composer), describe(c.Send))
			}
			for _, d := range r.Decisions {
				if d.Group != "" {
					fmt.Fprintf(&b, "send at step %d (%s): baseline %d groups → new group %s, states %s\n", d.Step, d.Action, len(d.Baseline), d.Group, strings.Join(d.States, " → "))
				} else {
					fmt.Fprintf(&b, "send at step %d (%s): baseline %d groups → no new group\n", d.Step, d.Action, len(d.Baseline))
				}
			}
		}
		for _, g := range groupViolations(r.Violations) {
			label := "VIOLATION"
			if g.severity == SeverityWarning {
				label = "WARNING"
			}
			fmt.Fprintf(&b, "%s [%s] %s: %s\n", label, g.check, spans(g.captures), g.detail)
		}
		total += errs
		warnings += len(r.Violations) - errs
	}
	switch {
	case total == 0 && warnings == 0:
		b.WriteString("conformance: ok\n")
	case total == 0:
		fmt.Fprintf(&b, "conformance: ok (%d warnings)\n", warnings)
	default:
		fmt.Fprintf(&b, "conformance: %d violations\n", total)
	}
	return b.String()
}

type violationGroup struct {
	check, severity, detail string
	captures                []int
}

// groupViolations folds violations by check, in first-seen order, keeping
// the first detail and every capture.
func groupViolations(vs []Violation) []*violationGroup {
	var out []*violationGroup
	by := map[string]*violationGroup{}
	for _, v := range vs {
		g, ok := by[v.Check]
		if !ok {
			g = &violationGroup{check: v.Check, severity: v.Severity, detail: v.Detail}
			by[v.Check] = g
			out = append(out, g)
		}
		if n := len(g.captures); n == 0 || g.captures[n-1] != v.Capture {
			g.captures = append(g.captures, v.Capture)
		}
	}
	return out
}

// spans renders capture indexes as ranges: "capture 3", "captures 0–4, 7
// (6×)".
func spans(cs []int) string {
	if len(cs) == 1 {
		return fmt.Sprintf("capture %d", cs[0])
	}
	var parts []string
	for i := 0; i < len(cs); {
		j := i
		for j+1 < len(cs) && cs[j+1] == cs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", cs[i], cs[j]))
		} else {
			parts = append(parts, fmt.Sprint(cs[i]))
		}
		i = j + 1
	}
	return fmt.Sprintf("captures %s (%d×)", strings.Join(parts, ", "), len(cs))
}
