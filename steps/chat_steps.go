package steps

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/sim"
)

// The chat steps' waits when a step names none: sending waits up to
// sendWait for the new answer group to appear, and "I wait for the
// answer" up to answerWait for it to finish.
const (
	sendWait   = 10 * time.Second
	answerWait = 10 * time.Second
)

func chatSteps(r *table) {
	const g = "Chat site (sim)"
	r.step(g, `^an? (marker|heading|list)-style chat with (\d+) earlier turns?$`,
		"the sim shows a chat in that markup style (marker: data attributes; heading: speaker headings; list: list items, read by an adapter file) with N earlier turns; the engine reads marker and heading with the built-in adapter of the same name. Turns count user and assistant turns together, alternating and starting with the user: 4 turns are 2 questions and 2 answers (2 answer groups), 5 turns end with an unanswered question (still 2 groups)",
		"Given a marker-style chat with 4 earlier turns", givenChat, needsSim)
	r.step(g, `^an? (marker|heading|list)-style chat with (\d+) earlier answers?$`,
		"the same chat counted in answers: N earlier questions, each answered (2N turns, N answer groups)",
		"Given a heading-style chat with 1 earlier answer", givenChatAnswers, needsSim)
	r.step(g, `^the engine reads the chat with the (marker|heading|auto) adapter$`,
		"override the adapter the engine uses (e.g. a deliberately wrong one)",
		"And the engine reads the chat with the marker adapter", givenAdapter)
	r.step(g, `^the earlier answers include images$`, "every third earlier answer holds a loaded image",
		"And the earlier answers include images", givenHistoryImages, needsSim)
	r.step(g, `^the last earlier answer has a ready (video|image)$`, "the last earlier assistant turn holds media that is ready (the stale media case). The sim serves one URL per media kind, so it is the same URL as the next answer's media",
		"And the last earlier answer has a ready video", givenLastAnswerMedia, needsSim)
	r.step(g, `^the next answer asks for confirmation after (\d+) ms$`, "the next answer ends with Confirm and Cancel controls inside the turn",
		"And the next answer asks for confirmation after 300 ms", givenConfirm, needsSim)
	r.step(g, `^the next answer fails after (\d+) ms$`, "the next answer ends with an error (role=alert) and a Retry control inside the turn",
		"And the next answer fails after 300 ms", givenError, needsSim)
	r.step(g, `^the next answer repeats the last earlier answer after (\d+) ms$`, "the next answer has exactly the text of the last earlier answer, under a new id",
		"And the next answer repeats the last earlier answer after 300 ms", givenRepeat, needsSim)
	r.step(g, `^the next answer never comes$`, "the message reaches the sim but no answer turn appears",
		"And the next answer never comes", givenNoAnswer, needsSim)
	r.step(g, `^the next answer completes as "([^"]*)" after (\d+) ms with an? (video|image) that is ready (\d+) ms later$`,
		"the answer holds media whose source is attached that long after completion",
		`And the next answer completes as "Here it is." after 300 ms with an image that is ready 400 ms later`, givenMediaAnswer, needsSim)
	r.step(g, `^the next answer completes as "([^"]*)" after (\d+) ms with an? (video|image) that never loads$`,
		"the answer holds media that never gets a source",
		`And the next answer completes as "Here it is." after 300 ms with a video that never loads`, givenMediaNeverLoads, needsSim)
	r.step(g, `^the last earlier answer is a long answer of (\d+) characters$`,
		"the last earlier assistant turn is a complete answer of that many characters",
		"And the last earlier answer is a long answer of 3000 characters", givenLongLastAnswer, needsSim)
	r.step(g, `^the next answer streams "([^"]*)" for (\d+) ms and completes as "([^"]*)"$`,
		"the next send gets a partial answer with a generating indicator for that long, then the complete answer in the same group",
		`And the next answer streams "Paris is" for 600 ms and completes as "Paris is the capital of France."`, givenStreamingAnswer, needsSim)
	r.step(g, `^the next answer completes as "([^"]*)" after (\d+) ms$`,
		"the next send gets an answer that is generating for that long, then complete",
		`And the next answer completes as "Short and new." after 300 ms`, givenAnswer, needsSim)

	const a = "Chat actions"
	r.step(a, `^I open the chat$`, "the engine navigates the page to the sim's chat",
		"When I open the chat", openChat, isAction, defaults(readyWait))
	r.step(a, `^I send "([^"]*)"$`,
		`the engine fills the site's composer (the sim's textbox "Message"), verifies it, and sends by the site profile's send control or Enter (the sim's button "Send") expecting a new answer group; the baseline (the groups on the page before the click) is stored for the answer steps`,
		`And I send "What is the capital of France?"`, send, isAction, defaults("waits up to 10 s for the new answer group to appear (OUTCOME_UNKNOWN after that)"))
	r.alias(`^I send "([^"]*)"$`, `^I try to send "([^"]*)"$`, `When I try to send "Anyone there?"`, send)
	r.step(a, `^I stop the answer$`,
		"click the site's stop control (the profile's \"stop\", else button \"Stop generating\") while the answer streams, expecting it to go; a stop is no send: the next \"I wait for the answer\" follows the same answer, which ends ANSWER_STOPPED",
		`When I stop the answer`, stopAnswer, isAction, defaults("waits up to 10 s for the stop control to go"))
	r.step(a, `^I regenerate the answer$`,
		"click the site's regenerate control (the profile's \"regenerate\", else button \"Regenerate\"), expecting a new answer group: the regenerated answer replaces the old one in place, and \"I wait for the answer\" follows it (no new user turn)",
		`When I regenerate the answer`, regenerateAnswer, isAction, defaults("waits up to 10 s for the new answer group to appear"))
	r.step(a, `^I retry the answer$`,
		"click the failed answer's retry control (the profile's \"retry\", else button \"Retry\" or \"Try again\"), expecting a new answer group in its place",
		`When I retry the answer`, retryAnswer, isAction, defaults("waits up to 10 s for the new answer group to appear"))
	r.step(a, `^I send "([^"]*)" within (\d+) ms$`,
		`the same send, waiting that long for the new answer group to appear`,
		`When I send "Anyone there?" within 500 ms`, sendWithin, isAction)
	r.alias(`^I send "([^"]*)" within (\d+) ms$`, `^I try to send "([^"]*)" within (\d+) ms$`, `When I try to send "Hello?" within 800 ms`, sendWithin)
	r.step(a, `^I wait for the answer$`, "the engine waits for the newest group outside the baseline to reach a final state (complete, needs confirmation, failed)",
		"And I wait for the answer", waitAnswer, defaults("waits up to 10 s; the status at the deadline says why it ended (NO_NEW_ANSWER, ANSWER_INCOMPLETE, …)"))
	r.step(a, `^I wait up to (\d+) ms for the answer$`, "the same wait with another deadline",
		"And I wait up to 1500 ms for the answer", waitAnswerUpTo)
	r.step(a, `^I wait up to (\d+) ms for the answer with an? (video|image)$`,
		"the wait also needs ready media of that kind inside the new group (ANS-6)",
		"And I wait up to 3000 ms for the answer with an image", waitAnswerMedia)
	r.step(a, `^I take a page snapshot$`, "the engine takes the page API's shorter snapshot",
		"When I take a page snapshot", takeSnapshot)

	const c = "Answer checks"
	r.step(c, `^the answer status is "([^"]*)"$`,
		"the wait ended with that status (complete, NEEDS_CONFIRMATION, ANSWER_FAILED, ANSWER_STOPPED, NO_NEW_ANSWER, MEDIA_NOT_READY, STRUCTURE_UNKNOWN, ANSWER_INCOMPLETE)",
		`Then the answer status is "complete"`, answerStatus)
	r.step(c, `^the answer evidence mentions "([^"]*)"$`, "the wait's evidence (what decided its status: a page signal, the engine's Stop click, …) contains this",
		`And the answer evidence mentions "page failure signal"`, answerEvidence)
	r.step(c, `^the states seen are "([^"]*)"$`, "the group's states in the order the wait saw them, comma-separated",
		`And the states seen are "generating, complete"`, statesSeen)
	r.step(c, `^the answer text is "([^"]*)"$`, "the new group's text equals this exactly (whitespace-normalised)",
		`And the answer text is "Paris is the capital of France."`, answerText)
	r.step(c, `^the answer contains "([^"]*)"$`, "a content check, separate from detection (ANS-7): the answer's text contains this",
		`And the answer contains "capital"`, answerContains)
	r.step(c, `^the answer group is not one of the earlier groups$`,
		"the group the wait chose was not on the page before sending",
		"And the answer group is not one of the earlier groups", answerIsNew)
	r.step(c, `^the snapshot shows (\d+) answer groups?$`, "the last snapshot counts that many assistant groups on the page (user turns are not groups)",
		"Then the snapshot shows 2 answer groups", snapshotGroups)
	r.alias(`^the action ends with "([^"]*)"$`, `^the send ends with "([^"]*)"$`, `Then the send ends with "OUTCOME_UNKNOWN"`, actEndsWith)
	r.step(c, `^the last two snapshots show the same answer groups with new refs$`,
		"two snapshots of the same page: same group ids, but every ref changed (a fresh ref is not a new answer, ID-2)",
		"Then the last two snapshots show the same answer groups with new refs", sameGroupsNewRefs)
	r.step(c, `^the answer result names its group, rule, baseline, states and evidence$`,
		"the wait's record says what was read (ANS-8): all five are present",
		"And the answer result names its group, rule, baseline, states and evidence", resultIsExplained)
	r.step(c, `^every answer group names the adapter rule that found it$`, "each group of the last snapshot carries its rule (ID-3)",
		"And every answer group names the adapter rule that found it", groupsHaveRules)
}

func answerEvidence(ctx context.Context, want string) error {
	w := worldOf(ctx)
	if w.answer == nil {
		return fmt.Errorf("no answer waited for yet")
	}
	if !strings.Contains(w.answer.Evidence, want) {
		return fmt.Errorf("answer evidence is %q, want it to mention %q", w.answer.Evidence, want)
	}
	return nil
}

func givenChatAnswers(ctx context.Context, style string, n int) error {
	return givenChat(ctx, style, 2*n)
}

func givenChat(ctx context.Context, style string, n int) error {
	w := worldOf(ctx)
	w.chat.Style, w.chat.History = style, n
	return w.applyChat()
}

func givenAdapter(ctx context.Context, name string) error {
	ad, err := adapter.ByName(name)
	if err != nil {
		return err
	}
	worldOf(ctx).adapter = ad
	return nil
}

func givenHistoryImages(ctx context.Context) error {
	w := worldOf(ctx)
	w.chat.HistoryImages = true
	return w.applyChat()
}

func givenLastAnswerMedia(ctx context.Context, kind string) error {
	w := worldOf(ctx)
	w.chat.LastAnswerMedia = kind
	return w.applyChat()
}

func (w *world) addAnswer(a sim.Answer) error {
	w.chat.Answers = append(w.chat.Answers, a)
	return w.applyChat()
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func givenConfirm(ctx context.Context, n int) error {
	return worldOf(ctx).addAnswer(sim.Answer{Partial: "Checking", Final: "This will delete 3 files. Continue?", Kind: sim.KindConfirm, Generate: ms(n)})
}

func givenError(ctx context.Context, n int) error {
	return worldOf(ctx).addAnswer(sim.Answer{Partial: "Working", Final: "", Kind: sim.KindError, Generate: ms(n)})
}

func givenRepeat(ctx context.Context, n int) error {
	w := worldOf(ctx)
	return w.addAnswer(sim.Answer{Partial: "Answer", Final: w.chat.LastAnswerText(), Generate: ms(n)})
}

func givenNoAnswer(ctx context.Context) error {
	return worldOf(ctx).addAnswer(sim.Answer{Kind: sim.KindNone})
}

func givenMediaAnswer(ctx context.Context, final string, n int, kind string, delay int) error {
	return worldOf(ctx).addAnswer(sim.Answer{Partial: "Rendering", Final: final, Generate: ms(n), Media: kind, MediaDelay: ms(delay)})
}

func givenMediaNeverLoads(ctx context.Context, final string, n int, kind string) error {
	return worldOf(ctx).addAnswer(sim.Answer{Partial: "Rendering", Final: final, Generate: ms(n), Media: kind, NoMediaSource: true})
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
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	prof := w.profile()
	return w.kept(w.navigate(ctx, p, prof.URL(prof.ChatPath), false))
}

func send(ctx context.Context, text string) error {
	return sendUpTo(ctx, text, sendWait)
}

func sendWithin(ctx context.Context, text string, n int) error {
	return sendUpTo(ctx, text, ms(n))
}

func sendUpTo(ctx context.Context, text string, wait time.Duration) error {
	w := worldOf(ctx)
	return act(ctx, func(p actPage) error {
		return sendThrough(ctx, p, w.profile(), text, wait)
	})
}

func stopAnswer(ctx context.Context) error {
	w := worldOf(ctx)
	if p := w.profile(); p.NoStop != "" {
		// a site without a Stop says so in its profile: the scenario
		// cannot run there, and says why
		return w.skip(fmt.Sprintf("SKIPPING: %s has no Stop control: %s (its profile's stop.none)", w.profileName(), p.NoStop))
	}
	return act(ctx, func(p actPage) error { return w.profile().StopAnswer(ctx, p, sendWait) })
}

func regenerateAnswer(ctx context.Context) error {
	w := worldOf(ctx)
	return act(ctx, func(p actPage) error { return w.profile().RegenerateAnswer(ctx, p, sendWait) })
}

func retryAnswer(ctx context.Context) error {
	w := worldOf(ctx)
	return act(ctx, func(p actPage) error { return w.profile().RetryAnswer(ctx, p, sendWait) })
}

func waitAnswer(ctx context.Context) error {
	return waitFor(ctx, answer.Options{Timeout: answerWait})
}

func waitAnswerUpTo(ctx context.Context, n int) error {
	return waitFor(ctx, answer.Options{Timeout: ms(n)})
}

func waitAnswerMedia(ctx context.Context, n int, kind string) error {
	return waitFor(ctx, answer.Options{Timeout: ms(n), Media: kind})
}

func waitFor(ctx context.Context, opt answer.Options) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	w := worldOf(ctx)
	r, err := st.page.WaitAnswer(ctx, opt)
	if err != nil {
		return err
	}
	w.answer = &r
	return nil
}

type snapshots struct{ views []*engine.View }

func takeSnapshot(ctx context.Context) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	v, err := p.Snapshot(ctx, observe.ViewPage)
	if err != nil {
		return err
	}
	w.lastView = v
	st := stateOf[snapshots](w)
	st.views = append(st.views, v)
	return nil
}

func sameGroupsNewRefs(ctx context.Context) error {
	st := stateOf[snapshots](worldOf(ctx))
	if len(st.views) < 2 {
		return fmt.Errorf("take two snapshots first (%d taken)", len(st.views))
	}
	a, b := st.views[len(st.views)-2], st.views[len(st.views)-1]
	if ga, gb := strings.Join(groupIDs(a), ","), strings.Join(groupIDs(b), ","); ga != gb || ga == "" {
		return fmt.Errorf("groups differ between snapshots: %q then %q", ga, gb)
	}
	refs := map[string]bool{}
	for _, e := range a.Elements {
		refs[e.Ref] = true
	}
	for _, e := range b.Elements {
		if refs[e.Ref] {
			return fmt.Errorf("ref %s was handed out by both snapshots", e.Ref)
		}
	}
	return nil
}

func groupsHaveRules(ctx context.Context) error {
	w := worldOf(ctx)
	if w.lastView == nil {
		return fmt.Errorf("no snapshot taken")
	}
	for _, g := range w.lastView.Groups {
		if strings.TrimSpace(g.Rule) == "" {
			return fmt.Errorf("group %s has no rule", g.ID)
		}
	}
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
	if w.lastView.GroupCount.Total != n {
		return fmt.Errorf("snapshot counts %d answer groups (shows %v), want %d", w.lastView.GroupCount.Total, groupIDs(w.lastView), n)
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

func resultIsExplained(ctx context.Context) error {
	r, err := worldOf(ctx).needAnswer()
	if err != nil {
		return err
	}
	var missing []string
	if r.GroupID == "" {
		missing = append(missing, "group")
	}
	if r.Rule == "" {
		missing = append(missing, "rule")
	}
	if r.BaselineSize == 0 {
		missing = append(missing, "baseline")
	}
	if len(r.States) == 0 {
		missing = append(missing, "states")
	}
	if r.Evidence == "" {
		missing = append(missing, "evidence")
	}
	if len(missing) > 0 {
		return fmt.Errorf("the answer result lacks %s: %+v", strings.Join(missing, ", "), *r)
	}
	return nil
}
