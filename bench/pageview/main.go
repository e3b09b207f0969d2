// Command pageview measures, from outside the process, the bytes an agent
// receives from `replaylab mcp` for the page view and for the action
// results that carry the page (AGT-2), on the seeded chat pages
// (internal/chatpage) opened in Chromium. It is not part of go test: it
// starts the replaylab binary and needs a Chromium.
//
//	go build -o /tmp/replaylab ./cmd/replaylab
//	go run ./bench/pageview --replaylab /tmp/replaylab --turns 20,200,2000,20000
//
// The client is the official Go SDK's, talking to the process over its
// stdin and stdout; every byte read from the process's stdout is counted
// per JSON-RPC message. For each page size it reports:
//
//   - view: the structured content of `snapshot` (view page), as received;
//   - message: the whole JSON-RPC response line of that call (the
//     structured content, the same JSON as the text block the protocol
//     asks for, and _meta);
//   - navigate, fill: the structured content of the navigate result and of
//     a fill of the composer by the ref the navigate result gave (its
//     neighbours are the newest turn's controls), with the longest ref seen.
//
// It exits 1 when any view or action result is over --budget bytes, so it
// can gate a change.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/internal/chatpage"
)

// wireCounter splits what the process writes into newline-delimited
// messages and keeps each one's length.
type wireCounter struct {
	r io.ReadCloser

	mu      sync.Mutex
	partial int
	last    []byte // the start of the current message, to tell results apart
	lines   []line
}

type line struct {
	n      int
	result bool
}

func (w *wireCounter) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	for b := p[:n]; len(b) > 0; {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if len(w.last) < 64 {
			w.last = append(w.last, chunk[:min(len(chunk), 64-len(w.last))]...)
		}
		w.partial += len(chunk)
		if i < 0 {
			break
		}
		w.lines = append(w.lines, line{n: w.partial + 1, result: bytes.Contains(w.last, []byte(`"result"`)) || !bytes.Contains(w.last, []byte(`"method"`))})
		w.partial, w.last = 0, w.last[:0]
		b = b[i+1:]
	}
	return n, err
}

func (w *wireCounter) Close() error { return w.r.Close() }

// lastResult is the length of the last response message read.
func (w *wireCounter) lastResult() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.lines) - 1; i >= 0; i-- {
		if w.lines[i].result {
			return w.lines[i].n
		}
	}
	return 0
}

type row struct {
	turns                        int
	view, message, text          int
	navigate, fill, longestRef   int
	viewElements, fillElements   int
	viewTotal                    int
	navigateMessage, fillMessage int
}

func main() {
	replaylab := flag.String("replaylab", "replaylab", "the replaylab binary")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the Chromium replaylab drives (REPLAYLAB_CHROMIUM)")
	turnsFlag := flag.String("turns", "20,200,2000,20000", "page sizes, in turns")
	budget := flag.Int("budget", 8192, "bytes a page view or an action result may take; over it the command exits 1")
	timeout := flag.Duration("timeout", 3*time.Minute, "per call")
	flag.Parse()
	rows, err := run(*replaylab, *chromium, *turnsFlag, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pageview:", err)
		os.Exit(1)
	}
	fmt.Printf("%-6s %8s %8s %9s %9s %8s %8s %8s %9s %9s\n", "turns", "view B", "text B", "message B", "elements", "nav B", "fill B", "fill el", "nav msg B", "longest ref")
	over := false
	for _, r := range rows {
		fmt.Printf("%-6d %8d %8d %9d %4d/%-4d %8d %8d %8d %9d %9d\n", r.turns, r.view, r.text, r.message, r.viewElements, r.viewTotal, r.navigate, r.fill, r.fillElements, r.navigateMessage, r.longestRef)
		if r.view > *budget || r.navigate > *budget || r.fill > *budget {
			over = true
		}
	}
	if over {
		fmt.Fprintf(os.Stderr, "pageview: a page view or action result is over %d bytes\n", *budget)
		os.Exit(1)
	}
}

func run(bin, chromium, turnsFlag string, timeout time.Duration) ([]row, error) {
	var sizes []int
	for _, f := range strings.Split(turnsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--turns: %q is not a number of turns", f)
		}
		sizes = append(sizes, n)
	}
	pages := map[string]string{}
	for _, n := range sizes {
		pages["/chat/"+strconv.Itoa(n)] = chatpage.Render(chatpage.Options{Turns: n, Seed: 1})
	}
	base, closeSrv, err := chatpage.Serve(pages)
	if err != nil {
		return nil, err
	}
	defer closeSrv()

	ctx := context.Background()
	cmd := exec.Command(bin, "mcp", "--adapter", "auto")
	cmd.Env = append(os.Environ(), "REPLAYLAB_CHROMIUM="+chromium)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	wire := &wireCounter{r: stdout}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "pageview", Version: "dev"}, nil).
		Connect(ctx, &mcpsdk.IOTransport{Reader: wire, Writer: stdin}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()

	call := func(name string, args map[string]any, out any) (structured, text, message int, err error) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res, err := cs.CallTool(cctx, &mcpsdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return 0, 0, 0, fmt.Errorf("%s: %w", name, err)
		}
		for _, c := range res.Content {
			if t, ok := c.(*mcpsdk.TextContent); ok {
				text += len(t.Text)
			}
		}
		if res.IsError {
			return 0, 0, 0, fmt.Errorf("%s: %s", name, textOf(res))
		}
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return 0, 0, 0, err
		}
		if out != nil {
			if err := json.Unmarshal(data, out); err != nil {
				return 0, 0, 0, fmt.Errorf("%s: %w", name, err)
			}
		}
		return len(data), text, wire.lastResult(), nil
	}

	type element struct {
		Ref, Role, Name string
	}
	type acted struct {
		Elements []element
	}
	var rows []row
	for _, n := range sizes {
		r := row{turns: n}
		var begun struct{ Task string }
		if _, _, _, err := call("begin", map[string]any{"goal": "page view bytes"}, &begun); err != nil {
			return nil, err
		}
		task := begun.Task
		var nav acted
		if r.navigate, _, r.navigateMessage, err = call("navigate", map[string]any{"task": task, "url": base + "/chat/" + strconv.Itoa(n)}, &nav); err != nil {
			return nil, err
		}
		var view struct {
			Elements []element
			Counts   struct{ Elements struct{ Total int } }
		}
		if r.view, r.text, r.message, err = call("snapshot", map[string]any{"task": task}, &view); err != nil {
			return nil, err
		}
		r.viewElements, r.viewTotal = len(view.Elements), view.Counts.Elements.Total
		// the navigate result's refs are stale after the snapshot: take
		// the composer's ref from the snapshot, as an agent would
		composer := ""
		for _, e := range view.Elements {
			if e.Role == "textbox" && e.Name == "Message" {
				composer = e.Ref
			}
		}
		if composer == "" {
			return nil, fmt.Errorf("turns=%d: the page view has no textbox \"Message\"", n)
		}
		var filled acted
		if r.fill, _, r.fillMessage, err = call("fill", map[string]any{"task": task, "target": map[string]any{"ref": composer}, "text": "How long is the view?"}, &filled); err != nil {
			return nil, err
		}
		r.fillElements = len(filled.Elements)
		for _, list := range [][]element{nav.Elements, view.Elements, filled.Elements} {
			for _, e := range list {
				r.longestRef = max(r.longestRef, len(e.Ref))
			}
		}
		if _, _, _, err := call("finish", map[string]any{"task": task}, nil); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func textOf(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if b.Len() == 0 {
		return "a tool error with no text"
	}
	return b.String()
}
