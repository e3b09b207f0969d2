package engine

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
)

// awaitOutcome reads the page until x holds or its timeout passes.
func (p *Page) awaitOutcome(ctx context.Context, x Expect) (bool, string, error) {
	timeout := x.Timeout
	if timeout <= 0 {
		timeout = p.task.e.cfg.OutcomeTimeout
	}
	deadline := p.d.Now().Add(timeout)
	var seen *observe.Document
	evidence := ""
	for {
		doc, groups, err := p.read(ctx)
		if err != nil {
			return false, "", err
		}
		// an unchanged page (the same capture, so the same parse) is not
		// evaluated again
		if doc != seen {
			seen = doc
			ok, ev, err := p.evaluate(doc, groups, x)
			if err != nil || ok {
				return ok, ev, err
			}
			evidence = ev
		}
		if !p.d.Now().Before(deadline) {
			return false, evidence, nil
		}
		if err := p.d.Sleep(ctx, min(p.pollInterval(), deadline.Sub(p.d.Now()))); err != nil {
			return false, "", err
		}
		if !p.d.Now().Before(deadline) {
			p.refresh()
		}
	}
}

// refresh makes the next read see the page whatever the driver's change
// observer said (a deadline fell due).
func (p *Page) refresh() {
	if r, ok := p.d.(Refresher); ok {
		r.Refresh()
	}
}

// check evaluates x once on a fresh read.
func (p *Page) check(ctx context.Context, x Expect) (bool, string, error) {
	doc, groups, err := p.read(ctx)
	if err != nil {
		return false, "", err
	}
	return p.evaluate(doc, groups, x)
}

// evaluate decides x on one read of the page.
func (p *Page) evaluate(doc *observe.Document, groups adapter.Result, x Expect) (bool, string, error) {
	var met []string
	if x.NewAnswer {
		if p.baseline == nil {
			return false, "", &Error{Code: NoBaseline, Op: "expect"}
		}
		g, ok := p.baseline.Newest(groups)
		switch ev, failed := p.baseline.Failed(groups); {
		case ok:
			met = append(met, "new group "+g.ID)
		case failed:
			// the library adds no answer on an error: the page-level
			// failure signal is the send's outcome (LIB-5), and the
			// answer wait ends ANSWER_FAILED on it
			met = append(met, "no new group; "+ev)
		default:
			return false, "no group outside the baseline", nil
		}
	}
	if x.URL != "" {
		if doc.URL != x.URL {
			return false, "url is " + doc.URL, nil
		}
		if !hasContent(doc) {
			return false, "url is " + x.URL + " but the document is still empty", nil
		}
		met = append(met, "url "+x.URL)
	}
	needObs := x.TextVisible != "" || x.Gone != nil || x.Field != nil
	if needObs {
		o := observe.Observe(doc, p.seq, observe.Options{})
		if x.TextVisible != "" {
			// the whole visible text, without building a view of it
			if !o.HasText(x.TextVisible) {
				return false, "text not visible", nil
			}
			met = append(met, fmt.Sprintf("text %q visible", x.TextVisible))
		}
		if x.Gone != nil {
			// a target given by selector or scoped to an answer goes as
			// one given by role and name does (LIB-5)
			group, err := scope(*x.Gone, groups)
			if err == nil {
				_, err = resolveIn(o, *x.Gone, group)
			}
			if errcode.Of(err) != locate.TargetNotFound {
				return false, "element still present", nil
			}
			met = append(met, "element gone")
		}
		if x.Field != nil {
			el, err := locate.Resolve(o, x.Field.Target.Locator)
			if err != nil || observe.Normalize(el.RealValue()) != observe.Normalize(x.Field.Value) {
				return false, "field value differs", nil
			}
			met = append(met, "field value matches")
		}
	}
	return true, strings.Join(met, "; "), nil
}

// hasContent reports whether the main frame's body holds any element: a
// URL reached before its document has loaded is not yet the outcome.
func hasContent(doc *observe.Document) bool {
	found := false
	doc.Walk(func(f *observe.Frame, n *html.Node) bool {
		if found || f.ID != doc.Frames[0].ID {
			return false
		}
		if n.DataAtom == atom.Body {
			found = n.FirstChild != nil && strings.TrimSpace(textOrChild(n)) != ""
			return false
		}
		return true
	})
	return found
}

func textOrChild(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return "element"
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return c.Data
		}
	}
	return ""
}
