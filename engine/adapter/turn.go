package adapter

import (
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
)

// span is one turn as every style hands it to the shared readers: its
// top-level nodes in page order (one element for a wrapped turn, a run of
// siblings for a flat one) and a subtree left out of the text (the speaker
// heading or label).
type span struct {
	nodes []*html.Node
	skip  *html.Node
	// exclude: elements matching any of these are left out of the text
	// (an adapter file's text.exclude).
	exclude []cascadia.Matcher
}

// excluded reports whether n matches one of s.exclude.
func (s span) excluded(n *html.Node) bool {
	for _, m := range s.exclude {
		if m != nil && m.Match(n) {
			return true
		}
	}
	return false
}

func one(n *html.Node) span { return span{nodes: []*html.Node{n}} }

// each visits the elements of s in page order, skipping s.skip and the
// subtrees of hidden elements (turn roots are read even when hidden: the
// style decided they are turns). fn returning false skips the children.
func (s span) each(doc *observe.Document, fn func(*html.Node) bool) {
	var stack []*html.Node
	for _, r := range s.nodes {
		if r.Type != html.ElementNode || r == s.skip {
			continue
		}
		stack = append(stack[:0], r)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n != r && (n == s.skip || doc.Hidden(n)) {
				continue
			}
			if !fn(n) {
				continue
			}
			for c := n.LastChild; c != nil; c = c.PrevSibling {
				if c.Type == html.ElementNode {
					stack = append(stack, c)
				}
			}
		}
	}
}

// Built-in state signals (ANS-5), shared by every style.
var (
	// stopNames are controls that mean "the answer is still being generated".
	stopNames = []string{"stop generating", "stop streaming", "stop responding", "stop response", "stop"}
	// A confirmation request is a decision inside the new turn: a control
	// that goes ahead (confirmYes) beside one that does not (confirmNo),
	// or a question in the turn's text with a control named exactly as a
	// go-ahead other than "Continue" (a common standing button). A lone standing action-bar button every answer carries
	// ("Continue", "Continue Response", "Regenerate") is not one.
	confirmYes = []string{"confirm", "approve", "continue", "allow", "yes", "yes, continue", "accept", "proceed", "run"}
	confirmNo  = []string{"cancel", "deny", "reject", "decline", "no", "not now"}
	retryNames = []string{"retry", "try again", "regenerate"}
	errorTexts = []string{"something went wrong", "an error occurred", "error generating", "network error"}
	// stoppedTexts are notes that the user stopped the answer (APP-3).
	stoppedTexts = []string{"you stopped this response", "response stopped", "stopped generating", "generation stopped", "you stopped generating"}
	typingClass  = []string{"typing-indicator", "result-streaming"}
	// indicatorClass marks an indicator element whose text is not part of
	// the answer; result-streaming (and other streaming classes) mark the
	// element that wraps the answer's text while it streams, whose text is
	// the partial answer.
	indicatorClass = []string{"typing-indicator"}
)

// Signals are the markers of one state an adapter adds to the built-in ones:
// any match inside the turn is the signal.
type Signals struct {
	// Selectors are CSS selectors matched against the turn's elements.
	Selectors []cascadia.Matcher
	// Attrs are attribute name=value pairs (an empty value: the attribute
	// is present).
	Attrs []AttrValue
	// Buttons are accessible names of controls (case-insensitive; a name
	// also matches when it starts with the value and a space).
	Buttons []string
	// Texts are phrases in the turn's text (case-insensitive).
	Texts []string
	// sources are the selectors as written, for evidence.
	sources []string
}

// AttrValue is one attribute name and value.
type AttrValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// States are an adapter's own signals for each state, checked after the
// built-in ones unless NoBuiltin is set.
type States struct {
	NoBuiltin    bool
	Generating   Signals
	Confirmation Signals
	Failure      Signals
	Stopped      Signals
}

// match returns the evidence of the first signal of s on n, "" for none.
func (s Signals) match(doc *observe.Document, n *html.Node, role string) string {
	for i, sel := range s.Selectors {
		if sel.Match(n) {
			return "selector " + quote(s.sources[i])
		}
	}
	for _, a := range s.Attrs {
		if !observe.HasAttr(n, a.Name) {
			continue
		}
		if a.Value == "" {
			return a.Name
		}
		if strings.EqualFold(strings.TrimSpace(observe.Attr(n, a.Name)), a.Value) {
			return a.Name + "=" + a.Value
		}
	}
	if len(s.Buttons) > 0 && role == "button" {
		if name := doc.Name(n); matchesAny(strings.ToLower(name), s.Buttons) {
			return "control " + quote(name)
		}
	}
	return ""
}

func (s Signals) matchText(text string) string {
	for _, t := range s.Texts {
		if strings.Contains(text, t) {
			return "text " + quote(t)
		}
	}
	return ""
}

// classify decides a turn's state from the markup inside it (ANS-5):
// generating wins over failed, failed over needs_confirmation, and a turn
// with none of them is complete. text is the turn's text (lower case is
// taken here).
func classify(doc *observe.Document, s span, text string, st *States) (state, evidence string) {
	var generating, confirm, retry, alert, stopped string
	var yes, yesExact, no string
	builtin := st == nil || !st.NoBuiltin
	s.each(doc, func(n *html.Node) bool {
		role := observe.Role(n)
		if builtin {
			if generating == "" && strings.EqualFold(observe.Attr(n, "aria-busy"), "true") {
				generating = "aria-busy=true"
			}
			if generating == "" && strings.EqualFold(observe.Attr(n, "data-is-streaming"), "true") {
				generating = "data-is-streaming=true"
			}
			if generating == "" && hasClass(n, typingClass) {
				generating = "typing indicator"
			}
			if role == "button" {
				name := doc.Name(n)
				lower := strings.ToLower(name)
				if generating == "" && matchesAny(lower, stopNames) {
					generating = "stop control " + quote(name)
				}
				if yes == "" && matchesAny(lower, confirmYes) {
					yes = name
				}
				if yesExact == "" && lower != "continue" && contains(confirmYes, lower) {
					yesExact = name
				}
				if no == "" && matchesAny(lower, confirmNo) {
					no = name
				}
				if retry == "" && matchesAny(lower, retryNames) {
					retry = "retry control " + quote(name)
				}
			}
			if alert == "" && role == "alert" {
				alert = "role=alert"
			}
		}
		if st != nil {
			if generating == "" {
				generating = st.Generating.match(doc, n, role)
			}
			if confirm == "" {
				confirm = st.Confirmation.match(doc, n, role)
			}
			if alert == "" {
				alert = st.Failure.match(doc, n, role)
			}
			if stopped == "" {
				stopped = st.Stopped.match(doc, n, role)
			}
		}
		return true
	})
	lower := strings.ToLower(text)
	if builtin && confirm == "" {
		switch {
		case yes != "" && no != "":
			confirm = "confirmation control " + quote(yes) // beside a way out (no)
		case yesExact != "" && strings.Contains(lower, "?"):
			confirm = "confirmation control " + quote(yesExact) + " after a question"
		}
	}
	if builtin && alert == "" && retry != "" {
		for _, t := range errorTexts {
			if strings.Contains(lower, t) {
				alert = "error text " + quote(t)
				break
			}
		}
	}
	if builtin && stopped == "" {
		for _, t := range stoppedTexts {
			if strings.Contains(lower, t) || strings.Contains(strings.ToLower(s.textWithExcluded(doc)), t) {
				stopped = "stopped note " + quote(t)
				break
			}
		}
	}
	if st != nil {
		if stopped == "" {
			stopped = st.Stopped.matchText(lower)
		}
		if generating == "" {
			generating = st.Generating.matchText(lower)
		}
		if alert == "" {
			alert = st.Failure.matchText(lower)
		}
		if confirm == "" {
			confirm = st.Confirmation.matchText(lower)
		}
	}
	switch {
	case generating != "":
		return StateGenerating, generating
	case alert != "":
		if retry != "" {
			return StateFailed, alert + " with " + retry
		}
		return StateFailed, alert
	case stopped != "":
		return StateStopped, stopped
	case confirm != "":
		return StateNeedsConfirmation, confirm
	}
	return StateComplete, EvidenceComplete
}

func hasClass(n *html.Node, names []string) bool {
	cls := observe.Attr(n, "class")
	if cls == "" {
		return false
	}
	for _, tok := range strings.Fields(strings.ToLower(cls)) {
		for _, c := range names {
			if tok == c {
				return true
			}
		}
	}
	return false
}

func matchesAny(name string, list []string) bool {
	for _, s := range list {
		if name == s || strings.HasPrefix(name, s+" ") {
			return true
		}
	}
	return false
}

func quote(s string) string { return `"` + s + `"` }

// text is the visible text of a turn without its controls (buttons, typing
// indicators) and without s.skip, as the page renders it (text.go).
func (s span) text(doc *observe.Document) string { return s.rendered(doc) }

func skipText(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Template, atom.Noscript:
		return true
	}
	switch observe.Role(n) {
	case "button", "toolbar", "menubar":
		return true
	}
	return hasClass(n, indicatorClass) || classEnds(n, "toolbar", "badge")
}

// classEnds reports whether a class of n is one of the suffixes or ends
// in "-" or "_" and one of them ("message-toolbar", "model_badge").
func classEnds(n *html.Node, suffixes ...string) bool {
	cls := observe.Attr(n, "class")
	if cls == "" {
		return false
	}
	for _, tok := range strings.Fields(strings.ToLower(cls)) {
		for _, suf := range suffixes {
			if tok == suf || strings.HasSuffix(tok, "-"+suf) || strings.HasSuffix(tok, "_"+suf) {
				return true
			}
		}
	}
	return false
}

// textWithExcluded is the turn's text with the adapter's text.exclude
// elements kept (a stopped note an adapter leaves out of the answer still
// says the answer was stopped).
func (s span) textWithExcluded(doc *observe.Document) string {
	if len(s.exclude) == 0 {
		return ""
	}
	t := s
	t.exclude = nil
	return t.text(doc)
}

// MediaRule says where media lives inside a turn and what kind it is.
type MediaRule struct {
	Selector cascadia.Matcher
	Kind     string // "image", "video" or "audio"
	source   string
}

// media lists the images and videos inside a turn with their readiness
// (ANS-6): a video is ready when its readyState is at least videoMin (3:
// it can play) and it has a source; an image when it finished loading with
// a non-zero size; audio reads like video. Pages without live state (plain
// HTML) have no ready media. rules nil means every img, video and audio.
func (s span) media(doc *observe.Document, rules []MediaRule, videoMin int) []Media {
	out := []Media{}
	s.each(doc, func(n *html.Node) bool {
		kind := ""
		if rules == nil {
			switch n.DataAtom {
			case atom.Img:
				kind = "image"
			case atom.Video:
				kind = "video"
			case atom.Audio:
				kind = "audio"
			}
		} else {
			for _, r := range rules {
				if r.Selector.Match(n) {
					kind = r.Kind
					break
				}
			}
		}
		switch kind {
		case "video", "audio":
			m := videoState(n, videoMin)
			m.Kind = kind
			out = append(out, m)
			return false
		case "image":
			out = append(out, imageState(n))
			return false
		}
		return true
	})
	return out
}

func videoState(n *html.Node, min int) Media {
	src := observe.Attr(n, capture.AttrMediaSrc)
	if src == "" {
		src = observe.Attr(n, "src")
	}
	if src == "" {
		for c := n.FirstChild; c != nil && src == ""; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Source {
				src = observe.Attr(c, "src")
			}
		}
	}
	rs := observe.Attr(n, capture.AttrMediaReady)
	level := -1
	if len(rs) == 1 && rs[0] >= '0' && rs[0] <= '4' {
		level = int(rs[0] - '0')
	}
	ready := level >= min && src != ""
	return Media{Kind: "video", Ready: ready, Evidence: "readyState=" + orNone(rs) + " source=" + yesNo(src != "")}
}

func imageState(n *html.Node) Media {
	rs := observe.Attr(n, capture.AttrMediaReady)
	size := observe.Attr(n, capture.AttrSize)
	ready := rs == "complete" && nonZeroSize(size)
	return Media{Kind: "image", Ready: ready, Evidence: "load=" + orNone(rs) + " size=" + orNone(size)}
}

// nonZeroSize reports whether "WxH" has both dimensions above zero.
func nonZeroSize(s string) bool {
	w, h, ok := strings.Cut(s, "x")
	return ok && positive(w) && positive(h)
}

func positive(s string) bool {
	seen := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '1' && c <= '9':
			seen = true
		case c == '0' || c == '.':
		default:
			return false
		}
	}
	return seen
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// walkEl visits n and its element descendants in document order without
// recursion; fn returning false skips the children.
func walkEl(n *html.Node, fn func(*html.Node) bool) { observe.WalkElements(n, fn) }

// read sets a group's nodes from its span and leaves its state, text and
// media to Load: a style finds every group, but a view or a wait reads
// only the few it returns.
func (g *Group) read(doc *observe.Document, s span, st *States, rules []MediaRule, videoMin int) {
	g.pending = &pendingRead{doc: doc, s: s, st: st, rules: rules, videoMin: videoMin}
	g.Node = s.nodes[0]
	if len(s.nodes) > 1 {
		g.Nodes = s.nodes
	}
}

// readOr is read with a text for a group whose span holds none.
func (g *Group) readOr(doc *observe.Document, s span, orText string) {
	g.read(doc, s, nil, nil, 3)
	g.pending.orText = orText
}

// ReadMedia returns the group's media: Media once loaded, else read from
// the page without the text and state.
func (g *Group) ReadMedia() []Media {
	if p := g.pending; p != nil {
		return p.s.media(p.doc, p.rules, p.videoMin)
	}
	return g.Media
}

// pendingRead is what Load needs to read a group.
type pendingRead struct {
	doc      *observe.Document
	s        span
	st       *States
	rules    []MediaRule
	videoMin int
	orText   string
}

// Load reads the group's text, state and media from the page when they
// are not read yet (a result of Lazy); it is a no-op afterwards.
func (g *Group) Load() {
	p := g.pending
	if p == nil {
		return
	}
	g.pending = nil
	g.Text = p.s.text(p.doc)
	g.State, g.Evidence = classify(p.doc, p.s, g.Text, p.st)
	g.Media = p.s.media(p.doc, p.rules, p.videoMin)
	if g.Text == "" {
		g.Text = p.orText
	}
}
