package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Styles of chat markup.
const (
	// StyleMarker: turns carry data-message-author-role and data-message-id.
	StyleMarker = "marker"
	// StyleHeading: no data markers; each turn opens with a screen-reader
	// heading "You said:" or "Sim said:".
	StyleHeading = "heading"
	// StyleList: turns are list items of an <ol>; the speaker is an
	// attribute of a child (<span class="who" data-speaker="bot">), the id
	// is the item's data-entry, generating is data-state="streaming" with a
	// spinner, media sits in a nested figure. No built-in adapter reads it:
	// docs/examples/listchat.json does (the worked example of
	// docs/adapters.md).
	StyleList = "list"
)

// Styles lists the markup styles the sim renders.
var Styles = []string{StyleMarker, StyleHeading, StyleList}

// Answer kinds.
const (
	KindText    = "text"    // a normal answer
	KindConfirm = "confirm" // asks for confirmation (Confirm / Cancel)
	KindError   = "error"   // fails with an error and a Retry control
	KindNone    = "none"    // the message arrives but no answer turn ever appears
)

// Media kinds.
const (
	MediaVideo = "video"
	MediaImage = "image"
)

// Chat is the script of one chat page.
type Chat struct {
	Style string
	// History is the number of earlier turns, alternating user and
	// assistant, starting with the user.
	History int
	// LongLastAnswer, when > 0, makes the last earlier assistant turn a
	// complete answer of this many characters.
	LongLastAnswer int
	// HistoryImages puts a loaded image in every third earlier answer.
	HistoryImages bool
	// LastAnswerMedia puts ready media of this kind in the last earlier
	// assistant turn (the stale video case).
	LastAnswerMedia string
	// LastAnswerMediaPending keeps that media without a source for ever
	// (an older video that is not ready; sim/vocab_chat.go).
	LastAnswerMediaPending bool
	// LastAnswerGenerating leaves the last earlier assistant turn stuck
	// generating: its partial text with the generating signals.
	LastAnswerGenerating bool
	// DuplicateSend adds a second button named "Send" to the chat page
	// (ambiguity on the composer's own controls).
	DuplicateSend bool
	// Regenerate puts a "Regenerate" control on the newest complete
	// answer the chat added; a click replaces that answer in place, under
	// a new id, by the next scripted answer (sim/vocab_chat.go).
	Regenerate bool
	// Hidden is how many of the earlier turns (the first ones) are not in
	// the thread when the page loads: the page starts scrolled to its
	// bottom and shows them above the thread only once it is scrolled to
	// its top (a lazily loaded history).
	Hidden int
	// KeepPrompt leaves the composer's text after a send, so a second
	// click on Send (a double click) sends the message again.
	KeepPrompt bool
	// Answers are the scripted replies to successive sends; a send past
	// the end gets DefaultAnswer.
	Answers []Answer
	Seed    int64
}

// Answer is one scripted reply.
type Answer struct {
	// Partial is shown with a generating indicator for Generate, then
	// replaced by Final in the same group.
	Partial  string
	Final    string
	Generate time.Duration
	Kind     string // KindText (default), KindConfirm or KindError
	// Media, when set, adds media of that kind to the final answer; its
	// source is attached MediaDelay after completion, so it becomes ready
	// then. NoMediaSource keeps it without a source for ever.
	Media         string
	MediaDelay    time.Duration
	NoMediaSource bool
	// Confirmed and Cancelled are what a KindConfirm answer becomes when
	// the user clicks its Confirm or Cancel button (sim/vocab_chat.go);
	// empty: DefaultConfirmed and DefaultCancelled.
	Confirmed string
	Cancelled string
	// Pause, when > 0, follows the Generate of the partial text: for that
	// long the turn shows the partial text with no visible generating
	// indicator (no typing indicator, no stop control), then Final.
	// PauseBusy keeps aria-busy="true" on the turn meanwhile (a signal
	// no one sees); without it the pause has no generating signal at all.
	Pause     time.Duration
	PauseBusy bool
	// NavigateTo, when set, is a path the chat page navigates itself to
	// (a real navigation, as a site's script moves a new chat to its own
	// address) NavigateAt after the send, while the answer streams; the
	// page there shows the same thread and the answer goes on.
	NavigateTo string
	NavigateAt time.Duration
	// Labels name a KindConfirm answer's go-ahead and way-out controls
	// (empty: "Confirm" and "Cancel") and a KindError answer's message and
	// retry control (empty: DefaultErrorText and "Retry").
	Labels Labels
}

// Labels are the words of an answer's controls.
type Labels struct {
	Yes, No string // a confirmation's go-ahead and way out
	Error   string // a failure's message
	Retry   string // a failure's retry control
}

// DefaultAnswer is the reply to an unscripted send.
var DefaultAnswer = Answer{Partial: "Thinking", Final: "Noted.", Generate: 300 * time.Millisecond}

// DefaultChat is what a new server shows: a marker-style chat with four
// earlier turns.
func DefaultChat() Chat {
	return Chat{Style: StyleMarker, History: 4}
}

// Turn is one rendered turn.
type Turn struct {
	ID     string
	Author string // "user" or "assistant"
	Text   string
	Kind   string
	Media  string
	// MediaSrc is the media's source; empty means no source yet.
	MediaSrc string
	// Generating marks an answer still being written (its partial text).
	Generating bool
	// Labels are the words of its confirmation or failure controls.
	Labels Labels
	// Redo marks the answer that offers the Regenerate control.
	Redo bool
	// Paused marks an answer paused mid-stream: its partial text with no
	// visible indicator; Busy keeps aria-busy="true" on it.
	Paused, Busy bool
}

// turnID is deterministic: the turn's position in the chat.
func turnID(i int) string { return fmt.Sprintf("msg-%04d", i+1) }

// Media sources the sim serves.
const (
	VideoSrc = "/sim/media/clip.wav"
	ImageSrc = "/sim/media/pic.png"
)

func mediaSrc(kind string) string {
	if kind == MediaImage {
		return ImageSrc
	}
	return VideoSrc
}

// HistoryTurns generates the earlier turns from the seed.
func (c Chat) HistoryTurns() []Turn {
	r := rand.New(rand.NewPCG(uint64(c.Seed), 0x5eed))
	turns := make([]Turn, 0, c.History)
	lastAssistant := -1
	for i := range c.History {
		t := Turn{ID: turnID(i)}
		if i%2 == 0 {
			t.Author = "user"
			t.Text = fmt.Sprintf("Question %d: %s?", i/2+1, phrase(r, 6))
		} else {
			t.Author = "assistant"
			t.Text = fmt.Sprintf("Answer %d: %s.", i/2+1, phrase(r, 24))
			if c.HistoryImages && (i/2)%3 == 0 {
				t.Media, t.MediaSrc = MediaImage, ImageSrc
			}
			lastAssistant = i
		}
		turns = append(turns, t)
	}
	if lastAssistant >= 0 {
		if c.LongLastAnswer > 0 {
			var b strings.Builder
			b.WriteString("A long and complete earlier answer.")
			for b.Len() < c.LongLastAnswer {
				b.WriteString(" " + phrase(r, 12) + ".")
			}
			turns[lastAssistant].Text = b.String()[:c.LongLastAnswer]
		}
		if c.LastAnswerMedia != "" {
			turns[lastAssistant].Media = c.LastAnswerMedia
			if !c.LastAnswerMediaPending {
				turns[lastAssistant].MediaSrc = mediaSrc(c.LastAnswerMedia)
			}
		}
		if c.LastAnswerGenerating {
			turns[lastAssistant].Generating = true
		}
	}
	return turns
}

// LastAnswerText is the text of the last earlier assistant turn, "" when
// there is none.
func (c Chat) LastAnswerText() string {
	turns := c.HistoryTurns()
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Author == "assistant" {
			return turns[i].Text
		}
	}
	return ""
}

var words = strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima
mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu
river stone cloud paper garden window signal ledger harbor engine market orbit`)

func phrase(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.Join(w, " ")
}
