package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
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
