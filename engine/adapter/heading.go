package adapter

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/observe"
)

// Heading is the built-in heading style (ANS-2): pages without data
// markers whose turns open with a speaker heading. The speakers are inferred
// from the page itself; see the package doc for the rules and the id.
type Heading struct {
	// UserNames name the user in a speaker label (case-insensitive): the
	// label, without a final colon, is the name or starts with the name and
	// a space ("You", "You said:").
	UserNames []string
	// AssistantNames name the assistant the same way. A label naming the
	// assistant counts even when it does not recur (a page with one
	// exchange, or with assistant turns only).
	AssistantNames []string
	// LabelRunesMax bounds a speaker label: a whole heading text or the
	// text before the first colon longer than this is never a label.
	LabelRunesMax int
}

// DefaultHeading is the heading style with the common speaker names.
var DefaultHeading = Heading{
	UserNames:      []string{"you", "user", "me"},
	AssistantNames: []string{"assistant", "ai", "bot", "model", "chatgpt", "claude", "copilot", "gemini"},
	LabelRunesMax:  40,
}

// Name implements Adapter.
func (h Heading) Name() string { return "heading" }

// headingCand is one visible (or screen-reader-only) heading of a frame.
type headingCand struct {
	n     *html.Node
	label string // as written, "" when the heading cannot be a speaker
	key   string // label folded for comparison
	rest  string // heading text after the label
}

// Groups implements Adapter.
func (h Heading) Groups(doc *observe.Document) Result { return loaded(h.find(doc)) }

func (h Heading) find(doc *observe.Document) Result {
	r := Result{Adapter: h.Name(), Groups: []Group{}}
	for _, f := range doc.Frames {
		h.frame(doc, f, &r)
	}
	r.Structure = r.Turns > 0
	return r
}

func (h Heading) frame(doc *observe.Document, f *observe.Frame, r *Result) {
	var heads []headingCand
	var composers []*html.Node
	walkEl(f.Root, func(n *html.Node) bool {
		if doc.Hidden(n) {
			return false
		}
		role := observe.Role(n)
		if role == "heading" {
			heads = append(heads, h.candidate(doc, n))
			return false
		}
		if isComposer(n, role) {
			composers = append(composers, n)
			return false
		}
		return true
	})
	user, assistant, count := h.speakers(heads)
	if len(user) == 0 && len(assistant) == 0 {
		return
	}
	var speakers []headingCand
	for _, c := range heads {
		if user[c.key] || assistant[c.key] {
			speakers = append(speakers, c)
		}
	}

	// boundaries: how many speaker headings and composers each element
	// holds, saturating at 2 so that marking stays linear.
	bound := make(map[*html.Node]uint8, 4*len(speakers))
	mark := func(n *html.Node) {
		for p := n; p != nil; p = p.Parent {
			if bound[p] >= 2 {
				return
			}
			bound[p]++
		}
	}
	for _, s := range speakers {
		mark(s.n)
	}
	for _, c := range composers {
		mark(c)
	}

	ordinal := 0
	for _, s := range speakers {
		r.Turns++
		if !assistant[s.key] {
			r.Users = append(r.Users, s.n)
			continue
		}
		ordinal++
		sp, shape := turnSpan(s.n, bound)
		g := Group{Frame: f.ID, ID: "heading:" + strconv.Itoa(ordinal)}
		if f.ID != "main" {
			g.ID = f.ID + "/" + g.ID
		}
		g.readOr(doc, sp, s.rest)
		g.Rule = "heading: speaker label " + strconv.Quote(s.label) + " (" + describeHeading(s.n) + ") occurs " +
			strconv.Itoa(count[s.key]) + "×; id from assistant turn ordinal " + strconv.Itoa(ordinal) + "; " + shape
		r.Groups = append(r.Groups, g)
	}
}

// candidate reads a heading's label: the text before its first colon
// (colon included) when that is short ("Copilot said:"), else the whole
// text when that is short ("Assistant"), else none.
func (h Heading) candidate(doc *observe.Document, n *html.Node) headingCand {
	text := one(n).text(doc)
	if text == "" {
		text = observe.Normalize(observe.Attr(n, "aria-label"))
	}
	c := headingCand{n: n}
	max := h.LabelRunesMax
	if max <= 0 {
		max = DefaultHeading.LabelRunesMax
	}
	if i := strings.IndexAny(text, ":："); i > 0 {
		_, w := utf8.DecodeRuneInString(text[i:])
		if lead := text[:i]; utf8.RuneCountInString(lead) <= max && len(strings.Fields(lead)) <= 4 {
			c.label = text[:i+w]
			c.rest = strings.TrimSpace(text[i+w:])
		}
	}
	if c.label == "" && text != "" && utf8.RuneCountInString(text) <= max {
		c.label = text
	}
	c.key = strings.ToLower(c.label)
	return c
}

// names reports whether a folded label names one of list: the label
// without a final colon is the name or starts with it and a space.
func names(key string, list []string) bool {
	base := strings.TrimSpace(strings.TrimRight(key, ":："))
	for _, s := range list {
		s = strings.ToLower(s)
		if base == s || strings.HasPrefix(base, s+" ") {
			return true
		}
	}
	return false
}

// speakers infers the speaker labels of a frame (package doc, "Heading
// style"). It returns the folded user and assistant labels and how often
// each label occurs.
func (h Heading) speakers(heads []headingCand) (user, assistant map[string]bool, count map[string]int) {
	user, assistant, count = map[string]bool{}, map[string]bool{}, map[string]int{}
	first := map[string]int{}
	var userKey string
	for i, c := range heads {
		if c.key == "" {
			continue
		}
		if count[c.key] == 0 {
			first[c.key] = i
		}
		count[c.key]++
		if names(c.key, h.UserNames) {
			user[c.key] = true
			if userKey == "" {
				userKey = c.key
			}
		}
	}
	if len(user) == 0 {
		// no user turns on the page: only labels naming the assistant in
		// a speaker's form
		for k := range count {
			if names(k, h.AssistantNames) && speakerForm(k, count[k], h.AssistantNames) {
				assistant[k] = true
			}
		}
		return user, assistant, count
	}
	// votes: in each stretch between user headings, the first other
	// labelled heading is the candidate for the assistant's label.
	votes := map[string]int{}
	for i := 0; i < len(heads); i++ {
		if !user[heads[i].key] {
			continue
		}
		for j := i + 1; j < len(heads) && !user[heads[j].key]; j++ {
			if heads[j].key != "" {
				votes[heads[j].key]++
				break
			}
		}
	}
	best := ""
	for k, v := range votes {
		if !h.qualifies(k, count[k], userKey) {
			continue
		}
		if best == "" || v > votes[best] || v == votes[best] && first[k] < first[best] {
			best = k
		}
	}
	if best != "" {
		assistant[best] = true
	}
	for k := range votes {
		if k != best && names(k, h.AssistantNames) && speakerForm(k, count[k], h.AssistantNames) {
			assistant[k] = true
		}
	}
	if len(assistant) == 0 {
		// a user label alone is a turn only in a speaker's form ("You
		// said:", or recurring): a lone "User settings" is not a chat
		for k := range user {
			if !speakerForm(k, count[k], h.UserNames) {
				delete(user, k)
			}
		}
	}
	return user, assistant, count
}

// speakerForm reports whether a label naming a speaker reads as a speaker
// label rather than a title that starts with the name: it recurs, ends with
// a colon, or is the name itself.
func speakerForm(key string, n int, list []string) bool {
	if n >= 2 || strings.HasSuffix(key, ":") || strings.HasSuffix(key, "：") {
		return true
	}
	for _, s := range list {
		if key == strings.ToLower(s) {
			return true
		}
	}
	return false
}

// qualifies reports whether a label that opens the stretch after a user
// turn can be the assistant's: it recurs, names the assistant, or has the
// user label's form ("Sim said:" beside "You said:").
func (h Heading) qualifies(key string, n int, userKey string) bool {
	if n >= 2 || names(key, h.AssistantNames) {
		return true
	}
	kf, uf := strings.Fields(key), strings.Fields(userKey)
	return len(kf) >= 2 && len(kf) == len(uf) && strings.Join(kf[1:], " ") == strings.Join(uf[1:], " ")
}

// turnSpan finds the extent of the turn a speaker heading opens: climb to
// the highest ancestor that holds no other speaker heading and no composer
// (never body or html). When that ancestor holds content besides the
// heading it is the whole turn (wrapped); otherwise the turn is it and its
// following siblings up to the first one holding a boundary (flat).
func turnSpan(head *html.Node, bound map[*html.Node]uint8) (span, string) {
	a := head
	for p := a.Parent; p != nil && p.Type == html.ElementNode && p.DataAtom != atom.Body && p.DataAtom != atom.Html && bound[p] < 2; p = p.Parent {
		a = p
	}
	if a != head && hasTextBeside(a, head) {
		return span{nodes: []*html.Node{a}, skip: head}, "wrapped in <" + a.Data + ">"
	}
	nodes := []*html.Node{a}
	for s := a.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode && bound[s] > 0 {
			break
		}
		if s.Type == html.ElementNode || s.Type == html.TextNode {
			nodes = append(nodes, s)
		}
	}
	return span{nodes: nodes, skip: head}, "flat siblings (" + strconv.Itoa(len(nodes)) + " nodes)"
}

// hasTextBeside reports whether a holds text other than the heading's and
// its controls' (a header row with an avatar and a copy button is not a
// whole turn).
func hasTextBeside(a, head *html.Node) bool {
	found := false
	var stack []*html.Node
	stack = append(stack, a)
	for len(stack) > 0 && !found {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == head {
			continue
		}
		switch n.Type {
		case html.TextNode:
			if strings.TrimSpace(n.Data) != "" {
				found = true
			}
			continue
		case html.ElementNode:
			if skipText(n) {
				continue
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, c)
		}
	}
	return found
}

// isComposer reports whether n is the message input a turn never runs
// into: an editor (textarea, contenteditable, role=textbox …), not a
// select or a slider.
func isComposer(n *html.Node, role string) bool {
	switch role {
	case "textbox", "searchbox":
		return true
	case "combobox":
		return n.DataAtom != atom.Select
	}
	return false
}

// describeHeading says how a speaker heading is shown: its element and
// whether it is visible or only for screen readers.
func describeHeading(n *html.Node) string {
	el := n.Data
	if n.DataAtom != atom.H1 && n.DataAtom != atom.H2 && n.DataAtom != atom.H3 &&
		n.DataAtom != atom.H4 && n.DataAtom != atom.H5 && n.DataAtom != atom.H6 {
		el = "role=heading"
		if l := observe.Attr(n, "aria-level"); l != "" {
			el += " aria-level=" + l
		}
	}
	if srOnly(n) {
		return el + ", sr-only"
	}
	return el + ", visible"
}

var srClasses = []string{"sr-only", "visually-hidden", "visuallyhidden", "screen-reader-only", "screen-reader-text", "a11y-hidden", "sr-text", "assistive-text"}

// srOnly reports whether n or an ancestor up to three levels is hidden
// visually but kept for screen readers (an sr-only class, or clip).
func srOnly(n *html.Node) bool {
	for c, i := n, 0; c != nil && c.Type == html.ElementNode && i < 4; c, i = c.Parent, i+1 {
		if hasClass(c, srClasses) {
			return true
		}
		st := strings.ToLower(observe.Attr(c, "style"))
		if strings.Contains(st, "clip:") || strings.Contains(st, "clip-path:") {
			return true
		}
	}
	return false
}
