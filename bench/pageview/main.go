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
// per JSON-RPC message. For each page size it calls navigate, snapshot
// (view page), fill of the composer by the snapshot's ref, and click of
// the newest turn's Copy button by a ref the fill result gave, and
// reports for each:
//
//   - B: the result's JSON as received (its text block; the structured
//     content for a tool that sends one);
//   - msg B: the whole JSON-RPC response line, _meta included — what an
//     agent's host reads off the pipe;
//
// with the view's elements of the page's candidates, the longest ref seen
// and whether any of these results carried structured content.
//
// It exits 1 when any of these response messages is over --budget bytes,
// so it can gate a change. --dump DIR writes each message to a file.
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
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine/mcp"
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

	keep       bool   // keep whole messages (--dump)
	cur        []byte // the current message, when keeping
	lastResult []byte // the last whole response message, when keeping
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
		if w.keep {
			w.cur = append(w.cur, chunk...)
		}
		if i < 0 {
			break
		}
		result := bytes.Contains(w.last, []byte(`"result"`)) || !bytes.Contains(w.last, []byte(`"method"`))
		w.lines = append(w.lines, line{n: w.partial + 1, result: result})
		if w.keep && result {
			w.lastResult = append(w.lastResult[:0], w.cur...)
		}
		w.partial, w.last, w.cur = 0, w.last[:0], w.cur[:0]
		b = b[i+1:]
	}
	return n, err
}

func (w *wireCounter) Close() error { return w.r.Close() }

// lastMessage is the last response message read, when kept.
func (w *wireCounter) lastMessage() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.lastResult)
}

// lastLen is the length of the last response message read.
func (w *wireCounter) lastLen() int {
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
	turns      int
	view       call // snapshot (view page)
	navigate   call
	fill       call // fill of the composer by its ref
	click      call // click of the newest turn's Copy button by its ref
	elements   int  // of the page view
	candidates int  // the page's, counts.elements.total
	fillEls    int
	longestRef int
}

// call is what one tool call put on the wire: its result's JSON (the text
// block, or the structured content when there is one) and the whole
// JSON-RPC response message.
type call struct {
	json, message int
	structured    bool
}

func main() {
	replaylab := flag.String("replaylab", "replaylab", "the replaylab binary")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the Chromium replaylab drives (REPLAYLAB_CHROMIUM)")
	turnsFlag := flag.String("turns", "20,200,2000,20000", "page sizes, in turns")
	budget := flag.Int("budget", 8192, "bytes the whole response message of a page view or an action result may take; over it the command exits 1")
	timeout := flag.Duration("timeout", 3*time.Minute, "per call")
	dump := flag.String("dump", "", "a directory to write each measured response message to (TURNS-TOOL.json)")
	flag.Parse()
	rows, err := run(*replaylab, *chromium, *turnsFlag, *dump, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pageview:", err)
		os.Exit(1)
	}
	fmt.Printf("%-6s %7s %9s %11s %6s %8s %6s %8s %6s %8s %5s %s\n", "turns", "view B", "view msg B", "elements", "nav B", "nav msg B", "fill B", "fill msg B", "click B", "click msg B", "ref", "structured")
	over := false
	for _, r := range rows {
		structured := "no"
		for _, c := range []call{r.view, r.navigate, r.fill, r.click} {
			if c.structured {
				structured = "yes"
			}
			if c.message > *budget {
				over = true
			}
		}
		fmt.Printf("%-6d %7d %9d %5d/%-5d %6d %8d %6d %8d %6d %8d %5d %s\n", r.turns, r.view.json, r.view.message, r.elements, r.candidates,
			r.navigate.json, r.navigate.message, r.fill.json, r.fill.message, r.click.json, r.click.message, r.longestRef, structured)
	}
	if over {
		fmt.Fprintf(os.Stderr, "pageview: a response message is over %d bytes\n", *budget)
		os.Exit(1)
	}
}

func run(bin, chromium, turnsFlag, dump string, timeout time.Duration) ([]row, error) {
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
	wire := &wireCounter{r: stdout, keep: dump != ""}
	save := func(turns int, tool string) error {
		if dump == "" {
			return nil
		}
		return os.WriteFile(filepath.Join(dump, fmt.Sprintf("%d-%s.json", turns, tool)), append(wire.lastMessage(), '\n'), 0o644)
	}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "pageview", Version: "dev"}, nil).
		Connect(ctx, &mcpsdk.IOTransport{Reader: wire, Writer: stdin}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()

	cur := 0 // the page size being measured
	callTool := func(name string, args map[string]any, out any) (call, error) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res, err := cs.CallTool(cctx, &mcpsdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return call{}, fmt.Errorf("%s: %w", name, err)
		}
		if res.IsError {
			return call{}, fmt.Errorf("%s: %s", name, mcp.TextOf(res))
		}
		data, err := mcp.ResultJSON(res)
		if err != nil {
			return call{}, fmt.Errorf("%s: %w", name, err)
		}
		if out != nil {
			if err := json.Unmarshal(data, out); err != nil {
				return call{}, fmt.Errorf("%s: %w", name, err)
			}
		}
		if err := save(cur, name); err != nil {
			return call{}, err
		}
		return call{json: len(data), message: wire.lastLen(), structured: res.StructuredContent != nil}, nil
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
		cur = n
		var begun struct{ Task string }
		if _, err := callTool("begin", map[string]any{"goal": "page view bytes"}, &begun); err != nil {
			return nil, err
		}
		task := begun.Task
		var nav acted
		if r.navigate, err = callTool("navigate", map[string]any{"task": task, "url": base + "/chat/" + strconv.Itoa(n)}, &nav); err != nil {
			return nil, err
		}
		var view struct {
			Elements []element
			Counts   struct{ Elements struct{ Total int } }
		}
		if r.view, err = callTool("snapshot", map[string]any{"task": task}, &view); err != nil {
			return nil, err
		}
		r.elements, r.candidates = len(view.Elements), view.Counts.Elements.Total
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
		if r.fill, err = callTool("fill", map[string]any{"task": task, "target": map[string]any{"ref": composer}, "text": "How long is the view?"}, &filled); err != nil {
			return nil, err
		}
		r.fillEls = len(filled.Elements)
		// then a click by a ref the fill result gave: the newest turn's
		// Copy button, expecting what is already true (the text stays)
		copyRef := ""
		for _, e := range filled.Elements {
			if e.Role == "button" && e.Name == "Copy" {
				copyRef = e.Ref
			}
		}
		if copyRef == "" {
			return nil, fmt.Errorf("turns=%d: the fill result has no button \"Copy\"", n)
		}
		var clicked acted
		if r.click, err = callTool("click", map[string]any{"task": task, "target": map[string]any{"ref": copyRef}, "expect": map[string]any{"textVisible": "Copy"}}, &clicked); err != nil {
			return nil, err
		}
		for _, list := range [][]element{nav.Elements, view.Elements, filled.Elements, clicked.Elements} {
			for _, e := range list {
				r.longestRef = max(r.longestRef, len(e.Ref))
			}
		}
		if _, err := callTool("finish", map[string]any{"task": task}, nil); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}
