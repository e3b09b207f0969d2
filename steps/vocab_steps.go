package steps

import (
	"context"
	"errors"
	"fmt"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/site"
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
	r.step(g, `^the page navigates itself to "([^"]*)" (\d+) ms into that answer$`,
		"the chat page's own script navigates to that sim path (a real navigation, as a site moves a new chat to its own address) that long after the send of the answer scripted last, while it is still generating; the page there shows the same thread, and the answer goes on and completes there",
		`And the page navigates itself to "/chat?c=1" 500 ms into that answer`, givenNavigateMidAnswer, needsSim)
	r.step(g, `^the next answer streams "([^"]*)" for (\d+) ms, pauses for (\d+) ms with (no generating signal at all|aria-busy but no visible indicator) and completes as "([^"]*)"$`,
		`the next send gets a partial answer with the generating indicators for that long, then a pause mid-stream: the same partial text with no typing indicator and no stop control, either with no generating signal at all or with only aria-busy="true" on the turn (a signal no one sees), then the complete answer in the same group`,
		`And the next answer streams "Paris is" for 600 ms, pauses for 1000 ms with aria-busy but no visible indicator and completes as "Paris is the capital of France."`, givenPause, needsSim)
	r.step(g, `^the first (\d+) earlier turns? load only when the chat is scrolled up$`,
		"a lazily loaded history: the page opens scrolled to its bottom without the first N earlier turns, and shows them above the others once it is scrolled to its top (\"I scroll up to load earlier turns …\")",
		"And the first 4 earlier turns load only when the chat is scrolled up", givenHiddenHistory, needsSim)

	const a = "Chat actions"
	r.step(a, `^I send "([^"]*)" with a double click$`,
		`the same send as "I send", but the site's send control gets a real double click (two clicks in a row, as a mouse delivers them: click, click, dblclick) expecting a new answer group; what the page made of it shows in the answer groups ("the snapshot shows N answer groups") and, live, in "the sim received N messages". In process only (MCP has no double-click tool)`,
		`When I send "What is the capital of France?" with a double click`, sendDoubleClick, isAction, defaults("waits up to 10 s for the new answer group to appear"))
	r.step(a, `^I scroll up to load earlier turns expecting the text "([^"]*)"$`,
		"the engine scrolls the page to its top as a mouse wheel does (the page may load earlier turns), expecting that text to be visible, like a click (ACT-2, ACT-3). The answer steps that follow still take the last group outside the send's baseline: loaded earlier turns are never the new answer (ANS-3). In process only (MCP has no scroll tool)",
		`When I scroll up to load earlier turns expecting the text "Question 1:"`, scrollUp, isAction, defaults("waits up to 5 s for the text"))

	const act = "Actions (each keeps its result)"
	r.step(act, `^I double-click `+tgt+` expecting the text "([^"]*)"$`,
		"a real double click on the target (two clicks in a row: click, click, dblclick), expecting that text to be visible, like a click; "+targetGrammar+". In process only (MCP has no double-click tool)",
		`When I double-click the button "Archive" expecting the text "Archived"`, actDoubleClick, isAction, defaults("waits up to 5 s for the text"))
}

// doubleClicker is an action surface that can double-click (the
// in-process engine.Page).
type doubleClicker interface {
	DoubleClick(ctx context.Context, t engine.Target, x engine.Expect) error
}

func asDoubleClicker(p actPage) (doubleClicker, error) {
	dc, ok := p.(doubleClicker)
	if !ok {
		return nil, errors.New("a double click acts through the in-process engine: MCP has no double-click tool")
	}
	return dc, nil
}

func sendDoubleClick(ctx context.Context, text string) error {
	w := worldOf(ctx)
	return act(ctx, func(p actPage) error {
		dc, err := asDoubleClicker(p)
		if err != nil {
			return err
		}
		prof := w.profile()
		if prof.SendBy == site.SendEnter {
			return errors.New("the site sends by Enter: it has no send control to double-click")
		}
		if err := p.Fill(ctx, site.Target(prof.Composer), text); err != nil {
			return err
		}
		return dc.DoubleClick(ctx, site.Target(prof.Send), engine.Expect{NewAnswer: true, Timeout: sendWait})
	})
}

func actDoubleClick(ctx context.Context, target, text string) error {
	t, err := parseTarget(target)
	if err != nil {
		return err
	}
	return act(ctx, func(p actPage) error {
		dc, err := asDoubleClicker(p)
		if err != nil {
			return err
		}
		return dc.DoubleClick(ctx, t, engine.Expect{TextVisible: text, Timeout: clickWait})
	})
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

func givenNavigateMidAnswer(ctx context.Context, path string, n int) error {
	w := worldOf(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if ms(n) >= a.Generate {
		return fmt.Errorf("the navigation at %d ms comes after the answer completes (%s): it would not be mid-answer", n, a.Generate)
	}
	a.NavigateTo, a.NavigateAt = path, ms(n)
	return w.applyChat()
}

func givenPause(ctx context.Context, partial string, n, pause int, signal, final string) error {
	return worldOf(ctx).addAnswer(sim.Answer{Partial: partial, Final: final, Generate: ms(n), Pause: ms(pause),
		PauseBusy: signal == "aria-busy but no visible indicator"})
}

func givenHiddenHistory(ctx context.Context, n int) error {
	w := worldOf(ctx)
	if n > w.chat.History {
		return fmt.Errorf("the chat has %d earlier turns; %d cannot be hidden", w.chat.History, n)
	}
	w.chat.Hidden = n
	return w.applyChat()
}

func scrollUp(ctx context.Context, text string) error {
	return act(ctx, func(p actPage) error {
		sc, ok := p.(interface {
			ScrollToTop(context.Context, engine.Expect) error
		})
		if !ok {
			return errors.New("a scroll acts through the in-process engine: MCP has no scroll tool")
		}
		return sc.ScrollToTop(ctx, engine.Expect{TextVisible: text, Timeout: clickWait})
	})
}
