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
}

// turnID is deterministic: the turn's position in the chat.
func turnID(i int) string { return fmt.Sprintf("msg-%04d", i+1) }

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
			lastAssistant = i
		}
		turns = append(turns, t)
	}
	if c.LongLastAnswer > 0 && lastAssistant >= 0 {
		var b strings.Builder
		b.WriteString("A long and complete earlier answer.")
		for b.Len() < c.LongLastAnswer {
			b.WriteString(" " + phrase(r, 12) + ".")
		}
		turns[lastAssistant].Text = b.String()[:c.LongLastAnswer]
	}
	return turns
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
