package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/mcp/mcptest"
)

// chatDriver is a scripted page: a chat with one answer, a composer, a
// table; typing sets the composer's value, clicking Send adds an answer.
type chatDriver struct {
	mu      sync.Mutex
	url     string
	value   string
	answers int
	now     time.Time
}

func (d *chatDriver) html() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Chat</title><nav><a href="/a">Older chat</a></nav><main><h1>Chat</h1>`)
	b.WriteString(`<div data-message-author-role="user" data-message-id="u0"><p>Hello</p></div>`)
	b.WriteString(`<div data-message-author-role="assistant" data-message-id="a0"><p>Hi, here is a table.</p><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table><button>Copy</button></div>`)
	for i := range d.answers {
		fmt.Fprintf(&b, `<div data-message-author-role="assistant" data-message-id="a%d"><p>Answer %d.</p></div>`, i+1, i+1)
	}
	fmt.Fprintf(&b, `<form><textarea aria-label="Message" data-rl-value=%q></textarea><button type="submit">Send</button></form></main>`, d.value)
	return b.String()
}

func (d *chatDriver) Navigate(_ context.Context, url string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.url = url
	return nil
}

func (d *chatDriver) Capture(context.Context) (*capture.Capture, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return capture.New(d.url, d.html()), nil
}

func (d *chatDriver) Click(_ context.Context, node string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if strings.Contains(d.html(), "Send") && d.value != "" {
		d.answers++
		d.value = ""
	}
	return nil
}

func (d *chatDriver) Type(_ context.Context, _, text string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.value = text
	return nil
}

func (d *chatDriver) Press(context.Context, string, string) error { return nil }

func (d *chatDriver) Now() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.now
}

func (d *chatDriver) Sleep(_ context.Context, dur time.Duration) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.now = d.now.Add(dur)
	return nil
}

// TestResultsMatchOutputSchemas: every tool declares the schema of its
// result, and a real successful call of each validates against the schema
// the server lists: the structured content against the output schema; for
// the tools that return the page (mcp.PageTool), which declare no output
// schema and send no structured content, the JSON of the one text block
// against the schema in the tool's _meta.
func TestResultsMatchOutputSchemas(t *testing.T) {
	ctx := context.Background()
	cs := mcptest.Start(t, mcp.Options{Driver: func(context.Context, string, string) (engine.Driver, func() error, error) {
		return &chatDriver{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, func() error { return nil }, nil
	}}).CS

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		schema := tool.OutputSchema
		if mcp.PageTool(tool.Name) {
			if schema != nil {
				t.Errorf("tool %s returns the page but declares an output schema, which obliges structured content", tool.Name)
			}
			schema = tool.Meta[mcp.MetaResultSchema]
		}
		if schema == nil {
			t.Errorf("tool %s declares no result schema", tool.Name)
			continue
		}
		data, err := json.Marshal(schema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve the output schema: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}

	// the schemas are strict: a wrong type or an unknown field fails
	if err := schemas["snapshot"].Validate(map[string]any{"snapshot": "one"}); err == nil {
		t.Error("the snapshot schema accepts a string snapshot id")
	}
	if err := schemas["begin"].Validate(map[string]any{"task": "t1", "extra": 1}); err == nil {
		t.Error("the begin schema accepts an unknown field")
	}

	called := map[string]bool{}
	call := func(tool string, args map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError {
			t.Fatalf("%s failed: %s", tool, mcp.TextOf(res))
		}
		if len(res.Content) != 1 {
			t.Errorf("%s: %d content blocks, want one text block", tool, len(res.Content))
		}
		if page := mcp.PageTool(tool); page != (res.StructuredContent == nil) {
			t.Errorf("%s: structured content %v, want it only for tools that do not return the page", tool, res.StructuredContent != nil)
		}
		data, err := mcp.ResultJSON(res)
		if err != nil {
			t.Fatal(err)
		}
		var v, text any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(mcp.TextOf(res)), &text); err != nil || !reflect.DeepEqual(text, v) {
			t.Errorf("%s: the text block is not the result's JSON (%v):\n%s\n%s", tool, err, mcp.TextOf(res), data)
		}
		if err := schemas[tool].Validate(v); err != nil {
			t.Errorf("%s: the result does not match the output schema: %v\n%s", tool, err, data)
		}
		called[tool] = true
	}
	task := func() string {
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "begin", Arguments: map[string]any{"goal": "schemas"}})
		if err != nil || res.IsError {
			t.Fatalf("begin: %v %v", err, res)
		}
		var out struct{ Task string }
		data, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(data, &out)
		return out.Task
	}
	call("begin", map[string]any{"goal": "validate"})
	t1 := task()
	page := func(extra map[string]any) map[string]any {
		args := map[string]any{"task": t1}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	msg := map[string]any{"role": "textbox", "name": "Message"}
	call("navigate", page(map[string]any{"url": "http://chat.test/"}))
	call("snapshot", page(nil))
	call("snapshot", page(map[string]any{"view": "full"}))
	call("find", page(map[string]any{"role": "link"}))
	call("extract", page(map[string]any{"what": "text"}))
	call("extract", page(map[string]any{"what": "tables"}))
	call("extract", page(map[string]any{"what": "search", "query": "table"}))
	call("fill", page(map[string]any{"target": msg, "text": "Next question"}))
	call("verifyField", page(map[string]any{"target": msg, "value": "Next question"}))
	call("click", page(map[string]any{"target": map[string]any{"role": "button", "name": "Send"}, "expect": map[string]any{"newAnswer": true}}))
	call("waitAnswer", page(map[string]any{"timeoutMs": 1000}))
	call("readAnswer", page(map[string]any{"group": "a1", "limit": 3}))
	call("waitFor", page(map[string]any{"expect": map[string]any{"textVisible": "Answer 1."}}))
	call("verifyOutcome", page(map[string]any{"expect": map[string]any{"textVisible": "Answer 1."}}))
	call("press", page(map[string]any{"target": msg, "key": "Enter", "expect": map[string]any{"textVisible": "Answer 1."}}))
	call("changes", page(nil))
	call("metrics", map[string]any{"task": t1})
	call("finish", map[string]any{"task": t1})

	// a blocked task's one recheck
	t2 := task()
	t1 = t2
	call("navigate", page(map[string]any{"url": "http://chat.test/"}))
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "click", Arguments: page(map[string]any{
		"target": map[string]any{"role": "button", "name": "Copy"}, "expect": map[string]any{"textVisible": "never shown", "timeoutMs": 100}})})
	if err != nil || !res.IsError {
		t.Fatalf("click with an unmet expectation: %v %v", err, res)
	}
	call("recheck", map[string]any{"task": t2})
	call("abandon", map[string]any{"task": t2, "reason": "the copy cannot be confirmed"})

	for _, tool := range list.Tools {
		if !called[tool.Name] {
			t.Errorf("tool %s was not called: add it to this test", tool.Name)
		}
	}
}

// TestTargetSelectorScopeAndStopOnTheWire (LIB-5): the tools' target
// takes a CSS selector and a scope (the newest answer or a group's id),
// and the expectation takes stop, as the Go API's engine.Target and
// engine.Expect do: the input schemas list them, and calls use them.
func TestTargetSelectorScopeAndStopOnTheWire(t *testing.T) {
	ctx := context.Background()
	cs := mcptest.Start(t, mcp.Options{Driver: func(context.Context, string, string) (engine.Driver, func() error, error) {
		return &chatDriver{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, func() error { return nil }, nil
	}}).CS
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name != "click" {
			continue
		}
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		prop := func(path ...string) *jsonschema.Schema {
			t.Helper()
			cur := &s
			for _, p := range path {
				if cur.Ref != "" { // a $ref into $defs
					cur = s.Defs[strings.TrimPrefix(cur.Ref, "#/$defs/")]
				}
				if cur == nil || cur.Properties[p] == nil {
					t.Fatalf("click's input schema has no %s", strings.Join(path, "."))
				}
				cur = cur.Properties[p]
			}
			return cur
		}
		for _, path := range [][]string{{"target", "selector"}, {"target", "scope"}, {"expect", "stop"}, {"expect", "gone", "selector"}} {
			if p := prop(path...); p.Description == "" {
				t.Errorf("click: %s has no description", strings.Join(path, "."))
			}
		}
	}

	begin, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "begin", Arguments: map[string]any{"goal": "wire"}})
	if err != nil || begin.IsError {
		t.Fatalf("begin: %v %v", err, begin)
	}
	var out struct{ Task string }
	data, _ := json.Marshal(begin.StructuredContent)
	_ = json.Unmarshal(data, &out)
	call := func(tool string, args map[string]any) (string, bool) {
		t.Helper()
		args["task"] = out.Task
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return mcp.TextOf(res), !res.IsError
	}
	msg := map[string]any{"role": "textbox", "name": "Message"}
	if text, ok := call("navigate", map[string]any{"url": "http://chat.test/"}); !ok {
		t.Fatal(text)
	}
	if text, ok := call("fill", map[string]any{"target": msg, "text": "Next question"}); !ok {
		t.Fatal(text)
	}
	for _, tc := range []struct {
		name   string
		args   map[string]any
		ok     bool
		output string // what the result or error says
	}{
		{"a send given by selector", map[string]any{"target": map[string]any{"selector": "form button[type=submit]"}, "expect": map[string]any{"newAnswer": true}}, true, `"ok":true`},
		{"a control scoped to the newest answer it is not in", map[string]any{"target": map[string]any{"role": "button", "name": "Copy", "scope": "newest"}, "expect": map[string]any{"textVisible": "Hi"}}, false, "TARGET_NOT_FOUND"},
		{"a control scoped to a group by id", map[string]any{"target": map[string]any{"role": "button", "name": "Copy", "scope": "a0"}, "expect": map[string]any{"textVisible": "Hi", "stop": true}}, true, `"ok":true`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, ok := call("click", tc.args)
			if ok != tc.ok || !strings.Contains(text, tc.output) {
				t.Fatalf("click ok=%v: %s; want ok=%v with %s", ok, text, tc.ok, tc.output)
			}
		})
	}
	// the click with stop marked the answer the send started as stopped
	text, ok := call("waitAnswer", map[string]any{"timeoutMs": 1000})
	if !ok || !strings.Contains(text, "ANSWER_STOPPED") {
		t.Fatalf("waitAnswer after a click expecting stop: %s, want ANSWER_STOPPED", text)
	}
}
