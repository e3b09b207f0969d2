package harness

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mattn/go-isatty"
)

// progress shows which scenario runs and how many are left: one line
// rewritten in place on a terminal, a plain line per scenario otherwise
// (CI logs).
type progress struct {
	w   io.Writer
	tty bool

	mu      sync.Mutex
	total   int
	started int
	shown   bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok && os.Getenv("TERM") != "dumb" {
		p.tty = isatty.IsTerminal(f.Fd())
	}
	return p
}

// plan adds n scenario runs to the total (a pass, a retry, a repetition).
func (p *progress) plan(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.total += n
	p.mu.Unlock()
}

// start shows that the scenario id (name) is running.
func (p *progress) start(id, name string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started++
	left := p.total - p.started
	if left < 0 {
		left = 0
	}
	line := fmt.Sprintf("[%d/%d] %s %s (%d left)", p.started, p.total, id, name, left)
	if p.tty {
		if r := []rune(line); len(r) > 110 {
			line = string(r[:109]) + "…"
		}
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		p.shown = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// done clears the terminal line.
func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
