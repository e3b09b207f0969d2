package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/locate"
)

// locateState is the per-scenario state of the locator steps.
type locateState struct {
	ref     string // a ref remembered from a snapshot
	refused error  // the last action refused by its resolve
}

// locatorTimeout bounds the expectations of the locator steps' clicks.
const locatorTimeout = 3 * time.Second

func init() {
	const g = "Locators"
	step(g, `^I click the (\w+) "([^"]*)" expecting the status "([^"]*)"$`,
		`getByRole(role, name) resolved by a fresh find, then clicked, expecting that text on the page; a refused resolve is kept for the checks below`,
		`When I click the button "Archive" expecting the status "Archived"`, clickByRole)
	step(g, `^I click the link "([^"]*)" at "([^"]*)" expecting the status "([^"]*)"$`,
		"getByRole(link, name) narrowed by href, then clicked",
		`When I click the link "Docs" at "#docs-07" expecting the status "Opened docs 07"`, clickLinkHref)
	step(g, `^I remember the ref of the (\w+) "([^"]*)"$`, "keep the ref the last snapshot gave that element",
		`And I remember the ref of the button "Archive"`, rememberRef)
	step(g, `^I click the remembered ref expecting the status "([^"]*)"$`, "click by the remembered ref (refused when it is from an older snapshot)",
		`When I click the remembered ref expecting the status "Archived"`, clickRef)
	step(g, `^the action is refused with "([^"]*)"$`, "the last click was refused by its resolve with that code",
		`Then the action is refused with "TARGET_AMBIGUOUS"`, refusedWith)
	step(g, `^the refusal counts (\d+) matches$`, "the count the refusal carries",
		"And the refusal counts 2 matches", refusalCount)
	step(g, `^the refusal describes each match by role, name, frame and ref$`,
		"each candidate of the refusal is described, and no typed value appears in the message",
		"And the refusal describes each match by role, name, frame and ref", refusalDescribes)
	step(g, `^the page text (contains|does not contain) "([^"]*)"$`, "a fresh text search (complete) finds that text or not: proof of whether input was delivered",
		`And the page text does not contain "Deleted"`, pageTextHas)
	step(g, `^I type "([^"]*)" into the (\w+) "([^"]*)"$`, "fill by role and name, verified",
		`When I type "a secret remark" into the textbox "Comment"`, typeInto)
}

func isLocateCode(err error) bool {
	var le *locate.Error
	return errors.As(err, &le)
}

func (w *world) keepRefusal(err error) error {
	st := stateOf[locateState](w)
	st.refused = nil
	if err != nil && isLocateCode(err) {
		st.refused = err
		return nil
	}
	return err
}

func clickByRole(ctx context.Context, role, name, status string) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	return w.keepRefusal(p.Click(ctx, engine.ByRole(role, name), statusExpect(status)))
}

func statusExpect(status string) engine.Expect {
	return engine.Expect{TextVisible: status, Timeout: locatorTimeout}
}

func clickLinkHref(ctx context.Context, name, href, status string) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	t := engine.Target{Locator: locate.Locator{Role: "link", Name: name, Href: href}}
	return w.keepRefusal(p.Click(ctx, t, statusExpect(status)))
}

func rememberRef(ctx context.Context, role, name string) error {
	w := worldOf(ctx)
	s, err := w.needView()
	if err != nil {
		return err
	}
	for _, e := range s.Elements {
		if e.Role == role && e.Name == name {
			stateOf[locateState](w).ref = e.Ref
			return nil
		}
	}
	return fmt.Errorf("no %s %q in the last snapshot", role, name)
}

func clickRef(ctx context.Context, status string) error {
	w := worldOf(ctx)
	ref := stateOf[locateState](w).ref
	if ref == "" {
		return fmt.Errorf(`no ref remembered; add "I remember the ref of the …" first`)
	}
	p, err := w.ensurePage(ctx)
	if err != nil {
		return err
	}
	return w.keepRefusal(p.Click(ctx, engine.Target{Ref: ref}, statusExpect(status)))
}

func needRefusal(ctx context.Context) (*locate.Error, error) {
	err := stateOf[locateState](worldOf(ctx)).refused
	if err == nil {
		return nil, fmt.Errorf("the last action was not refused by its resolve")
	}
	var le *locate.Error
	errors.As(err, &le)
	return le, nil
}

func refusedWith(ctx context.Context, code string) error {
	le, err := needRefusal(ctx)
	if err != nil {
		return err
	}
	if string(le.Code) != code {
		return fmt.Errorf("refused with %s (%v), want %s", le.Code, le, code)
	}
	return nil
}

func refusalCount(ctx context.Context, n int) error {
	le, err := needRefusal(ctx)
	if err != nil {
		return err
	}
	if le.Count != n {
		return fmt.Errorf("the refusal counts %d matches, want %d (%v)", le.Count, n, le)
	}
	return nil
}

func refusalDescribes(ctx context.Context) error {
	le, err := needRefusal(ctx)
	if err != nil {
		return err
	}
	want := min(le.Count, 5)
	got := 0
	for _, c := range le.Candidates {
		if strings.HasPrefix(c, "…") {
			continue
		}
		if !strings.Contains(c, " frame=") || !strings.Contains(c, " ref=s") || !strings.Contains(c, `"`) {
			return fmt.Errorf("candidate description %q lacks role, name, frame or ref", c)
		}
		got++
	}
	if got != want {
		return fmt.Errorf("%d candidates described, want %d: %v", got, want, le.Candidates)
	}
	if strings.Contains(le.Error(), "secret") {
		return fmt.Errorf("the refusal leaks a typed value: %v", le)
	}
	return nil
}

func pageTextHas(ctx context.Context, mode, text string) error {
	_, p, err := worldPage(ctx)
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

func typeInto(ctx context.Context, text, role, name string) error {
	_, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	return p.Fill(ctx, engine.ByRole(role, name), text)
}
