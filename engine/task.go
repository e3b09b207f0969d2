package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/trace"
)

// Task is one goal; its pages, baselines and outcomes belong to it alone.
//
// Task's own methods (Page, Blocked, Signal, Finish) are safe for
// concurrent use. Recheck is not safe to call while the blocked page is
// in use: it reads that page, and a Page is driven by one goroutine at a
// time.
type Task struct {
	ID   string
	Goal string

	e        *Engine
	mu       sync.Mutex
	pages    map[string]*Page
	blocked  *blocked
	finished bool
	mon      *monitor.Monitor
	signal   *monitor.Signal
}

type blocked struct {
	page    *Page
	op      string
	expect  Expect
	recheck bool // the one allowed re-check was used
}

// Begin starts a task. Task ids count up per engine ("t1", "t2", …), so
// traces are stable.
func (e *Engine) Begin(ctx context.Context, goal string) *Task {
	e.mu.Lock()
	e.tasks++
	id := "t" + strconv.Itoa(e.tasks)
	e.mu.Unlock()
	e.emit("task.begin", trace.A("task", id), trace.A("goal", goal))
	return &Task{ID: id, Goal: goal, e: e, pages: map[string]*Page{}, mon: monitor.New(e.cfg.Monitor)}
}

// Page names a tab of the task driven by d. Creating the page opens
// nothing; the first navigate or observe uses the driver.
func (t *Task) Page(name string, d Driver) *Page {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, ok := t.pages[name]; ok {
		return p
	}
	p := &Page{Name: name, task: t, d: d}
	t.pages[name] = p
	return p
}

// Release forgets a finished task's pages and everything they read — the
// parses, observations, groups and baselines, and the drivers — so a
// server that keeps its ended tasks (to answer TASK_FINISHED, to count
// their calls) holds only their small state: on a 2,000-turn chat a
// page's reads are tens of megabytes, and a long-running server that kept
// them grew by that much per task, with every collection slower than the
// last. The caller closes the drivers first. Release refuses a task that
// has not finished or been abandoned; Page on a released task returns a
// new page whose every mutation is refused (TASK_FINISHED).
func (t *Task) Release() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.finished {
		return &Error{Code: InvalidArgument, Op: "release", Detail: "task " + t.ID + " has not finished"}
	}
	clear(t.pages)
	t.blocked = nil
	return nil
}

// Blocked reports whether the task is blocked by an unknown outcome.
func (t *Task) Blocked() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.blocked != nil
}

// Finish ends the task; a blocked task cannot finish (ACT-3).
func (t *Task) Finish(ctx context.Context) error {
	if err := t.mutation("finish"); err != nil {
		return err
	}
	t.mu.Lock()
	t.finished = true
	t.mu.Unlock()
	t.e.emit("task.finish", trace.A("task", t.ID))
	return nil
}

// Abandon ends the task without success, blocked or not, with the
// reason the agent gives (AGT-4): a blocked task whose one re-check did
// not find the outcome can still be ended. Nothing is sent; an
// abandoned task is finished.
func (t *Task) Abandon(ctx context.Context, reason string) error {
	t.mu.Lock()
	if t.finished {
		t.mu.Unlock()
		return &Error{Code: TaskFinished, Op: "abandon", Detail: "task " + t.ID + " has finished"}
	}
	if strings.TrimSpace(reason) == "" {
		t.mu.Unlock()
		return &Error{Code: InvalidArgument, Op: "abandon", Detail: "say why the task is abandoned"}
	}
	blocked := t.blocked != nil
	t.finished = true
	t.mu.Unlock()
	t.e.emit("task.abandon", trace.A("task", t.ID), trace.A("blocked", blocked), trace.A("reason", reason))
	return nil
}

// mutation refuses mutations of a blocked or finished task.
func (t *Task) mutation(op string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.finished {
		return &Error{Code: TaskFinished, Op: op, Detail: "task " + t.ID + " has finished"}
	}
	if t.blocked != nil {
		t.e.emit("refused", trace.A("op", op), trace.A("code", TaskBlocked))
		return &Error{Code: TaskBlocked, Op: op, Detail: fmt.Sprintf("the outcome of %s is unknown; re-check it once (recheck) or give the task up (abandon)", t.blocked.op)}
	}
	return nil
}

// Recheck re-reads the original expectation of a blocked task once (a
// read, never a resend). If it now holds, the task records a late success
// and unblocks (ACT-4).
func (t *Task) Recheck(ctx context.Context) (bool, error) {
	t.mu.Lock()
	b := t.blocked
	if b == nil {
		t.mu.Unlock()
		return false, &Error{Code: InvalidArgument, Op: "recheck", Detail: "the task is not blocked"}
	}
	if b.recheck {
		t.mu.Unlock()
		return false, &Error{Code: TaskBlocked, Op: "recheck", Detail: "the one re-check was used; give the task up (abandon)"}
	}
	b.recheck = true
	t.mu.Unlock()
	b.page.refresh() // the one re-check reads the page afresh
	ok, evidence, err := b.page.check(ctx, b.expect)
	if err != nil {
		return false, err
	}
	if ok {
		t.mu.Lock()
		t.blocked = nil
		t.mu.Unlock()
		b.page.emit("outcome", trace.A("op", b.op), trace.A("status", "late_success"), trace.A("evidence", evidence))
		return true, nil
	}
	b.page.emit("outcome", trace.A("op", b.op), trace.A("status", "still_unknown"), trace.A("evidence", evidence))
	return false, nil
}
