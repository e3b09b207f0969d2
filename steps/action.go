package steps

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/harness"
)

// One model of actions and results. Every action step (fill, click,
// press, navigate, send) runs through act, which keeps its result; every
// result check ("the action ends with", "the action is refused with", the
// refusal's count and descriptions) reads that one kept result. An engine
// verdict (a coded error) fails the action step itself unless a result
// check follows it before the next action step, so a scenario that does
// not look at a failure still fails where it happened.

// actionState is where the scenario is in its steps, and the kept result
// of its last action step.
type actionState struct {
	ids   []string // the scenario's step ids, in order
	texts []string // their texts
	cur   int      // index of the running step
	last  *actionResult
}

// actionResult is the kept result of one action step.
type actionResult struct {
	step string // the step's text
	err  error
}

// refusalCodes are the codes of actions refused before anything reached
// the page.
var refusalCodes = []string{
	string(locate.TargetAmbiguous), string(locate.TargetQueryTruncated), string(locate.TargetNotFound), string(locate.StaleRef),
	string(engine.MissingExpectation), string(engine.InvalidExpectation), string(engine.TaskBlocked), string(engine.TaskFinished),
	string(engine.PageNotReady), string(engine.ControlDisabled),
}

// bindActionModel follows the scenario's steps so an action step can see
// whether a result check follows it.
func bindActionModel(sc *godog.ScenarioContext) {
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		if w := worldOf(ctx); w != nil {
			as := stateOf[actionState](w)
			for _, s := range p.Steps {
				as.ids, as.texts = append(as.ids, s.Id), append(as.texts, s.Text)
			}
		}
		return ctx, nil
	})
	sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
		if w := worldOf(ctx); w != nil {
			as := stateOf[actionState](w)
			if i := slices.Index(as.ids, st.Id); i >= 0 {
				as.cur = i
			}
		}
		if harness.IsCheck(st) && kindOf(st.Text) == KindAction {
			return ctx, fmt.Errorf("%q acts on the page, so it belongs under When: a step under Then is a check, which the recording's fingerprint leaves out (an edit of it would replay a stale recording)", st.Text)
		}
		return ctx, nil
	})
}

// checkFollows reports whether a result check comes after the running
// step and before the next action step.
func (as *actionState) checkFollows() bool {
	for _, text := range as.texts[min(as.cur+1, len(as.texts)):] {
		switch kindOf(text) {
		case KindResult:
			return true
		case KindAction:
			return false
		}
	}
	return false
}

// act runs one action step on the current page (surface) and keeps its
// result; loop signals riding on it are collected.
func act(ctx context.Context, do func(p actPage) error) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	err = do(st.page)
	w := worldOf(ctx)
	stateOf[loopState](w).collect(w)
	return w.kept(err)
}

// kept keeps err as the running action step's result. A coded engine
// verdict is left to a following result check; with none before the next
// action step it fails this step. Errors without a code (a broken driver)
// and a diverged replay always fail the step.
func (w *world) kept(err error) error {
	as := stateOf[actionState](w)
	text := ""
	if as.cur < len(as.texts) {
		text = as.texts[as.cur]
	}
	as.last = &actionResult{step: text, err: err}
	code := string(errcode.Of(err))
	switch {
	case err == nil:
		return nil
	case code == "" || code == "REPLAY_DIVERGED":
		return err
	case as.checkFollows():
		return nil
	}
	return fmt.Errorf("%w (to expect this, follow the step with: Then the action ends with %q)", err, code)
}

// lastResult is the kept result of the last action step.
func (w *world) lastResult() (*actionResult, error) {
	r := stateOf[actionState](w).last
	if r == nil {
		return nil, errors.New("no action step ran before this check (fill, click, press, navigate or send)")
	}
	return r, nil
}

// code is the result's code, "ok" when the action succeeded.
func (r *actionResult) code() string {
	if r.err == nil {
		return "ok"
	}
	return string(errcode.Of(r.err))
}

// refusal is what a refusal tells about the matches of its target.
type refusal struct {
	code       string
	count      int
	candidates []string
	msg        string
}

// refusal returns the result's refusal, or an error naming what the
// action ended with instead.
func (r *actionResult) refusal() (refusal, error) {
	c := r.code()
	if !slices.Contains(refusalCodes, c) {
		if c == "ok" {
			return refusal{}, fmt.Errorf("the last action (%s) was not refused: it succeeded", r.step)
		}
		return refusal{}, fmt.Errorf("the last action (%s) was not refused: it ended with %s after its input reached the page (%v); check it with: Then the action ends with %q", r.step, c, r.err, c)
	}
	out := refusal{code: c, msg: r.err.Error()}
	var le *locate.Error
	var me *mcp.Error
	switch {
	case errors.As(r.err, &le):
		out.count, out.candidates = le.Count, le.Candidates
	case errors.As(r.err, &me):
		out.count, out.candidates = me.Count, me.Candidates
	}
	return out, nil
}

func actEndsWith(ctx context.Context, want string) error {
	r, err := worldOf(ctx).lastResult()
	if err != nil {
		return err
	}
	if got := r.code(); got != want {
		return fmt.Errorf("the action (%s) ended with %s (%v), want %s", r.step, got, r.err, want)
	}
	return nil
}

func refusedWith(ctx context.Context, code string) error {
	r, err := worldOf(ctx).lastResult()
	if err != nil {
		return err
	}
	if !slices.Contains(refusalCodes, code) {
		return fmt.Errorf("%s is not a refusal code (%v); use: Then the action ends with %q", code, refusalCodes, code)
	}
	ref, err := r.refusal()
	if err != nil {
		return err
	}
	if ref.code != code {
		return fmt.Errorf("refused with %s (%s), want %s", ref.code, ref.msg, code)
	}
	return nil
}

func refusalApart(ctx context.Context, texts string) error {
	r, err := worldOf(ctx).lastResult()
	if err != nil {
		return err
	}
	ref, err := r.refusal()
	if err != nil {
		return err
	}
	want := strings.Split(texts, ",")
	if len(ref.candidates) != len(want) {
		return fmt.Errorf("the refusal describes %d matches %q, want %d", len(ref.candidates), ref.candidates, len(want))
	}
	for i, w := range want {
		if !strings.Contains(ref.candidates[i], strings.TrimSpace(w)) {
			return fmt.Errorf("match %d %q does not name %q", i+1, ref.candidates[i], strings.TrimSpace(w))
		}
	}
	return nil
}

func refusalCount(ctx context.Context, n int) error {
	r, err := worldOf(ctx).lastResult()
	if err != nil {
		return err
	}
	ref, err := r.refusal()
	if err != nil {
		return err
	}
	if ref.count != n {
		return fmt.Errorf("the refusal counts %d matches, want %d (%s)", ref.count, n, ref.msg)
	}
	return nil
}
