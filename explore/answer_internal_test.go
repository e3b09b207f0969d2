package explore

import (
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/sim"
)

// TestCheckAnswerCatchesWrongWaits: every answer invariant rejects the
// result a broken wait would give.
func TestCheckAnswerCatchesWrongWaits(t *testing.T) {
	c := AnswerCase{Style: sim.StyleMarker, History: 4, Timeout: 5*time.Second + 5*time.Millisecond}
	video := c
	video.PageMedia, video.Media, video.StaleMedia = sim.MediaVideo, sim.MediaVideo, sim.MediaVideo
	complete := expected{status: answer.StatusComplete, states: []string{adapter.StateGenerating, adapter.StateComplete}, text: "T", newID: "msg-0006"}
	good := answer.Result{Status: answer.StatusComplete, GroupID: "msg-0006", States: complete.states, Text: "T"}
	tests := []struct {
		name string
		c    AnswerCase
		got  answer.Result
		want expected
		inv  Invariant // "" holds
	}{
		{"the right answer", c, good, complete, ""},
		{"a group loaded above the baseline", c, answer.Result{Status: answer.StatusComplete, GroupID: "old-0001-a"}, complete, InvNewAnswer},
		{"a baseline group", c, answer.Result{Status: answer.StatusComplete, GroupID: "msg-0004", States: complete.states, Text: "T"}, complete, InvNewAnswer},
		{"an answer where none was created", c, answer.Result{Status: answer.StatusComplete, GroupID: "msg-0004"}, expected{status: answer.StatusNoNewAnswer}, InvNewAnswer},
		{"complete on stale media", video, answer.Result{Status: answer.StatusComplete, GroupID: "msg-0006", Media: []adapter.Media{{Kind: "video", Ready: false}}}, complete, InvMediaNew},
		{"another status", c, answer.Result{Status: answer.StatusIncomplete, GroupID: "msg-0006", States: []string{adapter.StateGenerating}}, complete, InvAnswerStatus},
		{"a state missed", c, answer.Result{Status: answer.StatusComplete, GroupID: "msg-0006", States: []string{adapter.StateComplete}, Text: "T"}, complete, InvAnswerStatus},
		{"partial text as the answer", c, answer.Result{Status: answer.StatusComplete, GroupID: "msg-0006", States: complete.states, Text: "Partial: amber"}, complete, InvAnswerStatus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := checkAnswer(tt.c, tt.got, tt.want, "lab")
			switch {
			case tt.inv == "" && v != nil:
				t.Fatalf("got %v, want no violation", v)
			case tt.inv != "" && (v == nil || v.Invariant != tt.inv):
				t.Fatalf("got %v, want a violation of %q", v, tt.inv)
			}
		})
	}
}

// TestLiveMediaAndNodes: generated pages carry the live state a browser
// capture writes, with node ids that stay put as turns are added.
func TestLiveMediaAndNodes(t *testing.T) {
	if got := liveMedia(`<video src="/v" preload="auto"></video>`); got != `<video data-rl-ready="4" data-rl-src="`+sim.VideoSrc+`" src="/v" preload="auto"></video>` {
		t.Errorf("ready video: %s", got)
	}
	if got := liveMedia(`<img data-src="/p" alt="x">`); got != `<img data-rl-ready="loading" data-src="/p" alt="x">` {
		t.Errorf("image without source: %s", got)
	}
	if got := withNodes("s-", `<form id="composer"><textarea id="prompt"></textarea><button id="send">Send</button></form>`); got != `<form data-rl-node="s-0" id="composer"><textarea data-rl-node="s-prompt" id="prompt"></textarea><button data-rl-node="s-send" id="send">Send</button></form>` {
		t.Errorf("nodes: %s", got)
	}
}
