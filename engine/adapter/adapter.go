// Package adapter maps a chat site's markup to answer groups: one group per
// assistant turn, with a stable id, the rule that produced it (ID-3), the
// turn's state (generating, complete, needs_confirmation, failed), its text
// and the media inside it (SPEC §3).
//
// Group ids come from the page as observed, never from a provider's server,
// and every group records in Group.Rule which adapter rule found it so a
// reader of a trace can judge the decision. When an adapter finds no turns
// at all, Result.Structure is false and there are no groups (ANS-9): no
// style ever falls back to the page's longest text.
//
// # Styles
//
// ByName picks one: "marker", "heading", "auto", or the path of an adapter
// file.
//
// Marker (DefaultMarker, ANS-1): turns carry an author attribute
// (data-message-author-role, data-role, data-author, …) or are custom
// elements named for the turn (model-response, …); the id is the turn's
// message-id attribute (data-message-id, data-id, data-turn-id, id), else
// that of its first marked descendant or nearest marked ancestor, else
// "pos-<n>" (the n-th assistant turn; the rule says so).
//
// Heading (DefaultHeading, ANS-2): no data markers; speaker headings open
// turns. Candidates are the headings (h1–h6, role=heading) not hidden from
// everyone: visible or screen-reader-only (sr-only, clip), but not
// display:none, visibility:hidden or aria-hidden. A heading's label is the
// text before its first colon when that is at most LabelRunesMax runes and
// four words ("Copilot said:" of "Copilot said: Sure, here…"), else its
// whole text when that short ("Assistant"). Labels are compared
// case-insensitively. Then, per frame:
//   - a user label names the user (UserNames: You, User, Me; "You said:");
//   - the assistant label is the label that most often comes first after a
//     user heading, before the next one (ties: the earliest on the page),
//     provided it recurs, names the assistant (AssistantNames), or has the
//     user label's form ("Sim said:" beside "You said:") — the last two
//     let a page with one exchange be read; labels naming the assistant
//     that open a stretch after a user heading count too;
//   - a page without user headings has assistant turns only under labels
//     naming the assistant ("Assistant", "ChatGPT said:", or recurring);
//     a user label alone counts only in a speaker's form ("You said:", the
//     bare name, or recurring), so a lone "User settings" is no chat;
//   - every other heading is content: a heading inside an answer whose
//     label does not recur stays in the answer's text.
//
// A turn's extent: from its speaker heading climb to the highest ancestor
// (below body) that holds no other speaker heading and no composer (a
// visible textarea, contenteditable, role=textbox/searchbox, or a
// combobox other than select). When that ancestor holds text besides the
// heading and controls, it is the whole turn ("wrapped in <article>").
// Otherwise the turn is that ancestor and its following siblings up to the
// first sibling holding a speaker heading or a composer ("flat siblings";
// Group.Nodes lists them). A turn never runs into the next speaker's turn
// or the input box. The speaker heading is not part of the group's text;
// only when the turn has no other text is the heading's text after the
// label (the message start) used.
//
// Heading ids: "heading:<n>", n the 1-based ordinal of the assistant turn
// among the frame's assistant speaker headings in page order (frames other
// than "main" prefix "<frame>/"). The id depends only on the page's
// structure, never on the text being streamed, so two captures of the same
// state give the same ids under both the browser and the replay driver; a
// turn appended at the end gets the next ordinal and earlier ids do not
// change. The rule reads, e.g.:
//
//	heading: speaker label "Sim said:" (h3, sr-only) occurs 12×; id from assistant turn ordinal 7; wrapped in <article>
//
// Limitation: a site that inserts earlier turns at the top while a wait is
// running (lazy-loaded history) shifts the ordinals; such a site needs the
// marker style or an adapter file with real ids.
//
// Auto (DefaultAuto): tries marker, then heading, and keeps the first that
// finds any turn; Result.Adapter is "auto→marker" or "auto→heading" and
// Result.Note says what was tried. The pick is a function of the page only.
//
// # States and media
//
// Every style shares the built-in state signals (ANS-5), read only from
// visible elements inside the turn: generating — a stop control ("Stop
// generating", "Stop streaming", "Stop responding", "Stop"), aria-busy=true,
// data-is-streaming=true, a typing-indicator or result-streaming class;
// failed — role=alert, or an error text ("Something went wrong", …) with a
// retry control (Retry, Try again, Regenerate); needs_confirmation —
// a go-ahead control (Confirm, Approve, Continue, Allow, Accept, …) beside
// a way out (Cancel, Deny, …), or a question with a go-ahead other than
// Continue; a lone standing button ("Continue Response", "Regenerate") is
// no confirmation. A streaming class on the element wrapping the text
// (result-streaming) marks generating and keeps its text. Generating
// wins over failed, failed over stopped, stopped over needs_confirmation;
// a turn with none of them is complete. Stopped (APP-3) is a note that the
// user stopped the answer ("You stopped this response.", "Response
// stopped", "Stopped generating", "Generation stopped"). The text of a
// group never holds the site's controls (buttons), toolbars (role=toolbar
// or menubar, or a class ending in "toolbar") or badges (a class ending
// in "badge"); an adapter file's text.exclude adds its own. Media (ANS-6) is read from the live state a browser
// capture writes (data-rl-ready, data-rl-src, data-rl-size) on img, video
// and audio inside the turn: a video is ready at readyState ≥ 3 with a
// source, an image when "complete" with a non-zero size.
//
// # Adapter files
//
// A team describes its site in JSON (LoadFile, ParseFile). Version 2
// (version 1 is the same without turn.id.kind, and is still read):
//
//	{
//	  "version": 2,                       // required, 1 or 2
//	  "name": "acme",                     // optional; default: file name without extension
//	  "turn": {                           // required
//	    "selector": "div.msg",            // required CSS selector: each outermost visible match is a turn
//	    "speaker": {                      // optional; without it every turn is the assistant's
//	      "attribute": "data-from",       // the turn's attribute holding the speaker, or
//	      // "selector": ".author",       // a descendant whose text is the speaker (left out of the text), or
//	      // both: that attribute of that descendant (the descendant is left out of the text)
//	      "assistant": ["bot"],           // required, case-insensitive values or patterns ("*": any run
//	                                      // of characters, "?": one; exact values of either list win, so
//	                                      // "assistant": ["*"], "user": ["you"] is "everyone but the user")
//	      "user": ["human"]               // optional; turns matching neither are not turns
//	    },
//	    "id": {                           // required
//	      "attribute": "data-msg-id",     // required (but with kind "position"): the id attribute
//	      "selector": "footer.meta",      // optional: read it from the first matching descendant
//	      "kind": "stable"                // version 2, optional: "stable" (default), "volatile" (the page
//	                                      // makes ids up per load or run) or "position" (no ids: turns
//	                                      // are "pos-<n>", no attribute); a declared kind is no violation
//	    }                                 // a turn without the id gets "pos-<n>" and the rule says so
//	  },
//	  "states": {                         // optional: signals added to the built-in ones
//	    "builtin": true,                  // false: use only this file's signals
//	    "generating":   {"selectors": [".acme-spinner"], "attributes": [{"name": "data-state", "value": "streaming"}], "buttons": ["Halt"]},
//	    "confirmation": {"buttons": ["Run tool"]},
//	    "failure":      {"selectors": [".acme-error"], "texts": ["quota exceeded"]},
//	    "stopped":      {"attributes": [{"name": "data-state", "value": "stopped"}]}
//	  },                                  // each may list selectors, attributes (value "" = present), buttons (accessible names), texts
//	  "text": {"exclude": ["span.cursor", "figcaption"]},  // optional: elements left out of a group's text
//	  "media": {                          // optional; default: every img, video and audio
//	    "items": [{"selector": "img.generated", "kind": "image"}, {"selector": "video", "kind": "video"}],
//	    "video_ready_state_min": 3        // 1–4, default 3
//	  }
//	}
//
// (Comments are for this page only: the file is plain JSON.) Readiness is
// read from the matched element's data-rl-* live state as above. A file
// that breaks any rule is refused with a *FileError naming the JSON path of
// the field and the reason — unknown field, wrong type, missing required
// field, empty value or selector, invalid CSS selector, unknown version,
// out of range — and errors.Is(err, ErrBadAdapterFile) holds. Files are at
// most FileBytesMax bytes and selectors SelectorBytesMax.
//
// # Cost
//
// Extraction is linear in the page: one walk per frame plus one walk per
// turn, hidden checks answered by the document's index
// (observe.Document.Hidden), boundary counts saturating at two per
// element. BenchmarkGroups reports ns per turn at 1,000 and 10,000 turns.
package adapter

import (
	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/observe"
)

// Group states.
const (
	StateGenerating        = "generating"
	StateComplete          = "complete"
	StateNeedsConfirmation = "needs_confirmation"
	StateFailed            = "failed"
	// StateStopped: the user stopped the answer while it streamed (APP-3)
	// its text is what had arrived.
	StateStopped = "stopped"
)

// EvidenceComplete is the evidence of every complete group: no markup
// says the turn is generating, stopped, failed or waiting.
const EvidenceComplete = "no generating signal"

// Group is one assistant turn and everything inside it.
type Group struct {
	ID    string `json:"id"`
	Rule  string `json:"rule"`
	State string `json:"state"`
	Text  string `json:"text"`
	// TextTruncated is set by bounded views that cut Text.
	TextTruncated bool    `json:"textTruncated,omitempty"`
	Media         []Media `json:"media"`
	Frame         string  `json:"frame"`
	// Evidence says which markup decided the state ("aria-busy=true",
	// "no generating signal", …).
	Evidence string `json:"evidence"`

	pending *pendingRead // set until Load reads Text, State, Media

	// Node is the turn's root: the element that holds the whole turn, or,
	// for a turn made of flat siblings, the first of them.
	Node *html.Node `json:"-"`
	// Nodes are the turn's top-level nodes in page order when the turn is
	// a run of flat siblings (heading style); nil when Node holds it all.
	Nodes []*html.Node `json:"-"`
}

// Media is one image or video inside a group.
type Media struct {
	Kind  string `json:"kind"` // "image" or "video"
	Ready bool   `json:"ready"`
	// Evidence is the live state read: readyState, source, size.
	Evidence string `json:"evidence"`
}

// Result is what an adapter found on one page.
type Result struct {
	Adapter string  `json:"adapter"`
	Groups  []Group `json:"groups"`
	// Structure is false when the adapter found no turn structure at all
	// (ANS-9): no assistant and no user turns.
	Structure bool `json:"structure"`
	// Turns counts every turn found, user turns included.
	Turns int `json:"turns"`
	// Note says how the result was reached when that is not obvious from
	// Adapter alone (auto: which style it picked and why).
	Note string `json:"note,omitempty"`
	// Users are the elements that open user turns (the turn element, or
	// the speaker heading), for conformance checks of turn boundaries.
	Users []*html.Node `json:"-"`
	// Failure is the evidence of a page-level failure signal on the page
	// (a toast or banner outside the turns, a site profile's "failed"
	// signals, LIB-5), "" for none. A send whose library adds no answer
	// group on an error ends ANSWER_FAILED on it (answer.Baseline).
	Failure string `json:"failure,omitempty"`
}

// Adapter finds answer groups in a parsed capture.
type Adapter interface {
	Name() string
	Groups(doc *observe.Document) Result
}

// finder is an adapter that can find its groups without reading them.
type finder interface {
	find(doc *observe.Document) Result
}

// Lazy finds ad's groups on doc with their ids, rules and nodes, and
// leaves each group's text, state and media unread until Group.Load (or
// Result.Load) reads them: a baseline needs only ids, a view the last few
// groups, a wait the newest. The result is the same as ad.Groups(doc)
// once loaded. An adapter of another package is read at once.
func Lazy(ad Adapter, doc *observe.Document) Result {
	if f, ok := ad.(finder); ok {
		return f.find(doc)
	}
	return ad.Groups(doc)
}

// LazyAfter is Lazy on doc, a document observe.ParseAfter made from the
// one prev was found on by the same adapter: where the adapter can, the
// turns doc kept (observe.Document.Kept) keep prev's ids and rules
// instead of being found again, and only the changed part of the page is
// searched for turns. The result is the same as Lazy(ad, doc); prev is
// not changed, and its groups' reads are not taken over (every group of
// the result reads doc when loaded).
func LazyAfter(ad Adapter, doc *observe.Document, prev Result) Result {
	switch a := ad.(type) {
	case Marker:
		if prev.Adapter == a.Name() || prev.Adapter == "auto→"+a.Name() {
			return a.findAfter(doc, prev.Groups, prev.Users)
		}
	case Auto:
		return a.findAfter(doc, prev)
	}
	return Lazy(ad, doc)
}

// Load reads the groups r.Groups[from:to] that are not read yet.
func (r Result) Load(from, to int) {
	for i := max(from, 0); i < min(to, len(r.Groups)); i++ {
		r.Groups[i].Load()
	}
}

// Media lists the media of every group in page order, each group's media
// read as ReadMedia does; when no group is read yet and none has media
// rules of its own, a page without any img, video or audio element has
// none, and no group is walked.
func (r Result) Media() []Media {
	out := []Media{}
	if len(r.Groups) == 0 {
		return out
	}
	// media rules may name any element: only the built-in reading (img,
	// video, audio) has the fast path
	var doc *observe.Document
	for _, g := range r.Groups {
		if g.pending == nil || g.pending.rules != nil {
			doc = nil
			break
		}
		doc = g.pending.doc
	}
	if doc != nil && !doc.HasMedia() {
		return out
	}
	for i := range r.Groups {
		out = append(out, r.Groups[i].ReadMedia()...)
	}
	return out
}

func loaded(r Result) Result {
	r.Load(0, len(r.Groups))
	return r
}

// GroupRoots lists the groups' root nodes with their ids, for
// observe.Options.GroupRoots (GroupOf's answer found by document order).
func (r Result) GroupRoots() []observe.GroupRoot {
	out := make([]observe.GroupRoot, 0, len(r.Groups))
	for _, g := range r.Groups {
		if g.Node != nil {
			out = append(out, observe.GroupRoot{Node: g.Node, ID: g.ID})
		}
		for _, n := range g.Nodes {
			out = append(out, observe.GroupRoot{Node: n, ID: g.ID})
		}
	}
	return out
}

// GroupOf returns a function that names the group holding a node, for
// observe.Options.GroupOf.
func (r Result) GroupOf() func(*html.Node) string {
	roots := map[*html.Node]string{}
	for _, g := range r.Groups {
		if g.Node != nil {
			roots[g.Node] = g.ID
		}
		for _, n := range g.Nodes {
			roots[n] = g.ID
		}
	}
	return func(n *html.Node) string {
		for c := n; c != nil; c = c.Parent {
			if id, ok := roots[c]; ok {
				return id
			}
		}
		return ""
	}
}

// IDs returns the group ids in page order.
func (r Result) IDs() []string {
	ids := make([]string, len(r.Groups))
	for i, g := range r.Groups {
		ids[i] = g.ID
	}
	return ids
}
