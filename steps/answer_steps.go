package steps

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/sim"
)

// The answer cases the first vocabulary could not say: streams that end
// in a failure or a confirmation the user answers, older groups that are
// stuck generating or whose media is not ready, a second Send button, and
// checks of the baseline, the partial text and where the answer sits.

func answerSteps(r *table) {
	const g = "Chat site (sim)"
	r.step(g, `^the next answer streams "([^"]*)" for (\d+) ms and fails$`,
		"the next send gets a partial answer with a generating indicator for that long, then an error (role=alert) and a Retry control in the same group",
		`And the next answer streams "Let me check" for 600 ms and fails`, givenStreamFails, needsSim)
	r.step(g, `^the next answer streams "([^"]*)" for (\d+) ms and asks for confirmation with "([^"]*)"$`,
		"the next send gets a partial answer for that long, then that question with Confirm and Cancel controls in the same group",
		`And the next answer streams "Looking" for 600 ms and asks for confirmation with "Delete 3 files?"`, givenStreamConfirms, needsSim)
	r.step(g, `^confirming it completes the answer as "([^"]*)"$`,
		`what the last scripted confirmation request becomes when the user clicks its "Confirm" (default "`+sim.DefaultConfirmed+`")`,
		`And confirming it completes the answer as "Deleted 3 files."`, givenConfirmed, needsSim)
	r.step(g, `^cancelling it ends the answer as "([^"]*)"$`,
		`what the last scripted confirmation request becomes when the user clicks its "Cancel" (default "`+sim.DefaultCancelled+`")`,
		`And cancelling it ends the answer as "Kept every file."`, givenCancelled, needsSim)
	r.step(g, `^the last earlier answer is still generating$`,
		"the last earlier assistant turn is stuck generating (a typing indicator and Stop generating) for ever",
		"And the last earlier answer is still generating", givenOlderGenerating, needsSim)
	r.step(g, `^the last earlier answer has an? (video|image) that never loads$`,
		"the last earlier assistant turn holds media that never gets a source (the mirror image of the stale media case)",
		"And the last earlier answer has a video that never loads", givenOlderMediaPending, needsSim)
	r.alias(`^the last earlier answer has a ready (video|image)$`, `^the last earlier answer has a ready (video|image) at the same URL as the next answer's$`,
		"And the last earlier answer has a ready image at the same URL as the next answer's", givenLastAnswerMedia)
	r.step(g, `^the chat page has two "Send" buttons$`,
		`a second button named "Send" (a quick reply beside the composer), so "Send" no longer resolves to one control`,
		`And the chat page has two "Send" buttons`, givenDuplicateSend, needsSim)

	const c = "Answer checks"
	r.step(c, `^the answer group is the last group on the page$`,
		"a fresh page snapshot: the group the wait chose is the last answer group on the page",
		"Then the answer group is the last group on the page", answerIsLast)
	r.step(c, `^the baseline holds (\d+) groups?$`,
		"the baseline the last send stored (the answer groups on the page before its click) has that many groups",
		"And the baseline holds 2 groups", baselineSize)
	r.step(c, `^the baseline holds the groups "([^"]*)"$`,
		"the baseline's group ids, comma-separated, in page order",
		`And the baseline holds the groups "msg-0002, msg-0004"`, baselineIDs)
	r.step(c, `^the partial text seen was "([^"]*)"$`,
		"the last text the wait read while the new group was still generating (whitespace-normalised); fails when the wait never saw it generating",
		`And the partial text seen was "Paris is"`, partialSeen)
	r.step(c, `^the answer equals the last earlier answer$`,
		"the new group's text is exactly the last earlier answer's text, and the group is not one of the earlier groups (ANS-4)",
		"And the answer equals the last earlier answer", answerEqualsLast)
	r.step(c, `^the sim received (\d+) messages?$`,
		"live runs only: the chat messages that reached the sim (a replay has no server: its recording holds each click once, and a click it does not hold fails with REPLAY_DIVERGED)",
		"And the sim received 0 messages", simReceived, needsSim)
}

// lastAnswer is the last scripted answer, for the steps that amend it.
func (w *world) lastAnswer() (*sim.Answer, error) {
	if len(w.chat.Answers) == 0 {
		return nil, fmt.Errorf(`script an answer first (e.g. "the next answer asks for confirmation after 300 ms")`)
	}
	return &w.chat.Answers[len(w.chat.Answers)-1], nil
}

func givenStreamFails(ctx context.Context, partial string, n int) error {
	return worldOf(ctx).addAnswer(sim.Answer{Partial: partial, Kind: sim.KindError, Generate: ms(n)})
}

func givenStreamConfirms(ctx context.Context, partial string, n int, question string) error {
	return worldOf(ctx).addAnswer(sim.Answer{Partial: partial, Final: question, Kind: sim.KindConfirm, Generate: ms(n)})
}

func givenConfirmed(ctx context.Context, text string) error {
	return amendConfirm(ctx, func(a *sim.Answer) { a.Confirmed = text })
}

func givenCancelled(ctx context.Context, text string) error {
	return amendConfirm(ctx, func(a *sim.Answer) { a.Cancelled = text })
}

func amendConfirm(ctx context.Context, set func(*sim.Answer)) error {
	w := worldOf(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.Kind != sim.KindConfirm {
		return fmt.Errorf("the last scripted answer does not ask for confirmation")
	}
	set(a)
	return w.applyChat()
}

func givenOlderGenerating(ctx context.Context) error {
	w := worldOf(ctx)
	w.chat.LastAnswerGenerating = true
	return w.applyChat()
}

func givenOlderMediaPending(ctx context.Context, kind string) error {
	w := worldOf(ctx)
	w.chat.LastAnswerMedia, w.chat.LastAnswerMediaPending = kind, true
	return w.applyChat()
}

func givenDuplicateSend(ctx context.Context) error {
	w := worldOf(ctx)
	w.chat.DuplicateSend = true
	return w.applyChat()
}

func answerIsLast(ctx context.Context) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	r, err := w.needAnswer()
	if err != nil {
		return err
	}
	v, err := p.Snapshot(ctx, observe.ViewPage)
	if err != nil {
		return err
	}
	w.lastView = v
	if len(v.Groups) == 0 {
		return fmt.Errorf("the page shows no answer group")
	}
	if last := v.Groups[len(v.Groups)-1].ID; last != r.GroupID {
		return fmt.Errorf("the last group on the page is %s, the answer is %s", last, r.GroupID)
	}
	return nil
}

// lastBaseline is the baseline the engine traced for the last send.
func (w *world) lastBaseline() (trace.Event, error) {
	ev := w.log.Events()
	for i := len(ev) - 1; i >= 0; i-- {
		if ev[i].Kind == "baseline" {
			return ev[i], nil
		}
	}
	return trace.Event{}, fmt.Errorf(`no baseline was stored; send first ("I send …")`)
}

func baselineSize(ctx context.Context, n int) error {
	b, err := worldOf(ctx).lastBaseline()
	if err != nil {
		return err
	}
	if got := b.Get("size"); got != fmt.Sprint(n) {
		return fmt.Errorf("the baseline holds %s groups (%s), want %d", got, b.Get("ids"), n)
	}
	return nil
}

func baselineIDs(ctx context.Context, want string) error {
	b, err := worldOf(ctx).lastBaseline()
	if err != nil {
		return err
	}
	var ids []string
	for id := range strings.SplitSeq(want, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if got := b.Get("ids"); got != strings.Join(ids, ",") {
		return fmt.Errorf("the baseline holds %q, want %q", got, strings.Join(ids, ","))
	}
	return nil
}

func partialSeen(ctx context.Context, want string) error {
	r, err := worldOf(ctx).needAnswer()
	if err != nil {
		return err
	}
	if !slices.Contains(r.States, "generating") {
		return fmt.Errorf("the wait never saw the group generating (states %v)", r.States)
	}
	if observe.Normalize(r.PartialText) != observe.Normalize(want) {
		return fmt.Errorf("the partial text seen was %q, want %q", r.PartialText, want)
	}
	return nil
}

func answerEqualsLast(ctx context.Context) error {
	w := worldOf(ctx)
	r, err := w.needAnswer()
	if err != nil {
		return err
	}
	want := w.chat.LastAnswerText()
	if want == "" {
		return fmt.Errorf("the chat has no earlier answer")
	}
	if observe.Normalize(r.Text) != observe.Normalize(want) {
		return fmt.Errorf("the answer %q is not the last earlier answer %q", r.Text, want)
	}
	return answerIsNew(ctx)
}

func simReceived(ctx context.Context, n int) error {
	w := worldOf(ctx)
	if w.sim == nil {
		return nil // replay: the recording proves it (see the step's meaning)
	}
	got := 0
	for _, m := range w.sim.Received() {
		if !strings.HasPrefix(m, "act:save:") {
			got++
		}
	}
	if got != n {
		return fmt.Errorf("the sim received %d messages, want %d", got, n)
	}
	return nil
}
