package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/trace"
)

// The agent steps (SPEC §15, AGT-1, AGT-2, AGT-4) are what an agent does
// with the replaylab mcp process beyond one action: call a tool with
// arguments of its own and read the tool error as the wire carries it,
// act on the refs the last action's result returned (no snapshot call in
// between), count the calls of a task, navigate anywhere, abandon a
// blocked task and read an answer's text in pages.

// agentState is what the agent steps keep between steps.
type agentState struct {
	raw     *mcpsdk.CallToolResult // the last raw tool call's result
	rawTool string
}

func agentSteps(r *table) {
	const g = "MCP process"
	r.step(g, `^I call the MCP tool "([^"]*)" with the arguments (\{.*\})$`,
		"call a tool of the replaylab mcp process with these JSON arguments as written, the current task's id added as \"task\" unless they name one; the result is kept as received (a tool error included) for \"the tool error is …\"",
		`When I call the MCP tool "fill" with the arguments {"target": {"role": "textbox", "name": "Name"}, "text": "Ada", "colour": "red"}`, agentCallRaw)
	r.step(g, `^the tool error is "([^"]*)"(?: for the field "([^"]*)")?, as JSON text with no structured content$`,
		"the last raw tool call ended as a tool error (isError) with no structured content (so no client's output-schema check can reject it) and one text block that is the JSON of the error: ok false, that code and, for an argument error, the field (AGT-1)",
		`Then the tool error is "UNKNOWN_ARGUMENT" for the field "colour", as JSON text with no structured content`, agentToolError)
	r.step(g, `^I keep the ref of the (\w+) "([^"]*)" in the last action's result as "([^"]*)"$`,
		"keep the ref of the one element with that role and name among the elements the last navigate, fill, click or press over MCP returned (AGT-2: the page it left)",
		`When I keep the ref of the textbox "Message" in the last action's result as "composer"`, agentKeepResultRef)
	r.step(g, `^I fill the (\w+) "([^"]*)" by its ref in the last action's result with "([^"]*)"$`,
		"fill by the ref the last action's result gave that element, with no snapshot call first (AGT-2); the result is kept for \"the action ends with\"",
		`When I fill the textbox "Message" by its ref in the last action's result with "Hello"`, agentFillByResultRef, isAction)
	r.step(g, `^I click the (\w+) "([^"]*)" by its ref in the last action's result expecting a new answer$`,
		"click by the ref the last action's result gave that element, expecting a new answer group (the baseline for the answer wait), with no snapshot call first (AGT-2)",
		`When I click the button "Send" by its ref in the last action's result expecting a new answer`, agentClickByResultRef, isAction, defaults("waits up to 5 s for the new answer group"))
	r.step(g, `^I click the element with the (kept )?ref "([^"]*)" expecting a new answer$`,
		"click by a ref — one kept by an earlier step (\"kept ref\"), or written out, e.g. one never issued — expecting a new answer group; a refused click (STALE_REF, INVALID_REF) sends nothing and must arm no answer wait (AGT-4)",
		`When I click the element with the kept ref "composer" expecting a new answer`, agentClickRef, isAction, defaults("waits up to 5 s for the new answer group"))
	r.step(g, `^I try to wait up to (\d+) ms for the answer$`,
		"the answer wait, its refusal kept for \"the action ends with\" (NO_BASELINE when no new-answer action armed it) instead of failing the step",
		"When I try to wait up to 3000 ms for the answer", agentTryWait, isAction)
	r.step(g, `^I navigate to the URL "([^"]*)"$`,
		"navigate the current task's page to this URL as written (not a sim path); the result is kept: NAVIGATION_FAILED with the network error, URL_NOT_ALLOWED for a non-http(s) URL over MCP",
		`When I navigate to the URL "http://127.0.0.1:1/"`, agentNavigateURL, isAction)
	r.step(g, `^the action's error mentions "([^"]*)"$`,
		"the last action step failed and its error's message holds this text (e.g. the network error of a NAVIGATION_FAILED)",
		`Then the action's error mentions "ERR_CONNECTION_REFUSED"`, agentErrorMentions, isResult)
	r.step(g, `^I abandon the task because "([^"]*)"$`,
		"give the current task up with a reason (allowed while it is blocked; its pages close); the result is kept like an action's",
		`When I abandon the task because "the save's outcome is unknown"`, agentAbandon, isAction)
	r.step(g, `^the task's calls were "([^"]*)"$`,
		"the tools the current MCP task called, in order, comma-separated, from begin on: e.g. no snapshot between fill and click (AGT-2)",
		`Then the task's calls were "begin, navigate, fill, click, waitAnswer"`, agentCalls)
	r.step(g, `^the answer read over MCP in pages of (\d+) characters is "([^"]*)"$`,
		"read the last waited-for answer group's full text with readAnswer, that many characters a page, until hasMore is false: every page is within the limit, the offsets follow on and the pages join to this text (AGT-4)",
		`Then the answer read over MCP in pages of 10 characters is "Paris is the capital of France."`, agentReadPages)
}

// mcpTask returns the current task as an MCP task.
func mcpTask(ctx context.Context) (*mcp.Task, *mcp.Page, error) {
	_, act, err := needProc(ctx)
	if err != nil {
		return nil, nil, err
	}
	t, ok := act.task.(*mcp.Task)
	p, pok := act.page.(*mcp.Page)
	if !ok || !pok {
		return nil, nil, errors.New("the current task is not one of the replaylab mcp process")
	}
	return t, p, nil
}

func agentCallRaw(ctx context.Context, tool, args string) error {
	st, act, err := needProc(ctx)
	if err != nil {
		return err
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return fmt.Errorf("the arguments are not a JSON object: %w", err)
	}
	if _, ok := in["task"]; !ok {
		in["task"] = act.taskID
	}
	res, err := st.client.CallResult(ctx, tool, in)
	if err != nil {
		return err
	}
	as := stateOf[agentState](worldOf(ctx))
	as.raw, as.rawTool = res, tool
	return nil
}

func agentToolError(ctx context.Context, code, field string) error {
	w := worldOf(ctx)
	as := stateOf[agentState](w)
	res := as.raw
	if res == nil {
		return errors.New(`no raw tool call was made ("I call the MCP tool …")`)
	}
	te, err := mcp.ToolErrorOf(res)
	switch {
	case err != nil:
		return fmt.Errorf("%s, want the tool error %s: %w", as.rawTool, code, err)
	case string(te.Code) != code:
		return fmt.Errorf("%s's tool error is %s, want %s: %s", as.rawTool, te.Code, code, te.Message)
	case te.Field != field:
		return fmt.Errorf("%s's tool error names the field %q, want %q: %s", as.rawTool, te.Field, field, te.Message)
	}
	w.log.Emit(trace.E("mcp.toolError", trace.A("tool", as.rawTool), trace.A("code", te.Code), trace.A("field", te.Field), trace.A("structured", false)))
	return nil
}

// resultRef is the ref of the one element with that role and name in the
// last action's result.
func resultRef(ctx context.Context, role, name string) (string, error) {
	_, p, err := mcpTask(ctx)
	if err != nil {
		return "", err
	}
	a := p.After()
	if a == nil {
		return "", errors.New("no navigate, fill, click or press over MCP succeeded on this page yet")
	}
	var refs []string
	for _, e := range a.Elements {
		if e.Role == role && e.Name == name {
			refs = append(refs, e.Ref)
		}
	}
	if len(refs) != 1 {
		return "", fmt.Errorf("the last action's result (snapshot %d) has %d elements %s %q (%v), want 1", a.Snapshot, len(refs), role, name, refs)
	}
	return refs[0], nil
}

func agentKeepResultRef(ctx context.Context, role, name, label string) error {
	st, _, err := needProc(ctx)
	if err != nil {
		return err
	}
	ref, err := resultRef(ctx, role, name)
	if err != nil {
		return err
	}
	st.refs[label] = ref
	worldOf(ctx).log.Emit(trace.E("mcp.ref", trace.A("label", label), trace.A("role", role), trace.A("name", name), trace.A("ref", ref), trace.A("from", "result")))
	return nil
}

func agentFillByResultRef(ctx context.Context, role, name, text string) error {
	ref, err := resultRef(ctx, role, name)
	if err != nil {
		return err
	}
	return act(ctx, func(p actPage) error { return p.Fill(ctx, engine.Target{Ref: ref}, text) })
}

func agentClickByResultRef(ctx context.Context, role, name string) error {
	ref, err := resultRef(ctx, role, name)
	if err != nil {
		return err
	}
	return act(ctx, func(p actPage) error {
		return p.Click(ctx, engine.Target{Ref: ref}, engine.Expect{NewAnswer: true, Timeout: clickWait})
	})
}

func agentClickRef(ctx context.Context, kept, ref string) error {
	st, _, err := needProc(ctx)
	if err != nil {
		return err
	}
	if kept != "" {
		if ref, err = st.ref(ref); err != nil {
			return err
		}
	}
	return act(ctx, func(p actPage) error {
		return p.Click(ctx, engine.Target{Ref: ref}, engine.Expect{NewAnswer: true, Timeout: clickWait})
	})
}

func agentTryWait(ctx context.Context, n int) error {
	return worldOf(ctx).kept(waitFor(ctx, answer.Options{Timeout: ms(n)}))
}

func agentNavigateURL(ctx context.Context, u string) error {
	return act(ctx, func(p actPage) error { return p.Navigate(ctx, u) })
}

func agentErrorMentions(ctx context.Context, text string) error {
	r, err := worldOf(ctx).lastResult()
	if err != nil {
		return err
	}
	if r.err == nil {
		return fmt.Errorf("the last action (%s) succeeded", r.step)
	}
	if !strings.Contains(r.err.Error(), text) {
		return fmt.Errorf("the last action's error does not mention %q: %v", text, r.err)
	}
	return nil
}

func agentAbandon(ctx context.Context, reason string) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	t, ok := st.task.(interface {
		Abandon(ctx context.Context, reason string) error
	})
	if !ok {
		return errors.New("the current task cannot be abandoned")
	}
	return worldOf(ctx).kept(t.Abandon(ctx, reason))
}

func agentCalls(ctx context.Context, want string) error {
	t, _, err := mcpTask(ctx)
	if err != nil {
		return err
	}
	var got []string
	for _, c := range t.CallLog() {
		got = append(got, c.Tool)
	}
	var exp []string
	for _, s := range strings.Split(want, ",") {
		exp = append(exp, strings.TrimSpace(s))
	}
	if strings.Join(got, ", ") != strings.Join(exp, ", ") {
		return fmt.Errorf("the task's calls were %q, want %q", strings.Join(got, ", "), strings.Join(exp, ", "))
	}
	worldOf(ctx).log.Emit(trace.E("mcp.calls", trace.A("task", t.ID), trace.A("tools", strings.Join(got, ","))))
	return nil
}

func agentReadPages(ctx context.Context, limit int, want string) error {
	w := worldOf(ctx)
	_, p, err := mcpTask(ctx)
	if err != nil {
		return err
	}
	if w.answer == nil || w.answer.GroupID == "" {
		return errors.New(`no answer group was waited for; add "I wait for the answer" first`)
	}
	var b strings.Builder
	pages := 0
	for off := 0; ; pages++ {
		if pages > len(want)+1 {
			return fmt.Errorf("readAnswer of %s did not end after %d pages", w.answer.GroupID, pages)
		}
		gt, err := p.ReadGroup(ctx, w.answer.GroupID, off, limit)
		if err != nil {
			return fmt.Errorf("readAnswer at %d: %w", off, err)
		}
		n := len([]rune(gt.Text))
		switch {
		case gt.Offset != off:
			return fmt.Errorf("readAnswer at %d answered offset %d", off, gt.Offset)
		case n > limit:
			return fmt.Errorf("readAnswer at %d returned %d characters, over the limit %d", off, n, limit)
		case gt.HasMore && n == 0:
			return fmt.Errorf("readAnswer at %d returned nothing but has more", off)
		}
		b.WriteString(gt.Text)
		off += n
		if !gt.HasMore {
			if gt.Total != off {
				return fmt.Errorf("readAnswer says %d characters in all, the pages hold %d", gt.Total, off)
			}
			pages++
			break
		}
	}
	if b.String() != want {
		return fmt.Errorf("the answer read in pages is %q, want %q", b.String(), want)
	}
	w.log.Emit(trace.E("mcp.readAnswer", trace.A("group", w.answer.GroupID), trace.A("pages", pages), trace.A("limit", limit), trace.A("chars", len([]rune(want)))))
	return nil
}
