package adapter

import (
	"strings"
	"testing"
)

const composer = `<form><textarea aria-label="Message"></textarea><button>Send</button></form>`

func TestHeadingStyle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		body      string
		want      []summary
		turns     int
		structure bool
	}{
		{
			name: "visible h2 You/Assistant wrapped",
			body: `<main><div class="turn"><h2>You</h2><p>What is 2+2?</p></div>
<div class="turn"><h2>Assistant</h2><p>It is 4.</p></div>
<div class="turn"><h2>You</h2><p>And 3+3?</p></div>
<div class="turn"><h2>Assistant</h2><p>It is 6.</p></div></main>` + composer,
			want:  []summary{{"heading:1", "complete", "It is 4."}, {"heading:2", "complete", "It is 6."}},
			turns: 4, structure: true,
		},
		{
			name: "sr-only h3 said-labels with message start, wrapped",
			body: `<div class="thread"><article><h3 class="sr-only">You said: hello there</h3><div>hello there</div></article>
<article><h3 class="sr-only">Copilot said: Hi! How</h3><div>Hi! How can I help?</div></article>
<article><h3 class="sr-only">You said: tell me a joke</h3><div>tell me a joke</div></article>
<article><h3 class="sr-only">Copilot said: Why did</h3><div>Why did the chicken cross the road?</div></article></div>` + composer,
			want:  []summary{{"heading:1", "complete", "Hi! How can I help?"}, {"heading:2", "complete", "Why did the chicken cross the road?"}},
			turns: 4, structure: true,
		},
		{
			name: "flat siblings with sr-only headings, unknown assistant name",
			body: `<main><h5 class="sr-only">You said:</h5><p>first question</p>
<h6 class="sr-only">Sim said:</h6><p>first answer</p><p>second paragraph</p>
<h5 class="sr-only">You said:</h5><p>second question</p>
<h6 class="sr-only">Sim said:</h6><p>second answer</p>` + composer + `<p>footer after composer</p></main>`,
			want:  []summary{{"heading:1", "complete", "first answer second paragraph"}, {"heading:2", "complete", "second answer"}},
			turns: 4, structure: true,
		},
		{
			name:  "flat bare text between headings",
			body:  `<div><h4>User</h4>question one<h4>Bot</h4>answer one<h4>User</h4>question two<h4>Bot</h4>answer two</div>`,
			want:  []summary{{"heading:1", "complete", "answer one"}, {"heading:2", "complete", "answer two"}},
			turns: 4, structure: true,
		},
		{
			name: "non-recurring heading inside an answer stays content",
			body: `<section><h2>You</h2><p>plan a trip</p></section>
<section><h2>Assistant</h2><h3>Day 1: Paris</h3><p>Louvre.</p><h3>Day 2</h3><p>Versailles.</p></section>
<section><h2>You</h2><p>thanks</p></section>
<section><h2>Assistant</h2><p>Enjoy!</p></section>` + composer,
			want:  []summary{{"heading:1", "complete", "Day 1: Paris Louvre. Day 2 Versailles."}, {"heading:2", "complete", "Enjoy!"}},
			turns: 4, structure: true,
		},
		{
			name:  "content heading in flat answer does not split it",
			body:  `<main><h2>You</h2><p>q</p><h2>Assistant</h2><p>intro</p><h3>Summary</h3><p>sum</p><h2>You</h2><p>q2</p><h2>Assistant</h2><p>a2</p><h3>Summary</h3><p>sum2</p></main>`,
			want:  []summary{{"heading:1", "complete", "intro Summary sum"}, {"heading:2", "complete", "a2 Summary sum2"}},
			turns: 4, structure: true,
		},
		{
			name:  "composer ends the last flat turn",
			body:  `<div><h2>You</h2><p>q</p><h2>Assistant</h2><p>partial</p><div contenteditable="true">draft text</div><p>below</p></div>`,
			want:  []summary{{"heading:1", "complete", "partial"}},
			turns: 2, structure: true,
		},
		{
			name:  "one exchange, assistant label by form",
			body:  `<main><div><h3 class="sr-only">You said:</h3><p>hi</p></div><div><h3 class="sr-only">Orbit said:</h3><p>hello</p></div></main>` + composer,
			want:  []summary{{"heading:1", "complete", "hello"}},
			turns: 2, structure: true,
		},
		{
			name:  "only a user turn: structure, no groups",
			body:  `<main><div><h3 class="sr-only">You said:</h3><p>hi</p></div></main>` + composer,
			want:  []summary{},
			turns: 1, structure: true,
		},
		{
			name:  "only an assistant greeting",
			body:  `<main><div><h2>Assistant</h2><p>How can I help?</p></div></main>` + composer,
			want:  []summary{{"heading:1", "complete", "How can I help?"}},
			turns: 1, structure: true,
		},
		{
			name: "aria-hidden and display:none headings do not count",
			body: `<main><div><h2>You</h2><p>q</p></div><div><h2 aria-hidden="true">Assistant</h2><p>a</p></div>
<div style="display:none"><h2>Assistant</h2><p>hidden answer</p></div></main>`,
			want:  []summary{},
			turns: 1, structure: true,
		},
		{
			name:  "role=heading speakers",
			body:  `<div><div role="heading" aria-level="3">You</div><p>q</p></div><div><div role="heading" aria-level="3">Assistant</div><p>a</p></div>`,
			want:  []summary{{"heading:1", "complete", "a"}},
			turns: 2, structure: true,
		},
		{
			name:      "no speakers: structure unknown, never the longest text",
			body:      `<main><h1>Docs</h1><h2>User settings</h2><p>` + strings.Repeat("long text ", 100) + `</p></main>`,
			want:      []summary{},
			turns:     0,
			structure: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DefaultHeading.Groups(parse(t, page(tt.body)))
			if got := summarize(r); !sameSummaries(got, tt.want) {
				t.Errorf("groups:\n got %+v\nwant %+v", got, tt.want)
			}
			if r.Turns != tt.turns || r.Structure != tt.structure {
				t.Errorf("turns, structure = %d, %v; want %d, %v", r.Turns, r.Structure, tt.turns, tt.structure)
			}
			for _, g := range r.Groups {
				if !strings.HasPrefix(g.Rule, "heading: speaker label ") {
					t.Errorf("rule %q", g.Rule)
				}
			}
		})
	}
}
