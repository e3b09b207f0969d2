// Command agenttasks runs the agent tasks of SPEC §15 with replaylab mcp
// and with Playwright MCP from one client (the official Go SDK's), on
// pages it serves itself on wall time, and reports per task and server
// the tool calls, the bytes of every tool result as the client receives
// it, the wall time and whether the finish was detected correctly. It is
// not part of go test: it needs Playwright MCP from npm and a Chromium.
//
//	go build -o /tmp/replaylab ./cmd/replaylab
//	(cd /tmp/pw && npm install @playwright/mcp@0.0.83)
//	go run ./bench/agenttasks --replaylab /tmp/replaylab \
//	    --playwright /tmp/pw/node_modules/.bin/playwright-mcp --runs 3
//
// The tasks:
//
//   - send: type a question into a chat, send it and read the complete
//     answer, which streams for about 3 s;
//   - pause: the same, but the answer pauses for 5 s halfway and the only
//     sign that it is still being written is aria-busy on its turn;
//   - lookalike: delete notes.txt from a table of three files, each row
//     with its own "Delete" button;
//   - last2000: read the last answer of a 2,000-turn chat in full.
//
// Each server is driven the way an agent would drive it with the tools it
// has. replaylab: begin, navigate, then the actions with refs from the
// previous action's result (send: fill → click expecting a new answer →
// waitAnswer; lookalike: click the "Delete" within "notes.txt"; last2000:
// snapshot → readAnswer of the last group). Playwright MCP: navigate, then
// browser_snapshot (its navigate and action results link their snapshots
// as files, so the refs come from a snapshot call), browser_type /
// browser_click with those refs;
// an answer is taken as finished by the stable-snapshot rule (wait 1 s,
// snapshot, until two snapshots in a row are the same), since its
// snapshot has no generating state. begin is counted; finish is not.
//
// "correct" means: send and pause — the text read when the server (or
// the rule) said the answer was finished is the whole answer; lookalike —
// the page's server received one delete, of notes.txt; last2000 — every
// text node of the last answer is in what was read.
//
// AGENTTASKS_DEBUG=1 prints every call's arguments and the start of its
// result text to stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	xhtml "golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/internal/chatpage"
)

// answer is what the send and pause pages stream, chunk by chunk.
var answer = []string{"The capital ", "of France ", "is Paris. ", "It has been ", "the seat ", "of government ", "for most ", "of the time ", "since the ", "tenth century. ",
	"Paris lies ", "on the Seine, ", "in the north ", "of the country, ", "and is its ", "largest city ", "by far. ", "That is ", "the whole ", "answer."}

const (
	stepMS  = 150  // between chunks
	pauseMS = 5000 // the pause task's pause, halfway
)

// streamScript answers the composer's submit with a user turn and an
// assistant turn that streams the answer; pauseAt (a chunk index, or -1)
// pauses pauseMS before that chunk. aria-busy is the only generating
// signal and goes when the last chunk is in.
func streamScript(pauseAt int) string {
	chunks, _ := json.Marshal(answer)
	return fmt.Sprintf(`<script>
(function(){var S=%s,P=%d;
document.getElementById('composer').addEventListener('submit',function(e){e.preventDefault();
var ta=document.getElementById('prompt'),q=ta.value;if(!q)return;ta.value='';
var th=document.getElementById('thread'),u=document.createElement('div');
u.className='turn';u.setAttribute('data-message-author-role','user');u.setAttribute('data-message-id','msg-new-u');
u.innerHTML='<div class="text"><p></p></div>';u.querySelector('p').textContent=q;th.appendChild(u);
var a=document.createElement('div');a.className='turn';a.setAttribute('data-message-author-role','assistant');a.setAttribute('data-message-id','msg-new-a');a.setAttribute('aria-busy','true');
a.innerHTML='<div class="text markdown"><p></p></div>';th.appendChild(a);var p=a.querySelector('p'),i=0;
function next(){p.textContent+=S[i];i++;if(i>=S.length){a.removeAttribute('aria-busy');return}setTimeout(next,i===P?%d:%d)}
setTimeout(next,%d)})})();
</script>`, chunks, pauseAt, pauseMS, stepMS, stepMS)
}

const filesPage = `<!doctype html><html><head><title>Files</title></head><body><main><h1>Files</h1>
<table><thead><tr><th>Name</th><th>Size</th><th></th></tr></thead><tbody>
<tr><td>report.pdf</td><td>120 KB</td><td><button type="button" onclick="del(this,'report.pdf')">Delete</button></td></tr>
<tr><td>notes.txt</td><td>2 KB</td><td><button type="button" onclick="del(this,'notes.txt')">Delete</button></td></tr>
<tr><td>todo.md</td><td>1 KB</td><td><button type="button" onclick="del(this,'todo.md')">Delete</button></td></tr>
</tbody></table><p id="status">Deleted: none</p>
<script>function del(b,f){fetch('/delete?f='+encodeURIComponent(f),{method:'POST'}).then(function(){b.closest('tr').remove();document.getElementById('status').textContent='Deleted: '+f})}</script>
</main></body></html>`

// site serves the task pages and counts the deletes.
type site struct {
	pages map[string]string
	mu    sync.Mutex
	del   []string
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/delete" {
		s.mu.Lock()
		s.del = append(s.del, r.URL.Query().Get("f"))
		s.mu.Unlock()
		return
	}
	body, ok := s.pages[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(body))
}

func (s *site) deletes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.del
	s.del = nil
	return out
}

// outcome is one task run on one server.
type outcome struct {
	calls   int
	bytes   int
	ms      float64
	correct bool
	note    string
}

// client counts the calls and result bytes of one task run.
type client struct {
	cs    *mcpsdk.ClientSession
	calls int
	bytes int
}

func (c *client) call(ctx context.Context, name string, args map[string]any) (*mcpsdk.CallToolResult, string, error) {
	c.calls++
	res, err := c.cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, "", err
	}
	c.bytes += len(data)
	var text strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(*mcpsdk.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if os.Getenv("AGENTTASKS_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "-- %s %v\n%.3000s\n", name, args, text.String())
	}
	if res.IsError {
		return res, text.String(), fmt.Errorf("%s: %s", name, text.String())
	}
	return res, text.String(), nil
}

// structured decodes a result's JSON: its structured content or, for
// the tools that return the page (no structured content), its text.
func structured(res *mcpsdk.CallToolResult, out any) error {
	data, err := mcp.ResultJSON(res)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

type task struct {
	name string
	path string
}

var tasks = []task{{"send", "/send"}, {"pause", "/pause"}, {"lookalike", "/files"}, {"last2000", "/chat2000"}}

func main() {
	replaylab := flag.String("replaylab", "replaylab", "the replaylab binary")
	playwright := flag.String("playwright", "", "the Playwright MCP server (node_modules/.bin/playwright-mcp); required")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the Chromium both servers drive")
	runs := flag.Int("runs", 3, "runs of every task (the servers alternate which goes first)")
	only := flag.String("only", "", "comma-separated task names to run (default all: send, pause, lookalike, last2000)")
	timeout := flag.Duration("timeout", 3*time.Minute, "per task run")
	flag.Parse()
	if *playwright == "" {
		fmt.Fprintln(os.Stderr, "agenttasks: --playwright is required")
		os.Exit(2)
	}
	if err := run(*replaylab, *playwright, *chromium, *only, *runs, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "agenttasks:", err)
		os.Exit(1)
	}
}

func run(replaylab, playwright, chromium, only string, runs int, timeout time.Duration) error {
	chat := chatpage.Render(chatpage.Options{Turns: 4, Seed: 1, Sidebar: -1})
	big := chatpage.Render(chatpage.Options{Turns: 2000, Seed: 1})
	last, err := lastAnswerTexts(big)
	if err != nil {
		return err
	}
	st := &site{pages: map[string]string{
		"/send":     strings.Replace(chat, "</body>", streamScript(-1)+"</body>", 1),
		"/pause":    strings.Replace(chat, "</body>", streamScript(len(answer)/2)+"</body>", 1),
		"/files":    filesPage,
		"/chat2000": big,
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: st}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	ctx := context.Background()
	rlCmd := exec.Command(replaylab, "mcp", "--adapter", "auto")
	rlCmd.Env = append(os.Environ(), "REPLAYLAB_CHROMIUM="+chromium)
	rl, err := connect(ctx, rlCmd)
	if err != nil {
		return fmt.Errorf("replaylab mcp: %w", err)
	}
	defer rl.Close()
	// Playwright MCP writes the snapshots of its action results to files
	// (the result links them): keep those out of the working directory
	out, err := os.MkdirTemp("", "agenttasks-pw-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	pw, err := connect(ctx, exec.Command(playwright, "--headless", "--isolated", "--no-sandbox", "--executable-path", chromium, "--output-dir", out))
	if err != nil {
		return fmt.Errorf("playwright mcp: %w", err)
	}
	defer pw.Close()

	type server struct {
		name string
		cs   *mcpsdk.ClientSession
		do   func(ctx context.Context, c *client, t task, url string) (outcome, error)
	}
	runRL := func(ctx context.Context, c *client, t task, url string) (outcome, error) {
		return replaylabTask(ctx, c, t, url, st, last)
	}
	runPW := func(ctx context.Context, c *client, t task, url string) (outcome, error) {
		return playwrightTask(ctx, c, t, url, st, last)
	}
	servers := []server{{"replaylab", rl, runRL}, {"playwright", pw, runPW}}

	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	fmt.Printf("%-10s %-10s %4s %6s %10s %10s %8s  %s\n", "task", "server", "run", "calls", "bytes", "ms", "correct", "note")
	got := map[string][]outcome{}
	for _, t := range tasks {
		if len(want) > 0 && !want[t.name] {
			continue
		}
		for r := range runs {
			order := slices.Clone(servers)
			if r%2 == 1 {
				slices.Reverse(order)
			}
			for _, s := range order {
				cctx, cancel := context.WithTimeout(ctx, timeout)
				c := &client{cs: s.cs}
				start := time.Now()
				o, err := s.do(cctx, c, t, base+t.path)
				cancel()
				o.ms = float64(time.Since(start).Microseconds()) / 1000
				o.calls, o.bytes = c.calls, c.bytes
				if err != nil {
					o.correct, o.note = false, "error: "+err.Error()
				}
				got[t.name+"/"+s.name] = append(got[t.name+"/"+s.name], o)
				fmt.Printf("%-10s %-10s %4d %6d %10d %10.0f %8v  %s\n", t.name, s.name, r+1, o.calls, o.bytes, o.ms, o.correct, o.note)
			}
		}
	}
	fmt.Printf("\nmedians of %d runs\n%-10s %-10s %6s %10s %10s %8s\n", runs, "task", "server", "calls", "bytes", "ms", "correct")
	for _, t := range tasks {
		for _, s := range servers {
			list := got[t.name+"/"+s.name]
			if len(list) == 0 {
				continue
			}
			ok := 0
			for _, o := range list {
				if o.correct {
					ok++
				}
			}
			fmt.Printf("%-10s %-10s %6.0f %10.0f %10.0f %5d/%d\n", t.name, s.name,
				median(list, func(o outcome) float64 { return float64(o.calls) }),
				median(list, func(o outcome) float64 { return float64(o.bytes) }),
				median(list, func(o outcome) float64 { return o.ms }), ok, len(list))
		}
	}
	return nil
}

func median(list []outcome, f func(outcome) float64) float64 {
	v := make([]float64, 0, len(list))
	for _, o := range list {
		v = append(v, f(o))
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func connect(ctx context.Context, cmd *exec.Cmd) (*mcpsdk.ClientSession, error) {
	cmd.Stderr = os.Stderr
	return mcpsdk.NewClient(&mcpsdk.Implementation{Name: "agenttasks", Version: "dev"}, nil).Connect(ctx, &mcpsdk.CommandTransport{Command: cmd}, nil)
}

// lastAnswerTexts returns the text nodes of the page's last assistant
// turn's text, each whitespace-normalised.
func lastAnswerTexts(page string) ([]string, error) {
	doc, err := xhtml.Parse(strings.NewReader(page))
	if err != nil {
		return nil, err
	}
	var last *xhtml.Node
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "data-message-author-role" && a.Val == "assistant" {
					last = n
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if last == nil {
		return nil, errors.New("the 2,000-turn page has no assistant turn")
	}
	var texts []string
	var collect func(n *xhtml.Node)
	collect = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && (n.Data == "button" || n.Data == "h6") {
			return // the turn's controls and its screen-reader label
		}
		if n.Type == xhtml.TextNode {
			if t := strings.Join(strings.Fields(n.Data), " "); t != "" && t != "." {
				texts = append(texts, t)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			collect(c)
		}
	}
	collect(last)
	return texts, nil
}

func containsAll(got string, texts []string) bool {
	got = strings.Join(strings.Fields(html.UnescapeString(got)), " ")
	for _, t := range texts {
		if !strings.Contains(got, strings.TrimSuffix(strings.TrimSpace(t), ".")) {
			return false
		}
	}
	return true
}

// ---- replaylab

type rlElement struct {
	Ref, Role, Name string
}

type rlAct struct {
	Elements []rlElement
}

func (a rlAct) ref(role, name string) (string, error) {
	for _, e := range a.Elements {
		if e.Role == role && e.Name == name {
			return e.Ref, nil
		}
	}
	return "", fmt.Errorf("no %s %q in the action's result", role, name)
}

func replaylabTask(ctx context.Context, c *client, t task, url string, st *site, last []string) (outcome, error) {
	var o outcome
	res, _, err := c.call(ctx, "begin", map[string]any{"goal": t.name})
	if err != nil {
		return o, err
	}
	var begun struct{ Task string }
	if err := structured(res, &begun); err != nil {
		return o, err
	}
	id := begun.Task
	defer func() {
		// not counted: the agent has its answer before it ends the task
		_, _ = c.cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "finish", Arguments: map[string]any{"task": id}})
	}()
	st.deletes()
	res, _, err = c.call(ctx, "navigate", map[string]any{"task": id, "url": url})
	if err != nil {
		return o, err
	}
	var nav rlAct
	if err := structured(res, &nav); err != nil {
		return o, err
	}
	switch t.name {
	case "send", "pause":
		box, err := nav.ref("textbox", "Message")
		if err != nil {
			return o, err
		}
		res, _, err = c.call(ctx, "fill", map[string]any{"task": id, "target": map[string]any{"ref": box}, "text": "What is the capital of France?"})
		if err != nil {
			return o, err
		}
		var filled rlAct
		if err := structured(res, &filled); err != nil {
			return o, err
		}
		send, err := filled.ref("button", "Send")
		if err != nil {
			return o, err
		}
		if _, _, err = c.call(ctx, "click", map[string]any{"task": id, "target": map[string]any{"ref": send}, "expect": map[string]any{"newAnswer": true}}); err != nil {
			return o, err
		}
		res, _, err = c.call(ctx, "waitAnswer", map[string]any{"task": id, "timeoutMs": 60000})
		if err != nil {
			return o, err
		}
		var a struct{ Status, Text string }
		if err := structured(res, &a); err != nil {
			return o, err
		}
		full := strings.Join(answer, "")
		o.correct = a.Status == "complete" && strings.TrimSpace(a.Text) == strings.TrimSpace(full)
		o.note = "status " + a.Status
	case "lookalike":
		if _, _, err = c.call(ctx, "click", map[string]any{"task": id, "target": map[string]any{"role": "button", "name": "Delete", "within": "notes.txt"},
			"expect": map[string]any{"textVisible": "Deleted: notes.txt"}}); err != nil {
			return o, err
		}
		d := st.deletes()
		o.correct = slices.Equal(d, []string{"notes.txt"})
		o.note = "deleted " + strings.Join(d, ",")
	case "last2000":
		res, _, err = c.call(ctx, "snapshot", map[string]any{"task": id})
		if err != nil {
			return o, err
		}
		var v struct{ Groups []struct{ ID string } }
		if err := structured(res, &v); err != nil {
			return o, err
		}
		if len(v.Groups) == 0 {
			return o, errors.New("the snapshot has no answer groups")
		}
		g := v.Groups[len(v.Groups)-1].ID
		res, _, err = c.call(ctx, "readAnswer", map[string]any{"task": id, "group": g})
		if err != nil {
			return o, err
		}
		var gt struct {
			Text    string
			HasMore bool
		}
		if err := structured(res, &gt); err != nil {
			return o, err
		}
		o.correct = !gt.HasMore && containsAll(gt.Text, last)
		o.note = "group " + g
	}
	return o, nil
}

// ---- Playwright MCP

var (
	pwSnapshot = regexp.MustCompile("(?s)```yaml\n(.*?)\n```")
	pwRow      = regexp.MustCompile(`^- row( |:|$)`)
	pwRef      = regexp.MustCompile(`\[ref=([a-z0-9]+)\]`)
)

// pwFind returns the ref of the first line of the snapshot with that
// role and name; with row set, the first such line inside a row one of
// whose lines holds row (the snapshot names rows by their cells).
func pwFind(text, role, name, row string) (string, error) {
	m := pwSnapshot.FindStringSubmatch(text)
	if m == nil {
		return "", fmt.Errorf("the result has no page snapshot: %.300q", text)
	}
	want := fmt.Sprintf("- %s %q", role, name)
	lines := strings.Split(m[1], "\n")
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	refOf := func(block []string) string {
		for _, l := range block {
			if strings.HasPrefix(strings.TrimSpace(l), want) {
				if r := pwRef.FindStringSubmatch(l); r != nil {
					return r[1]
				}
			}
		}
		return ""
	}
	if row == "" {
		if r := refOf(lines); r != "" {
			return r, nil
		}
		return "", fmt.Errorf("no %s %q with a ref in the snapshot", role, name)
	}
	for i, l := range lines {
		if !pwRow.MatchString(strings.TrimSpace(l)) {
			continue // not a row (a rowgroup holds every row)
		}
		end := i + 1
		for end < len(lines) && indent(lines[end]) > indent(l) {
			end++
		}
		block := lines[i:end]
		if strings.Contains(strings.Join(block, "\n"), row) {
			if r := refOf(block); r != "" {
				return r, nil
			}
		}
	}
	return "", fmt.Errorf("no %s %q in a row with %q in the snapshot", role, name, row)
}

func snapshotOf(text string) string {
	if m := pwSnapshot.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

func playwrightTask(ctx context.Context, c *client, t task, url string, st *site, last []string) (outcome, error) {
	var o outcome
	st.deletes()
	if _, _, err := c.call(ctx, "browser_navigate", map[string]any{"url": url}); err != nil {
		return o, err
	}
	// navigate's result links its snapshot as a file: the refs come from
	// a snapshot call
	_, nav, err := c.call(ctx, "browser_snapshot", map[string]any{})
	if err != nil {
		return o, err
	}
	switch t.name {
	case "send", "pause":
		box, err := pwFind(nav, "textbox", "Message", "")
		if err != nil {
			return o, err
		}
		send, err := pwFind(nav, "button", "Send", "")
		if err != nil {
			return o, err
		}
		if _, _, err := c.call(ctx, "browser_type", map[string]any{"element": "Message textbox", "target": box, "text": "What is the capital of France?"}); err != nil {
			return o, err
		}
		if _, _, err := c.call(ctx, "browser_click", map[string]any{"element": "Send button", "target": send}); err != nil {
			return o, err
		}
		// the stable-snapshot rule: the answer is taken as finished when
		// two snapshots a second apart are the same
		prev := ""
		for range 60 {
			if _, _, err := c.call(ctx, "browser_wait_for", map[string]any{"time": 1}); err != nil {
				return o, err
			}
			_, snap, err := c.call(ctx, "browser_snapshot", map[string]any{})
			if err != nil {
				return o, err
			}
			cur := snapshotOf(snap)
			if cur == prev && cur != "" {
				break
			}
			prev = cur
		}
		full := strings.TrimSpace(strings.Join(answer, ""))
		o.correct = strings.Contains(prev, full)
		if !o.correct {
			o.note = "finished on a partial answer"
		}
	case "lookalike":
		ref, err := pwFind(nav, "button", "Delete", "notes.txt")
		if err != nil {
			return o, err
		}
		if _, _, err = c.call(ctx, "browser_click", map[string]any{"element": "Delete button in the notes.txt row", "target": ref}); err != nil {
			return o, err
		}
		// the delete is a request: give it the time replaylab's expectation waits
		if _, _, err := c.call(ctx, "browser_wait_for", map[string]any{"text": "Deleted: notes.txt"}); err != nil {
			return o, err
		}
		d := st.deletes()
		o.correct = slices.Equal(d, []string{"notes.txt"})
		o.note = "deleted " + strings.Join(d, ",")
	case "last2000":
		o.correct = containsAll(nav, last)
	}
	return o, nil
}
