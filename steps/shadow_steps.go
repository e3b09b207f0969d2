package steps

import (
	"context"
	"fmt"
	"strings"

	"github.com/replaylab/replaylab/engine/observe"
)

// shadowSteps check what the page's observation makes of shadow DOM and
// of text as rendered (LIB-2, LIB-7).
func shadowSteps(r *table) {
	const g = "Shadow DOM and text"
	r.step(g, `^the page names a closed shadow root on <([a-z][a-z0-9]*-[a-z0-9-]*|[a-z][a-z0-9]*)>$`,
		"a fresh snapshot lists an element of that tag as the host of a closed shadow root: its content is the page's own, named and not read (open roots are page: their content is observed like the light DOM)",
		`Then the page names a closed shadow root on <nova-badge>`, closedRootNamed)
	r.step(g, `^the answer text is exactly '([^']*)'$`,
		`the new group's text equals this exactly, white space included (\n is a line break): a code block keeps its lines, inline elements add no space`,
		`And the answer text is exactly 'Run it: print(1)\n    print(2)'`, answerTextExactly)
}

func closedRootNamed(ctx context.Context, tag string) error {
	p, err := currentPage(ctx)
	if err != nil {
		return err
	}
	v, err := p.Snapshot(ctx, observe.ViewPage)
	if err != nil {
		return err
	}
	var got []string
	for _, r := range v.Snapshot.ClosedRoots {
		if r.Tag == tag {
			return nil
		}
		got = append(got, "<"+r.Tag+">")
	}
	if len(got) == 0 {
		return fmt.Errorf("the snapshot names no closed shadow root, want one on <%s>", tag)
	}
	return fmt.Errorf("the snapshot names closed shadow roots on %s, want one on <%s>", strings.Join(got, ", "), tag)
}

func answerTextExactly(ctx context.Context, want string) error {
	r, err := worldOf(ctx).needAnswer()
	if err != nil {
		return err
	}
	if r.Partial {
		return fmt.Errorf("the answer is partial (%s): %q", r.Status, r.Text)
	}
	if want = strings.ReplaceAll(want, `\n`, "\n"); r.Text != want {
		return fmt.Errorf("answer text is %q, want %q", r.Text, want)
	}
	return nil
}
