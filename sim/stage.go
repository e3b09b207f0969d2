package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The stage is how the sim's pages learn of scripted transitions (CLK-1).
//
// No page script runs a timer. The sim schedules every transition on its
// clock (Options.Clock): when the clock reaches it, the sim publishes a
// versioned DOM operation (append a turn, replace a turn, attach media
// sources, set an element's text) for a page. Every page that can change
// holds an EventSource on /sim/stage/events and applies the operations in
// version order; once an operation is rendered (and media it attached has
// loaded or failed) the page POSTs /sim/stage/ack with that version. A page
// acknowledges its first load the same way, after its media are ready.
//
// Actions that start transitions (the chat's Send, a Save button, "Build
// report") reach the sim with a synchronous request from the click
// handler, so the sim has scheduled what follows before the browser
// reports the click done.
//
// The Server is a clock.Gate: Settle returns once no such request is being
// handled and every page still open has acknowledged the last version
// published for it. The lab clock settles before it moves time and the
// browser driver before every capture, so the engine reads a page only
// after it rendered every transition the clock has reached.
type stage struct {
	mu      sync.Mutex
	version int
	ops     []stageOp // ops[i].V == i+1
	viewers map[int]*viewer
	next    int
	busy    int // handlers of actions still running
	// moving counts, per page key, navigations the sim told a page to
	// make whose new page has not loaded yet (a "navigate" operation).
	moving  map[string]int
	changed chan struct{} // closed and replaced on every change
	done    chan struct{} // closed by Close: event streams end
	once    sync.Once
}

// Bounds of the stage.
const (
	// StageOpsMax bounds the operations one server publishes.
	StageOpsMax = 100_000
	// ViewersMax bounds the pages registered at once.
	ViewersMax = 1_000
)

// stageOp is one published transition. The page applies it by Op:
// "append" (HTML at the end of #thread), "replace" (#thread's child Index
// becomes HTML), "media" (the data-src of media inside #thread's child
// Index become their src), "text" (the element Sel gets Text),
// "navigate" (the page itself goes to URL, as a site's script does; the
// stage is not settled until the page there has loaded).
type stageOp struct {
	V     int    `json:"v"`
	Page  string `json:"-"`
	Op    string `json:"op"`
	Index int    `json:"index,omitempty"`
	Sel   string `json:"sel,omitempty"`
	HTML  string `json:"html,omitempty"`
	Text  string `json:"text,omitempty"`
	URL   string `json:"url,omitempty"`
}

// viewer is one loaded page that can change.
type viewer struct {
	page  string
	need  int // the last version published for this page (or its load)
	acked int // -1 until the page acknowledged its load
	conns int // event streams open
}

func newStage() *stage {
	return &stage{viewers: map[int]*viewer{}, moving: map[string]int{}, changed: make(chan struct{}), done: make(chan struct{})}
}

// close ends every event stream, so the server's Close does not wait on
// pages that are still open.
func (st *stage) close() { st.once.Do(func() { close(st.done) }) }

// signal wakes every waiter; the caller holds mu.
func (st *stage) signal() {
	close(st.changed)
	st.changed = make(chan struct{})
}

// view registers a page being rendered and returns its viewer id and the
// version it shows.
func (st *stage) view(page string) (int, int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.viewers) >= ViewersMax {
		// the oldest viewer is a page long gone; forget it
		oldest := -1
		for id := range st.viewers {
			if oldest < 0 || id < oldest {
				oldest = id
			}
		}
		delete(st.viewers, oldest)
	}
	if st.moving[page] > 0 {
		st.moving[page]-- // the page a navigate operation sent arrived
	}
	st.next++
	st.viewers[st.next] = &viewer{page: page, need: st.version, acked: -1}
	st.signal()
	return st.next, st.version
}

// publish records an operation for page and wakes its event streams.
func (st *stage) publish(page string, op stageOp) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.ops) >= StageOpsMax {
		return
	}
	st.version++
	op.V, op.Page = st.version, page
	st.ops = append(st.ops, op)
	if op.Op == "navigate" {
		for _, v := range st.viewers {
			if v.page == page {
				st.moving[page]++ // each open page of that key goes
			}
		}
	}
	for _, v := range st.viewers {
		if v.page == page {
			v.need = st.version
		}
	}
	st.signal()
}

// begin and end bracket the handler of an action that may publish.
func (st *stage) begin() {
	st.mu.Lock()
	st.busy++
	st.mu.Unlock()
}

func (st *stage) end() {
	st.mu.Lock()
	st.busy--
	st.signal()
	st.mu.Unlock()
}

// Settle implements clock.Gate: it returns once no action is being handled,
// every open page acknowledged the last version published for it, and no
// simulated provider is running (each in flight waits for lab time).
func (s *Server) Settle(ctx context.Context) error {
	if s.lab != nil && s.lab.providers != nil {
		if err := s.lab.providers.settleRunning(ctx); err != nil {
			return err
		}
	}
	st := s.stage
	for {
		st.mu.Lock()
		waiting := ""
		if st.busy > 0 {
			waiting = fmt.Sprintf("%d action requests still being handled", st.busy)
		}
		for page, n := range st.moving {
			if waiting == "" && n > 0 {
				waiting = fmt.Sprintf("page /%s to load after the navigation it was sent on", page)
			}
		}
		for id, v := range st.viewers {
			if waiting == "" && v.acked < v.need {
				waiting = fmt.Sprintf("page /%s (viewer %d) to acknowledge version %d (it acknowledged %d)", v.page, id, v.need, v.acked)
			}
		}
		ch := st.changed
		st.mu.Unlock()
		if waiting == "" {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("sim: waiting for %s: %w", waiting, ctx.Err())
		}
	}
}

// stageEvents streams a viewer's operations after the version it showed.
func (s *Server) stageEvents(w http.ResponseWriter, r *http.Request) {
	st := s.stage
	q := r.URL.Query()
	id, err1 := strconv.Atoi(q.Get("viewer"))
	after, err2 := strconv.Atoi(q.Get("after"))
	if err1 != nil || err2 != nil {
		problem(w, http.StatusBadRequest, CodeBadRequest, "sim: /sim/stage/events needs ?viewer=N&after=V")
		return
	}
	if last, err := strconv.Atoi(r.Header.Get("Last-Event-ID")); err == nil && last > after {
		after = last // a reconnect resumes after what it got
	}
	st.mu.Lock()
	v, ok := st.viewers[id]
	if !ok {
		st.mu.Unlock()
		problem(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("sim: no viewer %d", id))
		return
	}
	v.conns++
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		if v.conns--; v.conns == 0 {
			delete(st.viewers, id) // the page is gone (unloaded or closed)
		}
		st.signal()
		st.mu.Unlock()
	}()
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // the stream lives as long as the page
	_ = rc.SetReadDeadline(time.Time{})  // (a GET: no body to wait for)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return
	}
	for {
		st.mu.Lock()
		var out []stageOp
		for _, op := range st.ops[min(after, len(st.ops)):] {
			if op.Page == v.page {
				out = append(out, op)
			}
		}
		if n := len(st.ops); n > after {
			after = n
		}
		ch := st.changed
		st.mu.Unlock()
		for _, op := range out {
			var data strings.Builder
			enc := json.NewEncoder(&data)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(op) // one line: JSON escapes newlines in strings
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n", op.V, data.String()); err != nil {
				return
			}
		}
		if len(out) > 0 {
			if err := rc.Flush(); err != nil {
				return
			}
		}
		select {
		case <-ch:
		case <-r.Context().Done():
			return
		case <-st.done:
			return
		}
	}
}

// stageAck records that a viewer rendered a version.
func (s *Server) stageAck(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Viewer  int `json:"viewer"`
		Version int `json:"version"`
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		problem(w, http.StatusBadRequest, CodeBadRequest, "sim: body must be JSON {\"viewer\": N, \"version\": V}: "+err.Error())
		return
	}
	st := s.stage
	st.mu.Lock()
	if v, ok := st.viewers[req.Viewer]; ok && req.Version > v.acked {
		v.acked = req.Version
		st.signal()
	}
	st.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// stageScript is the page half of the stage: it acknowledges the load once
// the page's media are ready, then applies each operation in order and
// acknowledges it. apply(op) is the page's own (optional) override for
// operations it handles itself; the generic ones are built in.
func stageScript(viewer, version int) string {
	return fmt.Sprintf(`<script>
(function(){
  const viewer = %d, shown = %d;
  const thread = () => document.getElementById('thread');
  function settled(el) {
    return new Promise(function(done){
      if (el.tagName === 'IMG') {
        if (el.complete) return done();
      } else if (el.readyState >= 3 || el.error) return done();
      el.addEventListener(el.tagName === 'IMG' ? 'load' : 'canplay', done, {once: true});
      el.addEventListener('error', done, {once: true});
    });
  }
  function mediaOf(root) { return Array.from(root.querySelectorAll('img[src],video[src],audio[src]'), settled); }
  function ack(v) {
    return fetch('/sim/stage/ack', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({viewer: viewer, version: v}), cache: 'no-store'});
  }
  function apply(op) {
    const t = thread();
    switch (op.op) {
    case 'append':
      t.insertAdjacentHTML('beforeend', op.html);
      return Promise.resolve();
    case 'replace': {
      const old = t.children[op.index];
      old.insertAdjacentHTML('afterend', op.html);
      old.remove();
      return Promise.resolve();
    }
    case 'media': {
      const turn = t.children[op.index];
      for (const m of turn.querySelectorAll('[data-src]')) { m.src = m.getAttribute('data-src'); m.removeAttribute('data-src'); }
      return Promise.all(mediaOf(turn));
    }
    case 'text':
      document.querySelector(op.sel).textContent = op.text;
      return Promise.resolve();
    case 'navigate':
      events.close();
      location.assign(op.url);
      return new Promise(function(){}); // the page is leaving: nothing after it
    }
    return Promise.resolve();
  }
  let chain = new Promise(function(done){
    if (document.readyState === 'complete') done(); else window.addEventListener('load', done, {once: true});
  }).then(() => Promise.all(mediaOf(document))).then(() => ack(shown));
  const events = new EventSource('/sim/stage/events?viewer=' + viewer + '&after=' + shown);
  events.onmessage = function(m) {
    const op = JSON.parse(m.data);
    chain = chain.then(() => apply(op)).then(() => ack(op.v));
  };
})();
</script>`, viewer, version)
}

// stagePage serves a static page that can change: the stage script is put
// before </body>.
func (s *Server) stagePage(key, html string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, v := s.stage.view(key)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(withStage(html, id, v)))
	}
}

func withStage(html string, viewer, version int) string {
	i := strings.LastIndex(html, "</body>")
	if i < 0 {
		return html + stageScript(viewer, version)
	}
	return html[:i] + stageScript(viewer, version) + html[i:]
}
