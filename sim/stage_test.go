package sim_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/sim"
)

var viewerRe = regexp.MustCompile(`const viewer = (\d+), shown = (\d+);`)

// TestStageProtocol plays the page's half of the stage by hand: the lab
// does not settle until the page acknowledged its load and every
// transition, and a page that is gone holds nothing up. What the sim
// waits for is read from its state (a settle on an ended context answers
// at once), never from how long a wait took.
func TestStageProtocol(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	// a settle expected to fail (before an acknowledgement) fails
	// after 300 ms; one expected to pass waits for the page
	lab.SettleTimeout = 300 * time.Millisecond
	s, err := sim.NewServer(sim.Options{Clock: lab})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	lab.AddGate(s)
	s.SetChat(sim.Chat{Style: sim.StyleMarker, History: 2, Answers: []sim.Answer{{Partial: "P", Final: "F", Generate: 300 * time.Millisecond}}})
	ctx := context.Background()

	_, body := get(t, s.URL+"/chat")
	m := viewerRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the chat page has no stage script")
	}
	viewer, shown := m[1], m[2]
	if err := lab.Settle(ctx); !errors.Is(err, clock.ErrSettle) || !strings.Contains(err.Error(), "page /chat (viewer 1) to acknowledge version 0") {
		t.Fatalf("settle before the load was acknowledged: %v", err)
	}
	ack := func(v int) {
		t.Helper()
		res, err := http.Post(s.URL+"/sim/stage/ack", "application/json", strings.NewReader(fmt.Sprintf(`{"viewer":%s,"version":%d}`, viewer, v)))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	ack(0)
	if err := lab.Settle(ctx); err != nil {
		t.Fatalf("settle after the load: %v", err)
	}

	sctx, stop := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(sctx, "GET", s.URL+"/sim/stage/events?viewer="+viewer+"&after="+shown, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- d
			}
		}
		close(events)
	}()
	next := func() string { // a hang ends with the test binary's -timeout
		t.Helper()
		e, ok := <-events
		if !ok {
			t.Fatal("the stage's event stream ended")
		}
		return e
	}
	// waiting is what the sim's gate waits for now ("" when settled)
	waiting := func() string {
		ended, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.Settle(ended); err != nil {
			return err.Error()
		}
		return ""
	}

	if res, err := http.Post(s.URL+"/sim/chat/send", "application/json", strings.NewReader(`{"text":"hi"}`)); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	if e := next(); !strings.Contains(e, `"v":1,"op":"append"`) || !strings.Contains(e, "aria-busy") {
		t.Fatalf("first event: %s", e)
	}
	if err := lab.Settle(ctx); !errors.Is(err, clock.ErrSettle) {
		t.Fatalf("settle before the send was rendered: %v", err)
	}
	ack(1)

	lab.SettleTimeout = clock.DefaultSettleTimeout // the page acknowledges below
	slept := make(chan error, 1)
	go func() { slept <- lab.Sleep(ctx, 10*time.Second) }()
	if e := next(); !strings.Contains(e, `"v":2,"op":"replace","index":3`) || !strings.Contains(e, ">F<") {
		t.Fatalf("second event: %s", e)
	}
	if w := waiting(); !strings.Contains(w, "to acknowledge version 2") {
		t.Fatalf("after the completion was published the sim waits for %q, want the page's acknowledgement of version 2", w)
	}
	select {
	case err := <-slept:
		t.Fatalf("the sleep returned (%v) before the page acknowledged the completion", err)
	default:
	}
	ack(2)
	if err := <-slept; err != nil {
		t.Fatal(err)
	}
	if at := lab.Now().Sub(clock.Epoch); at != 300*time.Millisecond {
		t.Errorf("the sleep woke at +%v, want +300ms", at)
	}

	// a page that is gone (its event stream closed) holds nothing up
	stop()
	s.SetChat(sim.Chat{Style: sim.StyleMarker, History: 2})
	if res, err := http.Post(s.URL+"/sim/chat/send", "application/json", strings.NewReader(`{"text":"again"}`)); err == nil {
		res.Body.Close()
	}
	// the sim drops the viewer when it sees its stream closed, and
	// wakes the settle then
	if err := lab.Settle(ctx); err != nil {
		t.Fatalf("a closed page still holds the lab: %v", err)
	}
}
