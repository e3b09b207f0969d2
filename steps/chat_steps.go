package steps

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/sim"
)

// The composer every chat step uses; the sim's marker chat names them so.
var (
	composer   = engine.ByRole("textbox", "Message")
	sendButton = engine.ByRole("button", "Send")
)

// answerTimeout bounds every wait of the chat steps.
const answerTimeout = 10 * time.Second

func init() {
	const g = "Chat site (sim)"
	step(g, `^a (marker)-style chat with (\d+) earlier turns$`,
		"the sim shows a chat in that markup style with N earlier turns, alternating user and assistant",
		"Given a marker-style chat with 4 earlier turns", givenChat)
	step(g, `^the last earlier answer is a long answer of (\d+) characters$`,
		"the last earlier assistant turn is a complete answer of that many characters",
		"And the last earlier answer is a long answer of 3000 characters", givenLongLastAnswer)
	step(g, `^the next answer streams "([^"]*)" for (\d+) ms and completes as "([^"]*)"$`,
		"the next send gets a partial answer with a generating indicator for that long, then the complete answer in the same group",
		`And the next answer streams "Paris is" for 600 ms and completes as "Paris is the capital of France."`, givenStreamingAnswer)
	step(g, `^the next answer completes as "([^"]*)" after (\d+) ms$`,
		"the next send gets an answer that is generating for that long, then complete",
		`And the next answer completes as "Short and new." after 300 ms`, givenAnswer)

	const a = "Engine actions"
	step(a, `^I open the chat$`, "the engine navigates the page to the sim's chat",
		"When I open the chat", openChat)
	step(a, `^I send "([^"]*)"$`,
		`the engine fills the composer (textbox "Message"), verifies it, and clicks "Send" expecting a new answer group`,
		`And I send "What is the capital of France?"`, send)
	step(a, `^I wait for the answer$`, "the engine waits for the newest group outside the baseline to finish",
		"And I wait for the answer", waitAnswer)
	step(a, `^I take a page snapshot$`, "the engine takes the page API's shorter snapshot",
		"When I take a page snapshot", takeSnapshot)

	const c = "Answer checks"
	step(c, `^the answer status is "([^"]*)"$`,
		"the wait ended with that status (complete, NEEDS_CONFIRMATION, ANSWER_FAILED, NO_NEW_ANSWER, MEDIA_NOT_READY, STRUCTURE_UNKNOWN, ANSWER_INCOMPLETE)",
		`Then the answer status is "complete"`, answerStatus)
	step(c, `^the states seen are "([^"]*)"$`, "the group's states in the order the wait saw them, comma-separated",
		`And the states seen are "generating, complete"`, statesSeen)
	step(c, `^the answer text is "([^"]*)"$`, "the new group's text equals this exactly (whitespace-normalised)",
		`And the answer text is "Paris is the capital of France."`, answerText)
	step(c, `^the answer contains "([^"]*)"$`, "a content check, separate from detection (ANS-7): the answer's text contains this",
		`And the answer contains "capital"`, answerContains)
	step(c, `^the answer group is not one of the earlier groups$`,
		"the group the wait chose was not on the page before sending",
		"And the answer group is not one of the earlier groups", answerIsNew)
	step(c, `^the snapshot shows (\d+) answer groups$`, "the last snapshot lists that many assistant groups",
		"Then the snapshot shows 2 answer groups", snapshotGroups)
}

func givenChat(ctx context.Context, style string, n int) error {
	w := worldOf(ctx)
	w.chat.Style, w.chat.History = style, n
	return w.applyChat()
}

func givenLongLastAnswer(ctx context.Context, n int) error {
	w := worldOf(ctx)
	w.chat.LongLastAnswer = n
	return w.applyChat()
}

func givenStreamingAnswer(ctx context.Context, partial string, ms int, final string) error {
	w := worldOf(ctx)
	w.chat.Answers = append(w.chat.Answers, sim.Answer{Partial: partial, Final: final, Generate: time.Duration(ms) * time.Millisecond})
	return w.applyChat()
}

func givenAnswer(ctx context.Context, final string, ms int) error {
	w := worldOf(ctx)
	w.chat.Answers = append(w.chat.Answers, sim.Answer{Final: final, Generate: time.Duration(ms) * time.Millisecond})
	return w.applyChat()
}

// applyChat hands the script to the live sim; a replay has the page in
// its recording already.
func (w *world) applyChat() error {
	if w.sim != nil {
		w.sim.SetChat(w.chat)
	}
	return nil
}

func openChat(ctx context.Context) error {
	w := worldOf(ctx)
	p, err := w.ensurePage(ctx)
	if err != nil {
		return err
	}
	return p.Navigate(ctx, w.base+"/chat")
}

func send(ctx context.Context, text string) error {
	w := worldOf(ctx)
	p, err := w.ensurePage(ctx)
	if err != nil {
		return err
	}
	if err := p.Fill(ctx, composer, text); err != nil {
		return err
	}
	return p.Click(ctx, sendButton, engine.Expect{NewAnswer: true, Timeout: answerTimeout})
}

func waitAnswer(ctx context.Context) error {
	w := worldOf(ctx)
	p, err := w.ensurePage(ctx)
	if err != nil {
		return err
	}
	r, err := p.WaitAnswer(ctx, answer.Options{Timeout: answerTimeout})
	if err != nil {
		return err
	}
	w.answer = &r
	return nil
}

func takeSnapshot(ctx context.Context) error {
	w := worldOf(ctx)
	p, err := w.ensurePage(ctx)
	if err != nil {
		return err
	}
	v, err := p.Snapshot(ctx, observe.ViewPage)
	if err != nil {
		return err
	}
	w.lastView = v
	return nil
}

func (w *world) needAnswer() (*answer.Result, error) {
	if w.answer == nil {
		return nil, fmt.Errorf("no answer was waited for; add the step \"I wait for the answer\" first")
	}
	return w.answer, nil
}

func answerStatus(ctx context.Context, want string) error {
	r, err := worldOf(ctx).needAnswer()
	if err != nil {
		return err
	}
	if r.Status != want {
		return fmt.Errorf("answer status is %q (evidence: %s), want %q", r.Status, r.Evidence, want)
	}
	return nil
}

func statesSeen(ctx context.Context, want string) error {
	r, err := worldOf(ctx).needAnswer()
	if err != nil {
		return err
	}
	var parts []string
	for _, s := range strings.Split(want, ",") {
		parts = append(parts, strings.TrimSpace(s))
	}
	if got := strings.Join(r.States, ", "); got != strings.Join(parts, ", ") {
		return fmt.Errorf("states seen are %q, want %q", got, strings.Join(parts, ", "))
	}
	return nil
}

func answerText(ctx context.Context, want string) error {
	r, err := worldOf(ctx).needAnswer()
	if err != nil {
		return err
	}
	if r.Partial {
		return fmt.Errorf("the answer is partial (%s): %q", r.Status, r.Text)
	}
	if observe.Normalize(r.Text) != observe.Normalize(want) {
		return fmt.Errorf("answer text is %q, want %q", r.Text, want)
	}
	return nil
}

func answerContains(ctx context.Context, want string) error {
	r, err := worldOf(ctx).needAnswer()
	if err != nil {
		return err
	}
	if !strings.Contains(observe.Normalize(r.Text), observe.Normalize(want)) {
		return fmt.Errorf("answer text %q does not contain %q", r.Text, want)
	}
	return nil
}

func answerIsNew(ctx context.Context) error {
	w := worldOf(ctx)
	r, err := w.needAnswer()
	if err != nil {
		return err
	}
	if r.GroupID == "" {
		return fmt.Errorf("the wait chose no group (%s)", r.Status)
	}
	// the baseline the engine recorded is in the trace; check it there
	for _, e := range w.log.Events() {
		if e.Kind == "baseline" {
			for _, id := range strings.Split(e.Get("ids"), ",") {
				if id == r.GroupID {
					return fmt.Errorf("the chosen group %s was already on the page before sending", r.GroupID)
				}
			}
		}
	}
	return nil
}

func snapshotGroups(ctx context.Context, n int) error {
	w := worldOf(ctx)
	if w.lastView == nil {
		return fmt.Errorf("no snapshot taken; add \"I take a page snapshot\" first")
	}
	if len(w.lastView.Groups) != n {
		return fmt.Errorf("snapshot shows %d answer groups (%v), want %d", len(w.lastView.Groups), groupIDs(w.lastView), n)
	}
	return nil
}

func groupIDs(v *engine.View) []string {
	var ids []string
	for _, g := range v.Groups {
		ids = append(ids, g.ID)
	}
	return ids
}
