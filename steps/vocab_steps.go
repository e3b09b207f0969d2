package steps

import (
	"context"

	"github.com/replaylab/replaylab/sim"
)

// vocabSteps are the sim's chat cases QA found missing: a Regenerate
// control, and confirmation and failure controls with other words.
func vocabSteps(r *table) {
	const g = "Chat site (sim)"
	r.step(g, `^the newest answer offers Regenerate$`,
		`the newest complete answer the chat adds carries a button "Regenerate" (one on the page at a time); a click replaces that answer in place, under a new id, by the next scripted answer, generating first — no new user turn and no message to the sim ("I regenerate the answer" clicks it)`,
		"And the newest answer offers Regenerate", givenRegenerate, needsSim)
	r.step(g, `^the next answer asks for confirmation with "([^"]*)" and "([^"]*)" after (\d+) ms$`,
		`the next answer ends with a go-ahead and a way-out control of those names inside the turn (instead of Confirm and Cancel); "confirming it …" and "cancelling it …" say what each makes of the turn`,
		`And the next answer asks for confirmation with "Approve and run" and "Reject" after 300 ms`, givenConfirmLabels, needsSim)
	r.step(g, `^the next answer fails with "([^"]*)" and a "([^"]*)" control after (\d+) ms$`,
		`the next answer ends with that error message (role=alert) and a retry control of that name inside the turn (instead of "Something went wrong while answering." and Retry); a click on the control regenerates the turn in place by the next scripted answer`,
		`And the next answer fails with "Network error: the answer was cut off." and a "Try again" control after 300 ms`, givenErrorLabels, needsSim)
}

func givenRegenerate(ctx context.Context) error {
	w := worldOf(ctx)
	w.chat.Regenerate = true
	return w.applyChat()
}

func givenConfirmLabels(ctx context.Context, yes, no string, n int) error {
	return worldOf(ctx).addAnswer(sim.Answer{Partial: "Checking", Final: "This will run the cleanup script. Go ahead?", Kind: sim.KindConfirm, Generate: ms(n),
		Labels: sim.Labels{Yes: yes, No: no}})
}

func givenErrorLabels(ctx context.Context, text, retry string, n int) error {
	return worldOf(ctx).addAnswer(sim.Answer{Partial: "Working", Kind: sim.KindError, Generate: ms(n),
		Labels: sim.Labels{Error: text, Retry: retry}})
}
