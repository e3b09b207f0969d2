package steps

import (
	"context"
	"fmt"
	"strings"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/locate"
)

// locateState is the per-scenario state of the locator steps.
type locateState struct {
	ref string // a ref remembered from a snapshot
}

func locateSteps(r *table) {
	const g = "Locators"
	r.step(g, `^I remember the ref of `+tgt+`$`, "keep the ref the page's last snapshot gave the one element the target names, resolved as strictly as a click (LOC-2): two or more matches are refused with TARGET_AMBIGUOUS naming each candidate, none with TARGET_NOT_FOUND; "+targetGrammar+". A read, whose result is kept like an action's",
		`And I remember the ref of the button "Delete" in the row "notes.txt"`, rememberRef, isAction)
	r.step(g, `^I click the remembered ref expecting the text "([^"]*)"$`, "click by the remembered ref (refused with STALE_REF when it is from an older snapshot)",
		`When I click the remembered ref expecting the text "Archived"`, clickRef, isAction, defaults("waits up to 5 s for the text"))
	r.alias(`^I click the remembered ref expecting the text "([^"]*)"$`, `^I click the remembered ref expecting the status "([^"]*)"$`,
		`When I click the remembered ref expecting the status "Archived"`, clickRef)
	r.step(g, `^the page text (contains|does not contain) "([^"]*)"$`, "a fresh text search (complete) finds that text or not: proof of whether input was delivered",
		`And the page text does not contain "Deleted"`, pageTextHas)
}

// currentPage is the in-process page the action steps act in (the tab
// switched to, or a task begun in process), else the main tab.
func currentPage(ctx context.Context) (*engine.Page, error) {
	if st := stateOf[actState](worldOf(ctx)); st.page != nil {
		if p, ok := st.page.(*engine.Page); ok {
			return p, nil
		}
	}
	_, p, err := worldPage(ctx)
	return p, err
}

func rememberRef(ctx context.Context, target string) error {
	t, err := parseTarget(target)
	if err != nil {
		return err
	}
	return remember(ctx, t.Locator)
}

// remember keeps the ref of the one element l resolves to in the current
// page's last snapshot; a refusal is kept as the step's result.
func remember(ctx context.Context, l locate.Locator) error {
	w := worldOf(ctx)
	if _, err := w.needView(); err != nil {
		return err
	}
	p, err := currentPage(ctx)
	if err != nil {
		return err
	}
	st := stateOf[locateState](w)
	st.ref = ""
	el, err := p.RefOf(ctx, l)
	if err == nil {
		st.ref = el.Ref
	}
	return w.kept(err)
}

func clickRef(ctx context.Context, text string) error {
	ref := stateOf[locateState](worldOf(ctx)).ref
	if ref == "" {
		return fmt.Errorf(`no ref remembered; add "I remember the ref of the …" first`)
	}
	return act(ctx, func(p actPage) error {
		return p.Click(ctx, engine.Target{Ref: ref}, engine.Expect{TextVisible: text, Timeout: clickWait})
	})
}

func refusalDescribes(ctx context.Context) error {
	r, err := worldOf(ctx).lastResult()
	if err != nil {
		return err
	}
	ref, err := r.refusal()
	if err != nil {
		return err
	}
	want := min(ref.count, 5)
	got := 0
	for _, c := range ref.candidates {
		if strings.HasPrefix(c, "…") {
			continue
		}
		if !strings.Contains(c, " frame=") || !strings.Contains(c, " ref=s") || !strings.Contains(c, `"`) {
			return fmt.Errorf("candidate description %q lacks role, name, frame or ref", c)
		}
		got++
	}
	if got != want {
		return fmt.Errorf("%d candidates described, want %d: %v", got, want, ref.candidates)
	}
	if strings.Contains(ref.msg, "secret") {
		return fmt.Errorf("the refusal leaks a typed value: %s", ref.msg)
	}
	return nil
}

func pageTextHas(ctx context.Context, mode, text string) error {
	p, err := currentPage(ctx)
	if err != nil {
		return err
	}
	r, err := p.SearchText(ctx, text)
	if err != nil {
		return err
	}
	switch {
	case mode == "contains" && r.TextMatched == 0:
		return fmt.Errorf("the page text does not contain %q", text)
	case mode != "contains" && r.TextMatched > 0:
		return fmt.Errorf("the page text contains %q: %v", text, r.Snippets)
	case mode != "contains" && !r.Complete:
		return fmt.Errorf("the search for %q was incomplete: absence is not proven", text)
	}
	return nil
}
