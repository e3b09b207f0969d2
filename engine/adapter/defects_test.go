package adapter

import "testing"

// Pages shaped like real chat UIs that the built-in adapters once misread:
// a streaming class on the element wrapping the answer's text blanked the
// text, and standing action-bar buttons every answer carries read as a
// confirmation request.
func TestRealUIDefects(t *testing.T) {
	t.Parallel()
	bar := `<div class="actions"><button>Copy</button><button>Regenerate</button><button>Continue Response</button><button>Continue</button></div>`
	for _, tc := range []struct {
		name, style, body string
		want              summary
	}{
		{"marker: streaming class on the text wrapper keeps the partial text", "marker",
			`<div data-message-author-role="user" data-message-id="u1">Why?</div><div data-message-author-role="assistant" data-message-id="a1"><div class="markdown result-streaming"><p>Because the sky</p></div></div>`,
			summary{"a1", StateGenerating, "Because the sky"}},
		{"heading: streaming class on the text wrapper keeps the partial text", "heading",
			`<article><h3 class="sr-only">You said:</h3><p>Why?</p></article><article><h3 class="sr-only">Copilot said:</h3><div class="result-streaming"><p>Because the sky</p></div></article>`,
			summary{"heading:1", StateGenerating, "Because the sky"}},
		{"a typing indicator is still left out of the text", "marker",
			`<div data-message-author-role="assistant" data-message-id="a1"><p>Because</p><span class="typing-indicator">typing…</span></div>`,
			summary{"a1", StateGenerating, "Because"}},
		{"marker: a standing action bar is no confirmation", "marker",
			`<div data-message-author-role="user" data-message-id="u1">Hi</div><div data-message-author-role="assistant" data-message-id="a1"><p>Hello there, how can I help?</p>` + bar + `</div>`,
			summary{"a1", StateComplete, "Hello there, how can I help?"}},
		{"heading: a standing action bar is no confirmation", "heading",
			`<article><h3 class="sr-only">You said:</h3><p>Hi</p></article><article><h3 class="sr-only">Copilot said:</h3><p>Hello there.</p>` + bar + `</article>`,
			summary{"heading:1", StateComplete, "Hello there."}},
		{"a confirm/cancel pair is a confirmation request", "marker",
			`<div data-message-author-role="assistant" data-message-id="a1"><p>This will delete 3 files.</p><button>Confirm</button><button>Cancel</button>` + bar + `</div>`,
			summary{"a1", StateNeedsConfirmation, "This will delete 3 files."}},
		{"an approve/deny pair is a confirmation request", "marker",
			`<div data-message-author-role="assistant" data-message-id="a1"><p>Run the tool?</p><button>Approve</button><button>Deny</button></div>`,
			summary{"a1", StateNeedsConfirmation, "Run the tool?"}},
		{"a question with a go-ahead control is a confirmation request", "marker",
			`<div data-message-author-role="assistant" data-message-id="a1"><p>Shall I go on?</p><button>Proceed</button>` + bar + `</div>`,
			summary{"a1", StateNeedsConfirmation, "Shall I go on?"}},
		{"a lone Cancel is no confirmation", "marker",
			`<div data-message-author-role="assistant" data-message-id="a1"><p>Done.</p><button>Cancel</button></div>`,
			summary{"a1", StateComplete, "Done."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ad, err := ByName(tc.style)
			if err != nil {
				t.Fatal(err)
			}
			r := ad.Groups(parse(t, page(tc.body)))
			if len(r.Groups) == 0 {
				t.Fatalf("no groups (%s)", r.Note)
			}
			got := summarize(r)[len(r.Groups)-1]
			if got != tc.want {
				t.Fatalf("got %+v (evidence %q), want %+v", got, r.Groups[len(r.Groups)-1].Evidence, tc.want)
			}
		})
	}
}
