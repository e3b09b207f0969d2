package adapter

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestMarkerStyle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want []summary
	}{
		{
			name: "data-message-author-role with data-message-id",
			body: `<div data-message-author-role="user" data-message-id="u1">q</div><div data-message-author-role="assistant" data-message-id="a1">answer</div>`,
			want: []summary{{"a1", "complete", "answer"}},
		},
		{
			name: "data-role with data-id",
			body: `<div data-role="user" data-id="u1">q</div><div data-role="assistant" data-id="m-7">seven</div>`,
			want: []summary{{"m-7", "complete", "seven"}},
		},
		{
			name: "data-author bot with id attribute",
			body: `<div data-author="human" id="h1">q</div><div data-author="bot" id="b1">hi</div>`,
			want: []summary{{"b1", "complete", "hi"}},
		},
		{
			name: "custom element model-response, id on descendant",
			body: `<user-query>q</user-query><model-response><div data-message-id="r-42"><p>the answer</p></div></model-response>`,
			want: []summary{{"r-42", "complete", "the answer"}},
		},
		{
			name: "no id: position",
			body: `<div data-role="assistant">one</div><div data-role="assistant">two</div>`,
			want: []summary{{"pos-1", "complete", "one"}, {"pos-2", "complete", "two"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DefaultMarker.Groups(parse(t, page(tt.body)))
			if got := summarize(r); !sameSummaries(got, tt.want) {
				t.Errorf("groups:\n got %+v\nwant %+v", got, tt.want)
			}
			if !r.Structure {
				t.Error("structure false")
			}
		})
	}
}

// stateTurn renders one assistant turn holding inner in each style, after
// one completed exchange.
var stateTurn = map[string]func(inner string) string{
	"marker": func(inner string) string {
		return `<div data-message-author-role="user" data-message-id="u1">q</div><div data-message-author-role="assistant" data-message-id="a1"><p>old</p></div>` +
			`<div data-message-author-role="user" data-message-id="u2">q2</div><div data-message-author-role="assistant" data-message-id="a2">` + inner + `</div>` + composer
	},
	"heading": func(inner string) string {
		return `<main><article><h3 class="sr-only">You said:</h3><p>q</p></article><article><h3 class="sr-only">Sim said:</h3><p>old</p></article>` +
			`<article><h3 class="sr-only">You said:</h3><p>q2</p></article><article><h3 class="sr-only">Sim said:</h3>` + inner + `</article></main>` + composer
	},
	"file": func(inner string) string {
		return `<div class="msg" data-from="human"><p>q</p><footer class="meta" data-msg-id="u1"></footer></div><div class="msg" data-from="bot"><p>old</p><footer class="meta" data-msg-id="a1"></footer></div>` +
			`<div class="msg" data-from="human"><p>q2</p><footer class="meta" data-msg-id="u2"></footer></div><div class="msg" data-from="bot">` + inner + `<footer class="meta" data-msg-id="a2"></footer></div>` + composer
	},
}

func styles(t *testing.T) map[string]Adapter {
	t.Helper()
	f, err := LoadFile(filepath.Join("testdata", "acme.json"))
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	return map[string]Adapter{"marker": DefaultMarker, "heading": DefaultHeading, "file": f}
}

func TestStatesEveryStyle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		inner    string
		state    string
		evidence string
		only     string // style the row applies to, "" for all
	}{
		{name: "complete", inner: `<p>done</p><button>Copy</button>`, state: StateComplete, evidence: "no generating signal"},
		{name: "stop control", inner: `<p>partial</p><button>Stop generating</button>`, state: StateGenerating, evidence: `stop control "Stop generating"`},
		{name: "stop streaming", inner: `<p>partial</p><button aria-label="Stop streaming"></button>`, state: StateGenerating, evidence: `stop control "Stop streaming"`},
		{name: "aria-busy", inner: `<div aria-busy="true"><p>partial</p></div>`, state: StateGenerating, evidence: "aria-busy=true"},
		{name: "data-is-streaming", inner: `<div data-is-streaming="true">partial</div>`, state: StateGenerating, evidence: "data-is-streaming=true"},
		{name: "typing indicator", inner: `<span class="typing-indicator">…</span>`, state: StateGenerating, evidence: "typing indicator"},
		{name: "confirmation", inner: `<p>Run the tool?</p><button>Approve</button><button>Cancel</button>`, state: StateNeedsConfirmation, evidence: `confirmation control "Approve"`},
		{name: "alert with retry", inner: `<div role="alert">Something went wrong</div><button>Retry</button>`, state: StateFailed, evidence: `role=alert with retry control "Retry"`},
		{name: "error text with retry", inner: `<p>Something went wrong.</p><button>Try again</button>`, state: StateFailed, evidence: `error text "something went wrong" with retry control "Try again"`},
		{name: "error text without retry is content", inner: `<p>Something went wrong in your code.</p>`, state: StateComplete, evidence: "no generating signal"},
		{name: "hidden stop control does not count", inner: `<p>done</p><button style="display:none">Stop generating</button>`, state: StateComplete, evidence: "no generating signal"},
		{name: "stopped note", inner: `<p>Paris is</p><div class="note">You stopped this response.</div><button>Regenerate</button>`, state: StateStopped, evidence: `stopped note "you stopped this response"`},
		{name: "file: own stopped signal", inner: `<div data-state="halted">x</div>`, state: StateStopped, evidence: "data-state=halted", only: "file"},
		{name: "file: own spinner", inner: `<span class="acme-spinner"></span>`, state: StateGenerating, evidence: `selector ".acme-spinner"`, only: "file"},
		{name: "file: own attribute", inner: `<div data-state="streaming">x</div>`, state: StateGenerating, evidence: "data-state=streaming", only: "file"},
		{name: "file: own button", inner: `<button>Halt</button>`, state: StateGenerating, evidence: `control "Halt"`, only: "file"},
		{name: "file: own confirmation", inner: `<button>Run tool</button>`, state: StateNeedsConfirmation, evidence: `control "Run tool"`, only: "file"},
		{name: "file: own failure text", inner: `<p>Quota exceeded for today</p>`, state: StateFailed, evidence: `text "quota exceeded"`, only: "file"},
	}
	ads := styles(t)
	for _, style := range []string{"marker", "heading", "file"} {
		for _, tt := range tests {
			if tt.only != "" && tt.only != style {
				continue
			}
			t.Run(style+"/"+tt.name, func(t *testing.T) {
				r := ads[style].Groups(parse(t, page(stateTurn[style](tt.inner))))
				if len(r.Groups) != 2 {
					t.Fatalf("got %d groups, want 2: %+v", len(r.Groups), summarize(r))
				}
				if r.Groups[0].State != StateComplete {
					t.Errorf("older group state %q, want complete", r.Groups[0].State)
				}
				g := r.Groups[1]
				if g.State != tt.state || g.Evidence != tt.evidence {
					t.Errorf("state %q (%s), want %q (%s)", g.State, g.Evidence, tt.state, tt.evidence)
				}
			})
		}
	}
}

func TestMediaInTheGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		inner string
		want  []Media
	}{
		{name: "ready video", inner: `<video data-rl-ready="4" data-rl-src="https://v.test/a.mp4"></video>`,
			want: []Media{{Kind: "video", Ready: true, Evidence: "readyState=4 source=yes"}}},
		{name: "video without source", inner: `<video data-rl-ready="4"></video>`,
			want: []Media{{Kind: "video", Ready: false, Evidence: "readyState=4 source=no"}}},
		{name: "video loading", inner: `<video data-rl-ready="2"><source src="a.mp4"></video>`,
			want: []Media{{Kind: "video", Ready: false, Evidence: "readyState=2 source=yes"}}},
		{name: "video with source child ready", inner: `<video data-rl-ready="3"><source src="a.mp4"></video>`,
			want: []Media{{Kind: "video", Ready: true, Evidence: "readyState=3 source=yes"}}},
		{name: "image complete", inner: `<img class="generated" data-rl-ready="complete" data-rl-size="512x512">`,
			want: []Media{{Kind: "image", Ready: true, Evidence: "load=complete size=512x512"}}},
		{name: "image zero size", inner: `<img class="generated" data-rl-ready="complete" data-rl-size="0x0">`,
			want: []Media{{Kind: "image", Ready: false, Evidence: "load=complete size=0x0"}}},
		{name: "image broken", inner: `<img class="generated" data-rl-ready="broken" data-rl-size="16x16">`,
			want: []Media{{Kind: "image", Ready: false, Evidence: "load=broken size=16x16"}}},
		{name: "plain html image", inner: `<img class="generated" src="a.png">`,
			want: []Media{{Kind: "image", Ready: false, Evidence: "load=none size=none"}}},
	}
	ads := styles(t)
	for _, style := range []string{"marker", "heading", "file"} {
		for _, tt := range tests {
			t.Run(style+"/"+tt.name, func(t *testing.T) {
				// the older group holds a ready video: it must not leak in
				src := strings.Replace(stateTurn[style](tt.inner), "<p>old</p>", `<p>old</p><video data-rl-ready="4" data-rl-src="old.mp4"></video>`, 1)
				r := ads[style].Groups(parse(t, page(src)))
				if len(r.Groups) != 2 {
					t.Fatalf("got %d groups, want 2", len(r.Groups))
				}
				got := r.Groups[1].Media
				if len(got) != len(tt.want) {
					t.Fatalf("media %+v, want %+v", got, tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("media[%d] %+v, want %+v", i, got[i], tt.want[i])
					}
				}
				if old := r.Groups[0].Media; len(old) != 1 || !old[0].Ready {
					t.Errorf("older group media %+v, want its own ready video", old)
				}
			})
		}
	}
}

func TestIDStability(t *testing.T) {
	t.Parallel()
	exchange := map[string]func(i int) string{
		"marker": func(i int) string {
			return `<div data-message-author-role="user" data-message-id="u` + itoa(i) + `">q</div><div data-message-author-role="assistant" data-message-id="a` + itoa(i) + `">same text</div>`
		},
		"heading": func(i int) string {
			return `<h3 class="sr-only">You said:</h3><p>q</p><h3 class="sr-only">Sim said:</h3><p>same text</p>`
		},
		"file": func(i int) string {
			return `<div class="msg" data-from="human">q<footer class="meta" data-msg-id="u` + itoa(i) + `"></footer></div><div class="msg" data-from="bot">same text<footer class="meta" data-msg-id="a` + itoa(i) + `"></footer></div>`
		},
	}
	ads := styles(t)
	for style, ex := range exchange {
		t.Run(style, func(t *testing.T) {
			src := page(`<main>` + repeat(5, ex) + `</main>` + composer)
			first := ads[style].Groups(parse(t, src)).IDs()
			again := ads[style].Groups(parse(t, src)).IDs()
			if strings.Join(first, ",") != strings.Join(again, ",") || len(first) != 5 {
				t.Fatalf("same page: %v then %v", first, again)
			}
			longer := ads[style].Groups(parse(t, page(`<main>`+repeat(6, ex)+`</main>`+composer))).IDs()
			if len(longer) != 6 || strings.Join(longer[:5], ",") != strings.Join(first, ",") {
				t.Fatalf("after append: %v, before %v", longer, first)
			}
			for _, id := range first {
				if id == longer[5] {
					t.Fatalf("appended turn reuses id %q", id)
				}
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func observeText(n *html.Node) string { return one(n).textRaw() }

func TestAuto(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		adapter string
		ids     []string
	}{
		{name: "marker page", body: stateTurn["marker"]("<p>x</p>"), adapter: "auto→marker", ids: []string{"a1", "a2"}},
		{name: "heading page", body: stateTurn["heading"]("<p>x</p>"), adapter: "auto→heading", ids: []string{"heading:1", "heading:2"}},
		{name: "both: marker wins", body: `<h2>You</h2><p>q</p><h2>Assistant</h2><div data-role="assistant" data-id="m1">a</div>`, adapter: "auto→marker", ids: []string{"m1"}},
		{name: "neither", body: `<main><h1>Welcome</h1><p>` + strings.Repeat("text ", 50) + `</p></main>`, adapter: "auto", ids: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DefaultAuto.Groups(parse(t, page(tt.body)))
			if r.Adapter != tt.adapter || strings.Join(r.IDs(), ",") != strings.Join(tt.ids, ",") {
				t.Errorf("got %s %v, want %s %v (note %q)", r.Adapter, r.IDs(), tt.adapter, tt.ids, r.Note)
			}
			if r.Note == "" {
				t.Error("no note")
			}
			if r.Structure != (len(tt.ids) > 0) {
				t.Errorf("structure %v", r.Structure)
			}
		})
	}
}

func TestByName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, arg, want string
		err             error
	}{
		{name: "marker", arg: "marker", want: "marker"},
		{name: "heading", arg: "heading", want: "heading"},
		{name: "auto", arg: "auto", want: "auto"},
		{name: "file", arg: filepath.Join("testdata", "acme.json"), want: "file:acme"},
		{name: "unknown", arg: "markdown", err: ErrUnknownAdapter},
		{name: "empty", arg: "", err: ErrUnknownAdapter},
		{name: "bad file", arg: filepath.Join("testdata", "bad_version.json"), err: ErrBadAdapterFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ByName(tt.arg)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err %v, want %v", err, tt.err)
				}
				if tt.err == ErrUnknownAdapter && !strings.Contains(err.Error(), "marker, heading, auto") {
					t.Errorf("error %q does not name the choices", err)
				}
				return
			}
			if err != nil || a.Name() != tt.want {
				t.Fatalf("got %v, %v; want %s", a, err, tt.want)
			}
		})
	}
}

func TestGroupOfFlatTurn(t *testing.T) {
	t.Parallel()
	doc := parse(t, page(`<main><h2>You</h2><p>q</p><h2>Assistant</h2><p>a <a href="/x">link</a></p><button>Copy</button>`+composer+`</main>`))
	r := DefaultHeading.Groups(doc)
	if len(r.Groups) != 1 {
		t.Fatalf("groups %+v", summarize(r))
	}
	of := r.GroupOf()
	var link, send, user *html.Node
	walkEl(doc.Frames[0].Root, func(n *html.Node) bool {
		switch {
		case n.Data == "a":
			link = n
		case n.Data == "button" && observeText(n) == "Send":
			send = n
		case n.Data == "p" && observeText(n) == "q":
			user = n
		}
		return true
	})
	if got := of(link); got != "heading:1" {
		t.Errorf("link in group %q, want heading:1", got)
	}
	if got := of(send); got != "" {
		t.Errorf("composer's send button in group %q", got)
	}
	if got := of(user); got != "" {
		t.Errorf("user turn in group %q", got)
	}
}

// The text of a group never holds the site's toolbars or badges (APP-3).
func TestToolbarsAndBadgesAreNotText(t *testing.T) {
	t.Parallel()
	tests := []textCase{
		{"role=toolbar", `<p>Paris.</p><div role="toolbar"><span>nova-pro</span><button>Copy</button></div>`, "Paris."},
		{"a badge class", `<p>Paris.</p><span class="model-badge">nova-pro</span>`, "Paris."},
		{"a toolbar class", `<p>Paris.</p><div class="message-toolbar"><span>2 / 2</span><button>Copy</button></div>`, "Paris."},
		{"other text stays", `<p>Paris.</p><footer class="meta">Sources: 2</footer>`, "Paris. Sources: 2"},
	}
	checkAnswerText(t, tests)
}
