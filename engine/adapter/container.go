package adapter

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/observe"
)

// SpeakersInside counts the visible elements inside the turn element n (n
// left out) that the file's speaker rule reads a speaker of either list
// from. A turn holding two or more is a container of turns: the turn
// selector matches the chat's list, not one message (SPEC LIB-6).
func (a *File) SpeakersInside(doc *observe.Document, n *html.Node) int {
	if n == nil || !a.hasSpeaker {
		return 0
	}
	count := 0
	walkEl(n, func(c *html.Node) bool {
		if doc.Hidden(c) {
			return false
		}
		if c == n {
			return true
		}
		var v string
		switch {
		case a.speakSel != nil && !a.speakSel.Match(c):
			return true
		case a.speakSel != nil && a.speakAttr != "":
			v = observe.Attr(c, a.speakAttr)
		case a.speakSel != nil:
			v = one(c).textRaw()
		default:
			v = observe.Attr(c, a.speakAttr)
		}
		if v == "" {
			return true
		}
		if speakerOf(strings.ToLower(observe.Normalize(v)), a.assistant, a.user) != "" {
			count++
		}
		return true
	})
	return count
}
