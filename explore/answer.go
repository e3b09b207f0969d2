package explore

import (
	"context"
	"errors"
	"fmt"
	"html"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/sim"
)

// Answer waits (SPEC §3): each seed also draws Options.Answers scripted
// chat pages. One is generated from the sim's own turn markup
// (sim.RenderTurn inside sim.RenderChat's page), with the live state a
// browser capture writes (node ids, the typed value, media readiness),
// and changes only when the lab clock (engine/clock) reaches a scripted
// transition. The real engine opens it, fills the composer, presses Enter
// expecting a new answer and waits for it, through a replay.Recorder; the
// recorded session is then replayed with the replay driver and must give
// the same result. The result is checked against what the script implies.

// EventKind is one scripted transition of a chat page after the send.
type EventKind string

// Transitions.
const (
	EvStart   EventKind = "start"   // the new answer appears, generating, with partial text
	EvPartial EventKind = "partial" // more partial text
	EvFinal   EventKind = "final"   // the answer completes
	EvConfirm EventKind = "confirm" // the answer ends asking for confirmation
	EvError   EventKind = "error"   // the answer ends with an error and Retry
	EvMedia   EventKind = "media"   // the answer's media gets its source (ready)
	EvHistory EventKind = "history" // N earlier exchanges are loaded above the baseline
)

// PageEvent is one transition, At after the send.
type PageEvent struct {
	At   time.Duration
	Kind EventKind
	N    int // partial: words; history: exchanges
}

func (e PageEvent) String() string {
	s := fmt.Sprintf("%s@%dms", e.Kind, e.At.Milliseconds())
	if e.N > 0 {
		s += fmt.Sprintf("(%d)", e.N)
	}
	return s
}

// AnswerCase is one scripted chat page and what happens on it after the
// send.
type AnswerCase struct {
	Style      string // sim.StyleMarker or sim.StyleHeading
	History    int    // earlier turns, alternating user and assistant (even)
	LongLast   bool   // the last earlier answer is long and complete
	StaleMedia string // ready media of this kind in the last earlier answer
	PageMedia  string // media the new answer carries ("" none)
	Media      string // media the wait requires ("" none)
	SameText   bool   // the new answer's text equals the last earlier answer's (ANS-4)
	// UserAt is when the sent message's turn appears after the send; every
	// transition of the answer comes later.
	UserAt  time.Duration
	Timeout time.Duration
	Events  []PageEvent
}

func (c AnswerCase) String() string {
	var ev []string
	for _, e := range c.Events {
		ev = append(ev, e.String())
	}
	s := fmt.Sprintf("%s history=%d", c.Style, c.History)
	if c.LongLast {
		s += " long-last"
	}
	if c.StaleMedia != "" {
		s += " stale-" + c.StaleMedia
	}
	if c.PageMedia != "" {
		s += " page-" + c.PageMedia
	}
	if c.Media != "" {
		s += " wait-" + c.Media
	}
	if c.SameText {
		s += " same-text"
	}
	return fmt.Sprintf("%s timeout=%dms [user@%dms %s]", s, c.Timeout.Milliseconds(), c.UserAt.Milliseconds(), strings.Join(ev, " "))
}

// Answer case bounds.
const (
	// AnswersMax bounds the answer cases of one seed.
	AnswersMax = 100
	// PartialsMax bounds the partial updates of one answer.
	PartialsMax = 6
	// HistoryMax bounds the earlier turns of a page.
	HistoryMax = 12
	// grid: every transition lies on 10k+3 ms after the send and every
	// deadline on 10k+8 ms, so no transition ties with a deadline.
	gridMS   = 10
	eventOff = 3 * time.Millisecond
)

// GenerateAnswer draws answer case i of a seed from its own PCG stream, so
// the ledger schedule of a seed does not depend on how many cases follow.
func GenerateAnswer(seed uint64, i int) AnswerCase {
	r := rand.New(rand.NewPCG(seed, 0xa115_0000+uint64(i)))
	at := func(lo, hi int) time.Duration { // a grid instant in [lo, hi] ms
		k := lo/gridMS + r.IntN(max(1, (hi-lo)/gridMS+1))
		return time.Duration(k*gridMS)*time.Millisecond + eventOff
	}
	c := AnswerCase{Style: sim.StyleMarker, History: 2 * r.IntN(HistoryMax/2+1)}
	if r.Float64() < 0.4 {
		c.Style = sim.StyleHeading
	}
	c.LongLast = c.History > 0 && r.Float64() < 0.3
	if c.History > 0 && r.Float64() < 0.3 {
		c.StaleMedia = []string{sim.MediaVideo, sim.MediaImage}[r.IntN(2)]
	}
	c.SameText = c.History > 0 && !c.LongLast && r.Float64() < 0.15
	c.Timeout = time.Duration(1+r.IntN(8))*time.Second + 5*time.Millisecond
	c.UserAt = at(0, 300)
	end := "final"
	switch u := r.Float64(); {
	case u < 0.1:
		end = "none"
	case u < 0.2:
		end = "confirm"
	case u < 0.3:
		end = "error"
	}
	if end == "none" {
		c.addHistory(r, at)
		return c
	}
	// stream: start, partials, end; sometimes past the deadline
	t := c.UserAt + at(10, 3000) - eventOff
	if r.Float64() < 0.85 {
		c.Events = append(c.Events, PageEvent{At: t, Kind: EvStart, N: 1 + r.IntN(4)})
		for range r.IntN(PartialsMax + 1) {
			t += at(10, 800) - eventOff
			c.Events = append(c.Events, PageEvent{At: t, Kind: EvPartial, N: 2 + r.IntN(6)})
		}
	}
	t += at(10, 4000) - eventOff
	kind := map[string]EventKind{"final": EvFinal, "confirm": EvConfirm, "error": EvError}[end]
	c.Events = append(c.Events, PageEvent{At: t, Kind: kind})
	if end == "final" {
		if r.Float64() < 0.5 {
			c.PageMedia = []string{sim.MediaVideo, sim.MediaImage}[r.IntN(2)]
		}
		if r.Float64() < 0.6 {
			c.Media = c.PageMedia
			if c.Media == "" || r.Float64() < 0.2 {
				c.Media = []string{sim.MediaVideo, sim.MediaImage}[r.IntN(2)]
			}
		}
		if c.PageMedia != "" {
			switch u := r.Float64(); {
			case u < 0.35: // ready as it completes
				c.Events = append(c.Events, PageEvent{At: t, Kind: EvMedia})
			case u < 0.8: // late, maybe past the deadline
				c.Events = append(c.Events, PageEvent{At: t + at(10, 5000) - eventOff, Kind: EvMedia})
			} // else never
		}
	}
	c.addHistory(r, at)
	return c
}

// addHistory sometimes loads earlier exchanges above the baseline while
// waiting: only on a chat that has earlier turns (a new chat has no older
// history, and with an empty baseline nothing tells old groups from new),
// and only in the marker style: heading-style group ids are positional
// (ANS-2's documented rule), so turns inserted above renumber every group
// and no reader of the page can tell old from new by id.
func (c *AnswerCase) addHistory(r *rand.Rand, at func(lo, hi int) time.Duration) {
	if c.Style != sim.StyleMarker || c.History == 0 || r.Float64() >= 0.3 {
		return
	}
	e := PageEvent{At: at(0, 6000), Kind: EvHistory, N: 1 + r.IntN(3)}
	i, _ := slices.BinarySearchFunc(c.Events, e, func(a, b PageEvent) int { return int(a.At - b.At) })
	for i < len(c.Events) && c.Events[i].At == e.At {
		i++
	}
	c.Events = slices.Insert(c.Events, i, e)
}

// AnswerOutcome is what the engine read on one case.
type AnswerOutcome struct {
	Line      string
	Violation *Violation
}

// expected is what the script implies the wait ends with (the oracle).
type expected struct {
	status string
	states []string
	text   string
	newID  string // the marker-style id of the new answer ("" heading or none)
}

// answerPage is a scripted chat page on the lab clock: an engine.Driver.
type answerPage struct {
	lab *clock.Lab
	c   AnswerCase
	url string

	mu        sync.Mutex
	history   []sim.Turn
	prepended []sim.Turn
	user      *sim.Turn
	ans       *sim.Turn
	gen       bool
	words     int
	typed     string
	sent      bool
	pending   []clock.Timer
}

const answerPrompt = "Please answer the explorer"

func newAnswerPage(c AnswerCase) *answerPage {
	chat := sim.Chat{Style: c.Style, History: c.History, Seed: 1}
	if c.LongLast {
		chat.LongLastAnswer = 600
	}
	chat.LastAnswerMedia = c.StaleMedia
	return &answerPage{lab: clock.NewLab(clock.Epoch), c: c, url: "http://sim.test/chat", history: chat.HistoryTurns()}
}

func (p *answerPage) Navigate(ctx context.Context, url string) error {
	if url != p.url {
		return fmt.Errorf("explore: the scripted page is %s, not %s", p.url, url)
	}
	return nil
}

func (p *answerPage) Click(ctx context.Context, node string) error {
	if node == "s-send" {
		p.send()
		return nil
	}
	return fmt.Errorf("explore: click on node %s: nothing scripted there", node)
}

func (p *answerPage) Type(ctx context.Context, node, text string) error {
	if node != "s-prompt" {
		return fmt.Errorf("explore: type into node %s: not the composer", node)
	}
	p.mu.Lock()
	p.typed += text
	p.mu.Unlock()
	return nil
}

func (p *answerPage) Press(ctx context.Context, node, key string) error {
	if node == "s-prompt" && key == "Enter" {
		p.send()
		return nil
	}
	return fmt.Errorf("explore: press %s on node %s: nothing scripted there", key, node)
}

func (p *answerPage) Now() time.Time { return p.lab.Now() }

func (p *answerPage) Sleep(ctx context.Context, d time.Duration) error { return p.lab.Sleep(ctx, d) }

// SleepsToTransitions tells the engine (engine.Scheduled) that Sleep
// wakes at the page's next scripted transition: the page is on a lab
// clock.
func (p *answerPage) SleepsToTransitions() bool { return true }

// send schedules the case's transitions on the lab clock.
func (p *answerPage) send() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sent || strings.TrimSpace(p.typed) == "" {
		return
	}
	p.sent = true
	p.pending = append(p.pending, p.lab.AfterFunc(p.c.UserAt, func() {
		p.mu.Lock()
		p.user = &sim.Turn{ID: fmt.Sprintf("msg-%04d", p.c.History+1), Author: "user", Text: answerPrompt}
		p.mu.Unlock()
	}))
	for _, e := range p.c.Events {
		p.pending = append(p.pending, p.lab.AfterFunc(e.At, func() { p.apply(e) }))
	}
}

// answerText is the new answer's text after n words (final: n < 0).
func (p *answerPage) answerText(n int) string {
	if n < 0 {
		if p.c.SameText {
			for i := len(p.history) - 1; i >= 0; i-- {
				if p.history[i].Author == "assistant" {
					return p.history[i].Text
				}
			}
		}
		return "Final answer: " + strings.Join(answerWords[:8], " ") + "."
	}
	return "Partial: " + strings.Join(answerWords[:min(n, len(answerWords))], " ")
}

var answerWords = strings.Fields("amber basalt cedar dune ember fjord glacier heath isle jade karst loam mesa")

func (p *answerPage) newTurn() *sim.Turn {
	return &sim.Turn{ID: fmt.Sprintf("msg-%04d", p.c.History+2), Author: "assistant"}
}

func (p *answerPage) apply(e PageEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case EvStart, EvPartial:
		if p.ans == nil {
			p.ans, p.gen = p.newTurn(), true
		}
		if !p.gen {
			return
		}
		p.words = min(p.words+e.N, len(answerWords))
		p.ans.Text = p.answerText(p.words)
	case EvFinal, EvConfirm, EvError:
		if p.ans == nil {
			p.ans = p.newTurn()
		}
		p.gen = false
		p.ans.Text = p.answerText(-1)
		p.ans.Media = p.c.PageMedia
		switch e.Kind {
		case EvConfirm:
			p.ans.Kind, p.ans.Text, p.ans.Media = sim.KindConfirm, "Shall I go ahead?", ""
		case EvError:
			p.ans.Kind, p.ans.Text, p.ans.Media = sim.KindError, "", ""
		}
	case EvMedia:
		if p.ans != nil && !p.gen && p.ans.Media != "" {
			p.ans.MediaSrc = mediaSource(p.ans.Media)
		}
	case EvHistory:
		base := len(p.prepended)
		for k := range e.N {
			n := base/2 + k + 1
			p.prepended = append([]sim.Turn{
				{ID: fmt.Sprintf("old-%04d-q", n), Author: "user", Text: fmt.Sprintf("Older question %d?", n)},
				{ID: fmt.Sprintf("old-%04d-a", n), Author: "assistant", Text: fmt.Sprintf("Older answer %d, complete and long enough to look like the answer.", n)},
			}, p.prepended...)
		}
	}
}

func mediaSource(kind string) string {
	if kind == sim.MediaImage {
		return sim.ImageSrc
	}
	return sim.VideoSrc
}

// Capture renders the page as it stands at the lab's current instant.
func (p *answerPage) Capture(ctx context.Context) (*capture.Capture, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	shell := sim.RenderChat(sim.Chat{Style: p.c.Style}, nil)
	const open = `<div id="thread">` + "\n"
	i := strings.Index(shell, open)
	if i < 0 {
		return nil, fmt.Errorf("explore: the sim's chat page has no %q to put turns in", strings.TrimSpace(open))
	}
	var b strings.Builder
	b.WriteString(withNodes("s-", shell[:i+len(open)]))
	turns := slices.Concat(p.prepended, p.history)
	if p.user != nil {
		turns = append(turns, *p.user)
	}
	for _, t := range turns {
		b.WriteString(withNodes(t.ID+"-", liveMedia(sim.RenderTurn(p.c.Style, t, false))) + "\n")
	}
	if p.ans != nil {
		b.WriteString(withNodes(p.ans.ID+"-", liveMedia(sim.RenderTurn(p.c.Style, *p.ans, p.gen))) + "\n")
	}
	rest := withNodes("s-", shell[i+len(open):])
	rest = strings.Replace(rest, `<textarea data-rl-node="s-prompt"`, `<textarea data-rl-node="s-prompt" `+capture.AttrValue+`="`+html.EscapeString(p.typed)+`"`, 1)
	b.WriteString(rest)
	return &capture.Capture{Version: capture.FormatVersion, URL: p.url, Title: "Sim Chat",
		Frames: []capture.Frame{{ID: capture.MainFrame, URL: p.url, HTML: b.String()}}}, nil
}

// withNodes gives every element a stable data-rl-node id: prefix plus its
// index in the piece, or its id attribute for the page's own controls.
func withNodes(prefix, s string) string {
	var b strings.Builder
	k := 0
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] != '<' || i+1 >= len(s) || !isLetter(s[i+1]) {
			continue
		}
		j := i + 1
		for j < len(s) && (isLetter(s[j]) || (s[j] >= '0' && s[j] <= '9')) {
			j++
		}
		b.WriteString(s[i+1 : j])
		id := fmt.Sprintf("%s%d", prefix, k)
		if tag := s[i+1 : j]; prefix == "s-" && (tag == "textarea" || tag == "button") {
			if m := strings.Index(s[j:], `id="`); m >= 0 && m < strings.IndexByte(s[j:], '>') {
				rest := s[j+m+4:]
				id = "s-" + rest[:strings.IndexByte(rest, '"')]
			}
		}
		fmt.Fprintf(&b, ` %s="%s"`, capture.AttrNode, id)
		k++
		i = j - 1
	}
	return b.String()
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// liveMedia writes the readiness a browser capture records: media with a
// source is ready (video readyState 4, image loaded 64x48), without one it
// is not.
func liveMedia(s string) string {
	ready := func(tag, attrs string) func(string) string {
		return func(s string) string { return strings.ReplaceAll(s, "<"+tag+" src=", "<"+tag+" "+attrs+" src=") }
	}
	s = ready("video", capture.AttrMediaReady+`="4" `+capture.AttrMediaSrc+`="`+sim.VideoSrc+`"`)(s)
	s = ready("img", capture.AttrMediaReady+`="complete" `+capture.AttrSize+`="64x48"`)(s)
	s = strings.ReplaceAll(s, "<video data-src=", "<video "+capture.AttrMediaReady+`="0" data-src=`)
	s = strings.ReplaceAll(s, "<img data-src=", "<img "+capture.AttrMediaReady+`="loading" data-src=`)
	return s
}

// adapterFor is the built-in adapter of a style.
func adapterFor(style string) adapter.Adapter {
	if style == sim.StyleHeading {
		return adapter.DefaultHeading
	}
	return adapter.DefaultMarker
}

// waitOn runs the engine's send and wait on d: fill the composer, press
// Enter expecting a new answer (an OUTCOME_UNKNOWN there is the script's
// business, not an error), wait for the answer.
func waitOn(ctx context.Context, c AnswerCase, d engine.Driver, url string) (answer.Result, error) {
	e := engine.New(engine.Config{Adapter: adapterFor(c.Style)})
	task := e.Begin(ctx, "explore: wait for the new answer")
	page := task.Page("main", d)
	if err := page.Navigate(ctx, url); err != nil {
		return answer.Result{}, err
	}
	box := engine.ByRole("textbox", "Message")
	if err := page.Fill(ctx, box, answerPrompt); err != nil {
		return answer.Result{}, err
	}
	if err := page.Press(ctx, box, "Enter", engine.Expect{NewAnswer: true}); err != nil && !errors.Is(err, engine.OutcomeUnknown) {
		return answer.Result{}, err
	}
	return page.WaitAnswer(ctx, answer.Options{Timeout: c.Timeout, Media: c.Media})
}

// RunAnswer runs one case live on the lab clock (recording it) and again
// from the recording under the replay driver, and checks both results.
func RunAnswer(ctx context.Context, c AnswerCase) (AnswerOutcome, error) {
	live := newAnswerPage(c)
	rec := replay.NewRecorder(live, "http://sim.test", replay.Hooks{})
	rec.SetClock(replay.ClockLab) // offsets are lab time: the replay wakes at each recorded capture
	got, err := waitOn(ctx, c, rec, live.url)
	if err != nil {
		return AnswerOutcome{}, fmt.Errorf("explore: answer wait (lab): %w", err)
	}
	want := live.oracle()
	out := AnswerOutcome{Line: fmt.Sprintf("%s → %s states=%s", c, got.Status, strings.Join(got.States, ">"))}
	if v := checkAnswer(c, got, want, "lab"); v != nil {
		out.Violation = v
		return out, nil
	}
	replayed, err := waitOn(ctx, c, replay.NewDriver(rec.Session()), live.url)
	if err != nil {
		out.Violation = &Violation{Invariant: InvAnswerReplay, Detail: fmt.Sprintf("the replay of the recorded wait failed: %v", err)}
		return out, nil
	}
	if a, b := resultLine(got), resultLine(replayed); a != b {
		out.Violation = &Violation{Invariant: InvAnswerReplay, Detail: fmt.Sprintf("live %s, replayed %s", a, b)}
	}
	return out, nil
}

func resultLine(r answer.Result) string {
	return fmt.Sprintf("status=%s group=%s states=%s text=%q evidence=%q", r.Status, r.GroupID, strings.Join(r.States, ">"), r.Text, r.Evidence)
}

// oracle derives the expected result from the script alone: the instant
// the press's outcome wait ends (the new answer appears, or the engine's
// outcome timeout), the deadline after it, and the new answer's state at
// the first instant the wait may end.
func (p *answerPage) oracle() expected {
	c := p.c
	var start, final, media time.Duration = -1, -1, -1
	var end EventKind
	for _, e := range c.Events {
		switch e.Kind {
		case EvStart, EvPartial:
			if start < 0 && end == "" {
				start = e.At
			}
		case EvFinal, EvConfirm, EvError:
			if end == "" {
				end, final = e.Kind, e.At
				if start < 0 {
					start = e.At
				}
			}
		case EvMedia:
			if media < 0 && final >= 0 {
				media = max(e.At, final)
			}
		}
	}
	outcome := engine.DefaultOutcomeTimeout
	if start >= 0 && start < outcome {
		outcome = start
	}
	deadline := outcome + c.Timeout
	var x expected
	if start < 0 || start > deadline {
		x.status = answer.StatusNoNewAnswer
		return x
	}
	if c.Style == sim.StyleMarker {
		x.newID = fmt.Sprintf("msg-%04d", c.History+2)
	}
	generated := start < final || final < 0
	if generated {
		x.states = []string{adapter.StateGenerating}
	}
	if final < 0 || final > deadline {
		x.status, x.text = answer.StatusIncomplete, p.partialAt(deadline)
		return x
	}
	switch end {
	case EvConfirm:
		x.status, x.text = answer.StatusNeedsConfirmation, "Shall I go ahead?"
		x.states = append(x.states, adapter.StateNeedsConfirmation)
		return x
	case EvError:
		x.status = answer.StatusFailed
		x.states = append(x.states, adapter.StateFailed)
		return x
	}
	x.states = append(x.states, adapter.StateComplete)
	x.text = p.answerText(-1)
	switch {
	case c.Media == "":
		x.status = answer.StatusComplete
	case c.PageMedia == c.Media && media >= 0 && media <= deadline:
		x.status = answer.StatusComplete
	default:
		x.status = answer.StatusMediaNotReady
	}
	return x
}

// partialAt is the new answer's partial text at t.
func (p *answerPage) partialAt(t time.Duration) string {
	n := 0
	for _, e := range p.c.Events {
		if e.At <= t && (e.Kind == EvStart || e.Kind == EvPartial) {
			n = min(n+e.N, len(answerWords))
		}
	}
	return p.answerText(n)
}

// checkAnswer checks one wait's result against the oracle.
func checkAnswer(c AnswerCase, got answer.Result, want expected, driver string) *Violation {
	viol := func(inv Invariant, format string, args ...any) *Violation {
		return &Violation{Invariant: inv, Detail: driver + ": " + fmt.Sprintf(format, args...)}
	}
	if strings.HasPrefix(got.GroupID, "old-") {
		return viol(InvNewAnswer, "took %s, a group loaded above the baseline while waiting", got.GroupID)
	}
	if want.status == answer.StatusNoNewAnswer && got.GroupID != "" {
		return viol(InvNewAnswer, "took group %s (%s) but the script never created a new answer", got.GroupID, got.Status)
	}
	if want.newID != "" && got.GroupID != "" && got.GroupID != want.newID {
		return viol(InvNewAnswer, "took group %s, the new answer is %s", got.GroupID, want.newID)
	}
	if got.Status == answer.StatusComplete && c.Media != "" {
		ready := false
		for _, m := range got.Media {
			ready = ready || (m.Kind == c.Media && m.Ready)
		}
		if !ready || c.PageMedia != c.Media {
			return viol(InvMediaNew, "complete with %s required but the new group holds no ready %s (page media %q, stale %q)", c.Media, c.Media, c.PageMedia, c.StaleMedia)
		}
	}
	if got.Status != want.status {
		return viol(InvAnswerStatus, "status %s, want %s (evidence %q)", got.Status, want.status, got.Evidence)
	}
	if want.status != answer.StatusNoNewAnswer && !slices.Equal(got.States, want.states) {
		return viol(InvAnswerStatus, "states %s, want %s", strings.Join(got.States, ">"), strings.Join(want.states, ">"))
	}
	if want.text != "" && got.Text != want.text {
		return viol(InvAnswerStatus, "text %q, want %q", got.Text, want.text)
	}
	return nil
}
