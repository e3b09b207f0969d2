package adapter

import "testing"

// TestTextAsRendered proves LIB-7: an answer's text joins inline elements
// as the page renders them, keeps a code block's lines, and leaves out a
// code block's language label and Copy button.
func TestTextAsRendered(t *testing.T) {
	t.Parallel()
	tests := []textCase{
		{"highlighted code spans",
			`<p>Use this:</p><pre><code><span class="k">def</span> <span class="nf">greet</span>(<span class="n">name</span>): <span class="k">return</span> <span class="s">f"Hello, </span><span class="si">{</span>name<span class="si">}</span><span class="s">!"</span></code></pre>`,
			`Use this: def greet(name): return f"Hello, {name}!"`},
		{"code block keeps its lines",
			"<p>Two lines:</p><pre><code><span class=\"k\">def</span> greet(name):\n    <span class=\"k\">return</span> name\n</code></pre><p>Done.</p>",
			"Two lines: def greet(name):\n    return name Done."},
		{"inline code and emphasis",
			`<p>Call <code>greet</code>(<em>name</em>)s, <b>bold</b>ly.</p>`,
			`Call greet(name)s, boldly.`},
		{"blocks and breaks separate",
			`<p>one</p><p>two<br>three</p><ul><li>a</li><li>b</li></ul>`,
			`one two three a b`},
		{"header with label and copy button beside the pre",
			`<p>Code:</p><div class="code-block"><div class="code-head"><span>python</span><button>Copy</button></div><pre><code>print(1)</code></pre></div>`,
			`Code: print(1)`},
		{"label inside the pre beside its code",
			`<pre><span class="lang">python</span><code>print(1)</code></pre>`,
			`print(1)`},
		{"a paragraph before a code block stays",
			`<div><p>Here is python</p><pre><code>x = 1</code></pre></div>`,
			`Here is python x = 1`},
	}
	checkAnswerText(t, tests)
}

// textCase is an answer turn's inner markup and the text the adapter
// must read from it.
type textCase struct{ name, inner, text string }

// checkAnswerText reads each case as the second group of a page in
// every style and checks its text.
func checkAnswerText(t *testing.T, tests []textCase) {
	t.Helper()
	ads := styles(t)
	for _, style := range []string{"marker", "heading", "file"} {
		for _, tt := range tests {
			t.Run(style+"/"+tt.name, func(t *testing.T) {
				r := ads[style].Groups(parse(t, page(stateTurn[style](tt.inner))))
				if len(r.Groups) != 2 {
					t.Fatalf("got %d groups, want 2", len(r.Groups))
				}
				if got := r.Groups[1].Text; got != tt.text {
					t.Errorf("text %q, want %q", got, tt.text)
				}
			})
		}
	}
}
