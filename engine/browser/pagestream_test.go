package browser_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/clock"
)

// streamPage reads one stream of five parts ("1" … "5") over the
// transport its ?t= names and writes what it received so far into #out,
// then "done" when the stream ended: fetch + ReadableStream (NDJSON),
// fetch of an SSE body parsed as whole events per read (as NLUX's
// LangServe adapter does: an event cut in two is dropped), XMLHttpRequest
// progress, EventSource (a "done" event ends it) and WebSocket (the
// server closes it; ?keep=1 keeps it open). start()
// begins; #state says "stopped" once stop() aborted a fetch.
const streamPage = `<!doctype html><html><body><p id="out">idle</p><p id="state"></p>
<script>
const out = document.getElementById("out"), got = [];
const show = (x) => { got.push(x); out.textContent = got.join(" "); };
const end = (why) => { out.textContent = got.join(" ") + " " + why; };
const t = new URLSearchParams(location.search).get("t");
let ctl;
window.start = () => {
  if (t === "fetch") (async () => {
    ctl = new AbortController();
    try {
      const r = await fetch("/ndjson", {signal: ctl.signal});
      const reader = r.body.getReader(), dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const {value, done} = await reader.read();
        if (done) break;
        buf += dec.decode(value, {stream: true});
        let i;
        while ((i = buf.indexOf("\n")) >= 0) { show(JSON.parse(buf.slice(0, i)).n); buf = buf.slice(i + 1); }
      }
      end("done");
    } catch (e) { document.getElementById("state").textContent = e.name === "AbortError" ? "stopped" : String(e); }
  })();
  if (t === "ssefetch") (async () => {
    const r = await fetch("/ssefetch");
    const reader = r.body.getReader(), dec = new TextDecoder();
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      for (const block of dec.decode(value).split("\n\n")) {
        let ev = "", data = null;
        for (const l of block.split("\n")) {
          if (l.startsWith("event: ")) ev = l.slice(7);
          if (l.startsWith("data: ")) data = l.slice(6);
        }
        if (ev === "data" && data !== null) show(data);
      }
    }
    end("done");
  })();
  if (t === "xhr") {
    const x = new XMLHttpRequest();
    x.open("GET", "/ndjson");
    x.onprogress = () => { const ls = x.responseText.split("\n").filter(Boolean); while (got.length < ls.length) show(JSON.parse(ls[got.length]).n); };
    x.onload = () => end("done " + x.readyState);
    x.onabort = () => { document.getElementById("state").textContent = "stopped"; };
    ctl = x;
    x.send();
  }
  if (t === "sse") {
    const es = new EventSource("/sse");
    es.onmessage = (m) => show(m.data);
    es.addEventListener("done", () => { es.close(); end("done"); });
  }
  if (t === "ws") {
    const ws = new WebSocket(location.origin.replace(/^http/, "ws") + "/ws" + location.search);
    ws.onopen = () => ws.send("go");
    ws.onmessage = (m) => show(m.data);
    ws.onclose = () => end("done");
  }
};
window.stop = () => ctl.abort();
</script></body></html>`

// streamServer serves streamPage and the four streams, each part after
// a random wall-time gap of up to 250 ms (so the network cuts and times
// them differently on every run).
func streamServer(t *testing.T) *httptest.Server {
	t.Helper()
	gap := func() { time.Sleep(time.Duration(rand.IntN(250)) * time.Millisecond) }
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(streamPage))
	})
	mux.HandleFunc("/ndjson", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		for i := 1; i <= 5; i++ {
			gap()
			if _, err := fmt.Fprintf(w, "{\"n\":\"%d\"}\n", i); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/ssefetch", func(w http.ResponseWriter, r *http.Request) {
		// each event written a line at a time, so the network cuts it
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		for i := 1; i <= 5; i++ {
			for _, line := range []string{"event: data\n", fmt.Sprintf("data: %d\n", i), "\n"} {
				gap()
				_, _ = fmt.Fprint(w, line)
				w.(http.Flusher).Flush()
			}
		}
		_, _ = fmt.Fprint(w, "event: end\n\n")
	})
	mux.HandleFunc("/sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		for i := 1; i <= 5; i++ {
			gap()
			_, _ = fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
		}
		_, _ = fmt.Fprint(w, "event: done\ndata: end\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // an EventSource's stream stays open: the page closes it
	})
	mux.Handle("/ws", websocket.Handler(func(c *websocket.Conn) {
		defer c.Close()
		var hello string
		if err := websocket.Message.Receive(c, &hello); err != nil || hello != "go" {
			return
		}
		n := 5
		if c.Request().URL.Query().Get("keep") != "" {
			n = 3
		}
		for i := 1; i <= n; i++ {
			gap()
			if err := websocket.Message.Send(c, fmt.Sprint(i)); err != nil {
				return
			}
		}
		if n == 3 { // a pause longer than the socket's idle bound, a late message, and open
			time.Sleep(browser.PageClockStreamIdle + time.Second)
			_ = websocket.Message.Send(c, "4")
			_ = websocket.Message.Receive(c, &hello)
		}
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// streamLab opens streamPage for transport on a page clock.
func streamLab(t *testing.T, query string) (*browser.Page, *clock.Lab, func() string) {
	t.Helper()
	ctx := context.Background()
	srv := streamServer(t)
	p := newPage(t)
	lab := clock.NewLab(clock.Epoch)
	if err := p.InstallPageClock(ctx, lab); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL+"/?"+query); err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(`id="out"[^>]*>([^<]*)<`)
	read := func() string {
		t.Helper()
		c, err := p.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := out.FindStringSubmatch(c.Frames[0].HTML)
		if m == nil {
			t.Fatalf("no #out in %s", c.Frames[0].HTML)
		}
		return m[1]
	}
	return p, lab, read
}

// TestPageClockPacesStreams: each transport's five parts reach the page
// one per 20 ms of lab time, whatever the wall-time gaps the server put
// between them, and every state is read; then its end. A fetch's response
// takes one slot of its own before its body's parts; an SSE body's parts
// are its whole events, and a body's end reaches the page with its last
// part, in order, never a slot later (where the page could have sent
// again meanwhile). Without the pacing
// the lab finds no timer of the page's, sleeps to the deadline at once and
// reads a stream still arriving (or an empty one).
func TestPageClockPacesStreams(t *testing.T) {
	ctx := context.Background()
	iv := browser.PageClockStreamInterval
	want := []string{"1", "1 2", "1 2 3", "1 2 3 4", "1 2 3 4 5"}
	for _, tc := range []struct {
		name, transport, end string
		lead                 int  // slots before the first part (a fetch's response)
		withLast             bool // the end comes with the last part
	}{
		{"fetch body read as a stream", "fetch", "done", 1, true},
		{"fetch of an SSE body, whole events", "ssefetch", "done", 1, false}, // its end event is a part
		{"XMLHttpRequest progress", "xhr", "done 4", 0, false},
		{"EventSource messages and a named event", "sse", "done", 0, false},
		{"WebSocket messages and the close", "ws", "done", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, lab, read := streamLab(t, "t="+tc.transport)
			if _, err := p.EvalForTest(ctx, "start()"); err != nil {
				t.Fatal(err)
			}
			if got := read(); got != "idle" {
				t.Fatalf("before the lab moved the page shows %q, want idle (nothing released yet)", got)
			}
			start := lab.Now()
			var states []string
			for range tc.lead {
				states = append(states, "idle")
			}
			states = append(append(states, want...), "1 2 3 4 5 "+tc.end)
			if tc.withLast {
				states = append(states[:len(states)-2], states[len(states)-1])
			}
			for i, w := range states {
				if err := p.Sleep(ctx, 10*time.Second); err != nil {
					t.Fatalf("slot %d: %v", i+1, err)
				}
				if got, at := read(), lab.Now().Sub(start); got != w || at != time.Duration(i+1)*iv {
					t.Fatalf("after sleep %d the page shows %q at %v of lab time, want %q at %v", i+1, got, at, w, time.Duration(i+1)*iv)
				}
			}
			if err := p.Sleep(ctx, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			if end := time.Duration(len(states))*iv + 10*time.Second; lab.Now().Sub(start) != end {
				t.Fatalf("after the end the lab slept to %v, want the deadline %v (no slot left)", lab.Now().Sub(start), end)
			}
		})
	}
}

// TestPageClockStopsAFetchAtOnce: an abort (the page's Stop) reaches the
// page at the lab instant of the abort, not after the parts still held,
// for a fetch body and for an XMLHttpRequest.
func TestPageClockStopsAFetchAtOnce(t *testing.T) {
	for _, transport := range []string{"fetch", "xhr"} {
		t.Run(transport, func(t *testing.T) {
			ctx := context.Background()
			p, lab, read := streamLab(t, "t="+transport)
			if _, err := p.EvalForTest(ctx, "start()"); err != nil {
				t.Fatal(err)
			}
			slots := 2
			if transport == "fetch" {
				slots++ // the response's own slot
			}
			for range slots {
				if err := p.Sleep(ctx, 10*time.Second); err != nil {
					t.Fatal(err)
				}
			}
			if got := read(); got != "1 2" {
				t.Fatalf("page shows %q, want two parts", got)
			}
			at := lab.Now()
			if _, err := p.EvalForTest(ctx, "stop()"); err != nil {
				t.Fatal(err)
			}
			c, err := p.Capture(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(c.Frames[0].HTML, ">stopped<") || !lab.Now().Equal(at) {
				t.Fatalf("after stop() at %v the lab is at %v and the page shows %s", at, lab.Now(), c.Frames[0].HTML)
			}
			if err := p.Sleep(ctx, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			if got := read(); got != "1 2" {
				t.Fatalf("after the abort the page shows %q, want still two parts", got)
			}
		})
	}
}

// TestPageClockLetsAnOpenSocketGoQuiet: a WebSocket that stays open after
// a message holds the lab for PageClockStreamIdle of wall time at most,
// and then the lab sleeps on; the page names the socket as gone quiet
// (what a wait that ends without its answer says), and, once a message
// comes after that, as late. The late message is paced from the instant
// the page noticed it.
func TestPageClockLetsAnOpenSocketGoQuiet(t *testing.T) {
	ctx := context.Background()
	iv := browser.PageClockStreamInterval
	p, lab, read := streamLab(t, "t=ws&keep=1")
	if _, err := p.EvalForTest(ctx, "start()"); err != nil {
		t.Fatal(err)
	}
	start := lab.Now()
	for range 3 {
		if err := p.Sleep(ctx, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(); got != "1 2 3" {
		t.Fatalf("page shows %q, want three messages", got)
	}
	if n := p.StreamNotes(); len(n) != 0 {
		t.Fatalf("notes while the socket delivers: %q", n)
	}
	wall := time.Now()
	if err := p.Sleep(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if at := lab.Now().Sub(start); at != 4*iv {
		t.Fatalf("the lab woke at %v, want the socket's next slot", at)
	}
	if err := p.Sleep(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	took := time.Since(wall)
	if at := lab.Now().Sub(start); at != 4*iv+10*time.Second {
		t.Fatalf("the lab is at %v, want the deadline after the socket went quiet", at)
	}
	// held for its idle bound at least (a loaded machine only holds it
	// longer); that it then let go is the note below, not a stopwatch
	if took < browser.PageClockStreamIdle {
		t.Fatalf("the quiet socket held the lab %v of wall time, want at least %v", took, browser.PageClockStreamIdle)
	}
	if n := strings.Join(p.StreamNotes(), "; "); !regexp.MustCompile(`^WebSocket ws://\S+/ws\?t=ws&keep=1 went quiet after 3 message\(s\): none for 2000 ms of wall time$`).MatchString(n) {
		t.Fatalf("notes after the socket went quiet: %q", n)
	}
	// the late message comes from the server in wall time, through
	// Chromium: poll for its note, bounded against a hang only
	var late string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got := read(); got != "1 2 3" {
			t.Fatalf("a late message reached the page unpaced: %q", got)
		}
		if late = strings.Join(p.StreamNotes(), "; "); strings.Contains(late, "a message came") {
			break
		}
	}
	if !regexp.MustCompile(`^WebSocket ws://\S+: a message came \d+ ms of wall time after it went quiet \(after 3 message\(s\)\); the lab had moved on$`).MatchString(late) {
		t.Fatalf("notes after the late message: %q", late)
	}
	at := lab.Now()
	if err := p.Sleep(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got, d := read(), lab.Now().Sub(at); got != "1 2 3 4" || d != iv {
		t.Fatalf("the late message reached the page %v after it was noticed, showing %q; want %v and four", d, got, iv)
	}
}

// TestPageClockNamesAStreamInAFrame: a frame keeps wall time, so a
// WebSocket or a body read as a stream in it fails the next read, naming
// it.
func TestPageClockNamesAStreamInAFrame(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, frame, want string }{
		{"a WebSocket", `new WebSocket(location.origin.replace(/^http/, "ws") + "/ws")`, "WebSocket ws://"},
		{"a fetch body", `fetch("/ndjson").then(r => r.body.getReader().read())`, "the body of fetch http://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := streamServer(t)
			mux := http.NewServeMux()
			mux.HandleFunc("/frame", func(w http.ResponseWriter, r *http.Request) {
				_, _ = fmt.Fprintf(w, "<!doctype html><script>%s</script>", strings.ReplaceAll(tc.frame, `location.origin`, `"`+srv.URL+`"`))
			})
			mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
				_, _ = fmt.Fprint(w, `<!doctype html><p>top</p><iframe src="/frame"></iframe>`)
			})
			top := httptest.NewServer(mux)
			t.Cleanup(top.Close)
			p := newPage(t)
			lab := clock.NewLab(clock.Epoch)
			if err := p.InstallPageClock(ctx, lab); err != nil {
				t.Fatal(err)
			}
			if err := p.Navigate(ctx, top.URL+"/"); err != nil && !errors.Is(err, browser.ErrStreamUnpaced) {
				t.Fatal(err)
			}
			// the frame's script runs in Chromium after the top page
			// loaded: poll, bounded against a hang only
			var err error
			for start := time.Now(); time.Since(start) < 2*time.Minute; time.Sleep(20 * time.Millisecond) {
				if _, err = p.Capture(ctx); err != nil {
					break
				}
			}
			if !errors.Is(err, browser.ErrStreamUnpaced) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "in the frame "+top.URL+"/frame") {
				t.Fatalf("read: %v, want %v naming %q in the frame", err, browser.ErrStreamUnpaced, tc.want)
			}
		})
	}
}

// TestPageClockNamesABodyThatStalls: a body whose next part does not come
// holds the read for the settle's bound and then fails it, naming the
// request and the part; the part that came is held until the next one or
// the end (which comes with the last part), and is named too.
func TestPageClockNamesABodyThatStalls(t *testing.T) {
	ctx := context.Background()
	browser.SetPageClockSettleForTest(t, 1500*time.Millisecond)
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(streamPage))
	})
	mux.HandleFunc("/ndjson", func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprint(w, "{\"n\":\"1\"}\n")
		w.(http.Flusher).Flush()
		select { // the second part never comes while the test reads
		case <-release:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	p := newPage(t)
	lab := clock.NewLab(clock.Epoch)
	if err := p.InstallPageClock(ctx, lab); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL+"/?t=fetch"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.EvalForTest(ctx, "start()"); err != nil {
		t.Fatal(err)
	}
	if err := p.Sleep(ctx, 10*time.Second); err != nil { // the response
		t.Fatal(err)
	}
	err := p.Sleep(ctx, 10*time.Second)
	want := "fetch GET " + srv.URL + "/ndjson (part 2 of its body or its end not arrived; part 1 is held until then)"
	if !errors.Is(err, browser.ErrPageClock) || !strings.Contains(err.Error(), want) {
		t.Fatalf("sleep over a stalled body: %v, want %v naming %q", err, browser.ErrPageClock, want)
	}
	if at := lab.Now().Sub(clock.Epoch); at != 2*browser.PageClockStreamInterval {
		t.Fatalf("the lab moved to %v past the stalled part, want it held at its slot %v", at, 2*browser.PageClockStreamInterval)
	}
}

// TestPageClockLetsARequestThatNeverAnswersGoQuiet: a fetch's response
// is due one interval of lab time after the request; a read before that
// completes at once (the page shows its loading state), a slot whose
// response has not arrived holds the lab for PageClockStreamFirst of wall
// time and then lets it move on, naming the request (what a wait that
// ends without its answer says); a response that comes after all reaches
// the page at the next slot.
func TestPageClockLetsARequestThatNeverAnswersGoQuiet(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprint(w, `<!doctype html><p id="out">idle</p><script>window.go = () => { fetch("/never?x=1").then(r => r.text()).then(t => { document.getElementById("out").textContent = t; }); };</script>`)
	})
	mux.HandleFunc("/never", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
			_, _ = fmt.Fprint(w, "late")
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p := newPage(t)
	lab := clock.NewLab(clock.Epoch)
	if err := p.InstallPageClock(ctx, lab); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(`id="out"[^>]*>([^<]*)<`)
	read := func() string {
		t.Helper()
		c, err := p.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := out.FindStringSubmatch(c.Frames[0].HTML)
		if m == nil {
			t.Fatalf("no #out in %s", c.Frames[0].HTML)
		}
		return m[1]
	}
	if _, err := p.EvalForTest(ctx, "go()"); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "idle" {
		t.Fatalf("before its slot the page shows %q, want idle", got)
	}
	wall := time.Now()
	if err := p.Sleep(ctx, 10*time.Second); err != nil {
		t.Fatalf("sleep over a request that does not answer: %v", err)
	}
	if held := time.Since(wall); held < browser.PageClockStreamFirst {
		t.Fatalf("the slot held the lab %v of wall time, want at least %v", held, browser.PageClockStreamFirst)
	}
	iv := browser.PageClockStreamInterval
	if at := lab.Now().Sub(clock.Epoch); at != iv {
		t.Fatalf("the lab is at %v, want the response's slot %v", at, iv)
	}
	wall = time.Now()
	if err := p.Sleep(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if at := lab.Now().Sub(clock.Epoch); at != iv+10*time.Second {
		t.Fatalf("the lab is at %v, want the sleep's end %v (the request went quiet: no slot)", at, iv+10*time.Second)
	}
	if held := time.Since(wall); held >= browser.PageClockStreamFirst {
		t.Fatalf("a quiet request held the lab again (%v of wall time)", held)
	}
	want := "fetch GET " + srv.URL + "/never?x=1 went quiet: no response for 5000 ms of wall time"
	if notes := strings.Join(p.StreamNotes(), "; "); !strings.Contains(notes, want) {
		t.Fatalf("stream notes %q, want %q", notes, want)
	}
	if got := read(); got != "idle" {
		t.Fatalf("the page shows %q with no response, want idle", got)
	}
	close(release)
	// the response arrives in wall time, through Chromium: poll for the
	// page clock's note that it came, bounded against a hang only
	came := "fetch GET " + srv.URL + "/never?x=1: its response came "
	for start := time.Now(); !strings.Contains(strings.Join(p.StreamNotes(), "; "), came); time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("no note %q in 2 minutes (a hang guard): %q", came, p.StreamNotes())
		}
		if got := read(); got != "idle" {
			t.Fatalf("the late response reached the page unpaced: %q", got)
		}
	}
	at := lab.Now()
	if err := p.Sleep(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got, d := read(), lab.Now().Sub(at); got != "late" || d != iv {
		t.Fatalf("after the late response the page shows %q %v later, want \"late\" at the next slot %v", got, d, iv)
	}
}
