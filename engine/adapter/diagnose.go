package adapter

import (
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/observe"
)

// Diagnosis is what an adapter file's rules matched on a page, for a
// validator to say why turns were not found: how many visible elements the
// turn selector matched and the speaker values seen on them, with counts.
type Diagnosis struct {
	TurnSelector string
	Matches      int
	Speakers     map[string]int // folded value → turns; "" for a turn without one
}

// SpeakerList renders the speaker values seen, most frequent first:
// `"you"×2, "nova"×2`.
func (d Diagnosis) SpeakerList() string {
	type kv struct {
		v string
		n int
	}
	var l []kv
	for v, n := range d.Speakers {
		l = append(l, kv{v, n})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].n > l[j].n || l[i].n == l[j].n && l[i].v < l[j].v })
	var parts []string
	for _, e := range l {
		v := strconv.Quote(e.v)
		if e.v == "" {
			v = "(none)"
		}
		parts = append(parts, v+"×"+strconv.Itoa(e.n))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Diagnose reports what the file's turn and speaker rules match on doc.
func (a *File) Diagnose(doc *observe.Document) Diagnosis {
	d := Diagnosis{TurnSelector: a.turnSrc, Speakers: map[string]int{}}
	if a.turn == nil {
		return d
	}
	for _, f := range doc.Frames {
		walkEl(f.Root, func(n *html.Node) bool {
			if doc.Hidden(n) {
				return false
			}
			if !a.turn.Match(n) {
				return true
			}
			d.Matches++
			d.Speakers[a.rawSpeaker(n)]++
			return false
		})
	}
	return d
}

// rawSpeaker is the folded speaker value of a turn element as the rules
// read it, whatever list it matches.
func (a *File) rawSpeaker(n *html.Node) string {
	if !a.hasSpeaker {
		return "(no speaker rule)"
	}
	var v string
	switch {
	case a.speakAttr != "" && a.speakSel != nil:
		if h := first(n, a.speakSel); h != nil {
			v = observe.Attr(h, a.speakAttr)
		}
	case a.speakAttr != "":
		v = observe.Attr(n, a.speakAttr)
	default:
		if l := first(n, a.speakSel); l != nil {
			v = one(l).textRaw()
		}
	}
	return strings.ToLower(observe.Normalize(v))
}

// Uncovered lists the images, videos and audio inside g that none of the
// file's media rules covers (the speaker label, e.g. an avatar, excepted),
// as "img src=…" descriptions. A file without media rules covers every
// medium.
func (a *File) Uncovered(doc *observe.Document, g Group) []string {
	if a.media == nil || g.Node == nil {
		return nil
	}
	var label *html.Node
	if a.speakSel != nil {
		label = first(g.Node, a.speakSel)
	}
	var out []string
	walkEl(g.Node, func(n *html.Node) bool {
		if n == label || doc.Hidden(n) {
			return false
		}
		switch n.DataAtom {
		case atom.Img, atom.Video, atom.Audio:
		default:
			return true
		}
		for _, r := range a.media {
			if r.Selector != nil && r.Selector.Match(n) {
				return false
			}
		}
		desc := n.Data
		if src := observe.Attr(n, "src"); src != "" {
			desc += " src=" + src
		}
		out = append(out, desc)
		return false
	})
	return out
}

// Speakers is what an adapter file's speaker rule makes of the elements
// its turn selector matches on a page (APP-4): values in neither list,
// and elements without a speaker value at all.
type Speakers struct {
	// Unknown counts the turns whose value is in neither list, by value;
	// AfterUser counts those that follow a user turn (an answer, most
	// likely: its value belongs under assistant).
	Unknown   map[string]int
	AfterUser map[string]int
	// NoSpeaker counts the matches with no speaker value; Sample
	// describes the first ("article class=\"chat-card\"").
	NoSpeaker int
	Sample    string
}

// SpeakerCheck reports the matches of the turn selector that the speaker
// rule drops. A file without a speaker rule drops none.
func (a *File) SpeakerCheck(doc *observe.Document) Speakers {
	s := Speakers{Unknown: map[string]int{}, AfterUser: map[string]int{}}
	if a.turn == nil || !a.hasSpeaker {
		return s
	}
	for _, f := range doc.Frames {
		prevUser := false
		walkEl(f.Root, func(n *html.Node) bool {
			if doc.Hidden(n) {
				return false
			}
			if !a.turn.Match(n) {
				return true
			}
			v := a.rawSpeaker(n)
			switch who := speakerOf(v, a.assistant, a.user); {
			case v == "":
				s.NoSpeaker++
				if s.Sample == "" {
					s.Sample = n.Data
					if c := observe.Attr(n, "class"); c != "" {
						s.Sample += " class=" + strconv.Quote(c)
					}
				}
			case who == "":
				s.Unknown[v]++
				if prevUser {
					s.AfterUser[v]++
				}
			default:
				prevUser = who == "user"
			}
			return false
		})
	}
	return s
}
