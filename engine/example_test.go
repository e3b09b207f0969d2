package engine_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/replay"
)

// Example drives one task through the page API on the replay driver: a
// recorded session stands in for the browser, so the same engine code that
// runs live decides every step. The session is built here; a real one is
// recorded live and read back with replay.Load.
func Example() {
	const chat = "http://sim.test/chat"
	// pageWith renders the chat as a capture would freeze it: the
	// composer (node n1) holding value, the send button (node n2), and
	// the turns. data-rl-* attributes carry what a capture writes in.
	pageWith := func(value, turns string) *capture.Capture {
		return capture.New(chat, `<html><body><main>`+turns+
			`<textarea aria-label="Message" data-rl-node="n1" data-rl-value="`+value+`"></textarea>`+
			`<button data-rl-node="n2">Send</button></main></body></html>`)
	}
	question := `<div data-message-author-role="user" data-message-id="m1"><p>Capital of France?</p></div>`
	captures := []*capture.Capture{
		pageWith("", ""),                   // 0: the empty chat
		pageWith("Capital of France?", ""), // 1: after typing
		pageWith("", question+`<div data-message-author-role="assistant" data-message-id="m2" aria-busy="true"><p>Par</p></div>`),
		pageWith("", question+`<div data-message-author-role="assistant" data-message-id="m2"><p>Paris.</p></div>`),
	}
	idx := func(i int) *int { return &i }
	session := &replay.Session{
		Version:  replay.FormatVersion,
		Captures: captures,
		Steps: []replay.Step{
			{AtMS: 0, Kind: replay.KindNavigate, URL: chat},
			{AtMS: 100, Kind: replay.KindCapture, Capture: idx(0)},
			{AtMS: 200, Kind: replay.KindType, Node: "n1", Text: "Capital of France?"},
			{AtMS: 300, Kind: replay.KindCapture, Capture: idx(1)},
			{AtMS: 400, Kind: replay.KindClick, Node: "n2"},
			{AtMS: 500, Kind: replay.KindCapture, Capture: idx(2)},
			{AtMS: 600, Kind: replay.KindCapture, Capture: idx(3)},
		},
	}

	ctx := context.Background()
	e := engine.New(engine.Config{})
	task := e.Begin(ctx, "ask for the capital of France")
	page := task.Page("main", replay.NewDriver(session))
	if err := page.Navigate(ctx, chat); err != nil {
		fmt.Println("navigate:", err)
		return
	}
	view, err := page.Snapshot(ctx, "page")
	if err != nil {
		fmt.Println("snapshot:", err)
		return
	}
	fmt.Println("snapshot", view.ID, "elements", view.Counts.Elements.Total, "groups", len(view.Groups))

	// Fill types once and verifies the field's real value.
	if err := page.Fill(ctx, engine.ByRole("textbox", "Message"), "Capital of France?"); err != nil {
		fmt.Println("fill:", err)
		return
	}
	// A click must say what it expects: here a new answer group.
	err = page.Click(ctx, engine.ByRole("button", "Send"), engine.Expect{NewAnswer: true, Timeout: time.Second})
	if err != nil {
		fmt.Println("click:", err)
		return
	}
	res, err := page.WaitAnswer(ctx, answer.Options{Timeout: 2 * time.Second})
	if err != nil {
		fmt.Println("wait:", err)
		return
	}
	fmt.Println(res.Status, res.GroupID, strings.Join(res.States, ">"), res.Text)
	if err := task.Finish(ctx); err != nil {
		fmt.Println("finish:", err)
		return
	}
	fmt.Println("finished", task.ID)
	// Output:
	// snapshot 1 elements 2 groups 0
	// complete m2 generating>complete Paris.
	// finished t1
}
