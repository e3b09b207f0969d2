package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
)

// TestStopWaitsToShowAndGoesInPlace (LIB-5): a Stop given by selector
// that shows only once the answer streams (deep-chat turns its send
// button into Stop when the first words arrive) is waited for, not
// TARGET_NOT_FOUND at once; and it is gone once the same element no
// longer matches its selector (it turned back into Send in place). One
// that never shows is TARGET_NOT_FOUND at the timeout.
func TestStopWaitsToShowAndGoesInPlace(t *testing.T) {
	page := func(button string) *capture.Capture {
		return capture.New(url, `<html><body><main><div data-message-author-role="user" data-message-id="u1"><p>Tell me</p></div>`+
			`<div data-message-author-role="assistant" data-message-id="a1"><p>Once upon</p></div>`+
			`<div id="input"><div class="input-button" role="button" tabindex="0" data-rl-node="n2">`+button+`</div></div></main></body></html>`)
	}
	loading, stop, send := page(`<div class="loading"></div>`), page(`<div id="stop-icon"></div>`), page(`<svg id="submit-icon"></svg>`)
	target := engine.Target{Selector: "#input .input-button:has(#stop-icon)"}
	for _, tc := range []struct {
		name   string
		before []*capture.Capture
		code   errcode.Code // "" for success
	}{
		{"shows once the answer streams", []*capture.Capture{loading, loading, stop}, ""},
		{"never shows", []*capture.Capture{loading, loading, loading, loading}, locate.TargetNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, _ := run(t, recording(tc.before, send))
			err := p.Click(context.Background(), target, engine.Expect{Gone: &target, Stop: true, Timeout: 250 * time.Millisecond})
			if got := errcode.Of(err); got != tc.code {
				t.Fatalf("stop: %v (code %q), want code %q", err, got, tc.code)
			}
		})
	}
}

// toastReader is the marker adapter plus a page-level failure signal: a
// .toast on the page (what a site profile's "failed" signals give).
type toastReader struct{ adapter.Adapter }

func (r toastReader) Groups(doc *observe.Document) adapter.Result {
	res := r.Adapter.Groups(doc)
	for _, f := range doc.Frames {
		observe.WalkElements(f.Root, func(n *html.Node) bool {
			for _, a := range n.Attr {
				if a.Key == "class" && a.Val == "toast" {
					res.Failure = `page failure signal selector ".toast"`
				}
			}
			return res.Failure == ""
		})
	}
	return res
}

// TestSendOutcomeIsAPageFailure (LIB-5): a send after which the library
// adds no answer group but shows a page-level failure signal is met by
// the signal, and the answer wait ends ANSWER_FAILED with it; without the
// signal the send's outcome is unknown.
func TestSendOutcomeIsAPageFailure(t *testing.T) {
	before := capture.New(url, `<html><body><main><div data-message-author-role="user" data-message-id="u1"><p>Hi</p></div>`+
		`<div data-message-author-role="assistant" data-message-id="a1"><p>Hello.</p></div><button data-rl-node="n2">Send</button></main></body></html>`)
	page := func(toast string) *capture.Capture {
		return capture.New(url, `<html><body><main><div data-message-author-role="user" data-message-id="u1"><p>Hi</p></div>`+
			`<div data-message-author-role="assistant" data-message-id="a1"><p>Hello.</p></div><div data-message-author-role="user" data-message-id="u2"><p>Fail</p></div>`+
			`<button data-rl-node="n2">Send</button></main>`+toast+`</body></html>`)
	}
	for _, tc := range []struct {
		name   string
		after  *capture.Capture
		code   errcode.Code
		status string
	}{
		{"a toast and no answer", page(`<div class="toast">The model is overloaded.</div>`), "", answer.StatusFailed},
		{"no toast, no answer", page(""), errcode.OutcomeUnknown, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d := replay.NewDriver(recording([]*capture.Capture{before}, tc.after))
			p := engine.New(engine.Config{Tracer: &trace.Log{}, Adapter: toastReader{adapter.DefaultMarker}}).Begin(ctx, t.Name()).Page("main", d)
			if err := p.Navigate(ctx, url); err != nil {
				t.Fatal(err)
			}
			err := p.Click(ctx, engine.ByRole("button", "Send"), engine.Expect{NewAnswer: true, Timeout: 500 * time.Millisecond})
			if got := errcode.Of(err); got != tc.code {
				t.Fatalf("send: %v (code %q), want code %q", err, got, tc.code)
			}
			if tc.status == "" {
				return
			}
			res, err := p.WaitAnswer(ctx, answer.Options{Timeout: time.Second})
			if err != nil || res.Status != tc.status || !strings.Contains(res.Evidence, ".toast") {
				t.Fatalf("wait: %v %s (%s), want %s naming the toast", err, res.Status, res.Evidence, tc.status)
			}
		})
	}
}
