// Package lsptest is a small Language Server Protocol client for tests:
// it frames JSON-RPC messages on its own (not with the server's code),
// matches responses to requests and keeps the diagnostics the server
// publishes, so a test drives `replaylab lsp` as an editor would.
package lsptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"sync"

	"github.com/replaylab/replaylab/harness/lsp"
)

// Client is one client end of an LSP stream.
type Client struct {
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan response
	diags   map[string]lsp.PublishDiagnosticsParams // the last published per URI
	notes   []Notification
	changed chan struct{} // closed and replaced on every notification
	readErr error
	done    chan struct{}
}

// Notification is a notification the server sent.
type Notification struct {
	Method string
	Params json.RawMessage
}

type response struct {
	Result json.RawMessage
	Error  *lsp.ResponseError
}

// New starts a client reading the server's messages from r and writing
// its own to w. The reader ends when r does (Done).
func New(r io.Reader, w io.Writer) *Client {
	c := &Client{w: w, waiting: map[int]chan response{}, diags: map[string]lsp.PublishDiagnosticsParams{},
		changed: make(chan struct{}), done: make(chan struct{})}
	go c.readLoop(bufio.NewReader(r))
	return c
}

// Done is closed when the server's stream ends; Err then says why (nil
// for a clean end).
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the server's stream ended (nil: EOF between messages).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

func (c *Client) readLoop(r *bufio.Reader) {
	defer close(c.done)
	for {
		body, err := readFrame(r)
		if err != nil {
			c.mu.Lock()
			if !errors.Is(err, io.EOF) {
				c.readErr = err
			}
			for id, ch := range c.waiting {
				close(ch)
				delete(c.waiting, id)
			}
			c.mu.Unlock()
			return
		}
		var m struct {
			ID     json.RawMessage    `json:"id"`
			Method string             `json:"method"`
			Params json.RawMessage    `json:"params"`
			Result json.RawMessage    `json:"result"`
			Error  *lsp.ResponseError `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			c.mu.Lock()
			c.readErr = fmt.Errorf("lsptest: the server sent a body that is not JSON: %w", err)
			c.mu.Unlock()
			continue
		}
		c.mu.Lock()
		switch {
		case m.Method == "" && len(m.ID) > 0:
			var id int
			if json.Unmarshal(m.ID, &id) == nil {
				if ch, ok := c.waiting[id]; ok {
					ch <- response{m.Result, m.Error}
					delete(c.waiting, id)
				}
			}
		case m.Method != "": // a notification, or a request of the server's (kept the same way, not answered)
			if m.Method == "textDocument/publishDiagnostics" {
				var p lsp.PublishDiagnosticsParams
				if json.Unmarshal(m.Params, &p) == nil {
					c.diags[p.URI] = p
				}
			}
			c.notes = append(c.notes, Notification{Method: m.Method, Params: m.Params})
			close(c.changed)
			c.changed = make(chan struct{})
		}
		c.mu.Unlock()
	}
}

// readFrame reads one Content-Length framed body.
func readFrame(r *bufio.Reader) ([]byte, error) {
	tp := textproto.NewReader(r)
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		if errors.Is(err, io.EOF) && len(h) == 0 {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("lsptest: header: %w", err)
	}
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if err != nil || n < 0 {
		return nil, fmt.Errorf("lsptest: Content-Length %q", h.Get("Content-Length"))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("lsptest: body: %w", err)
	}
	return body, nil
}

func (c *Client) send(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.w.Write(body)
	return err
}

// Call sends a request and decodes its result into result (nil: drop
// it). An error response is returned as a *lsp.ResponseError.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := c.send(msg); err != nil {
		return fmt.Errorf("lsptest: send %s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("lsptest: %s: %w", method, ctx.Err())
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("lsptest: %s: the server's stream ended before it answered", method)
		}
		if r.Error != nil {
			return r.Error
		}
		if result != nil {
			return json.Unmarshal(r.Result, result)
		}
		return nil
	}
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	return c.send(msg)
}

// Diagnostics waits for the diagnostics of uri published for version
// (or a later one) and returns them.
func (c *Client) Diagnostics(ctx context.Context, uri string, version int) ([]lsp.Diagnostic, error) {
	for {
		c.mu.Lock()
		p, ok := c.diags[uri]
		changed := c.changed
		c.mu.Unlock()
		if ok && (p.Version == nil || *p.Version >= version) {
			return p.Diagnostics, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lsptest: no diagnostics for %s version %d: %w", uri, version, ctx.Err())
		case <-c.done:
			return nil, fmt.Errorf("lsptest: the server's stream ended before the diagnostics of %s", uri)
		case <-changed:
		}
	}
}

// Notifications returns the notifications received so far with the
// method.
func (c *Client) Notifications(method string) []Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Notification
	for _, n := range c.notes {
		if n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

// Initialize sends initialize (rootUri root) and initialized.
func (c *Client) Initialize(ctx context.Context, rootURI string) (lsp.InitializeResult, error) {
	var res lsp.InitializeResult
	params := map[string]any{"processId": nil, "rootUri": rootURI, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "lsptest"}}
	if err := c.Call(ctx, "initialize", params, &res); err != nil {
		return res, err
	}
	return res, c.Notify("initialized", map[string]any{})
}

// Open sends didOpen of a feature file.
func (c *Client) Open(uri string, version int, text string) error {
	return c.Notify("textDocument/didOpen", lsp.DidOpenTextDocumentParams{TextDocument: lsp.TextDocumentItem{URI: uri, LanguageID: "gherkin", Version: version, Text: text}})
}

// Change sends didChange with the whole new text.
func (c *Client) Change(uri string, version int, text string) error {
	var p lsp.DidChangeTextDocumentParams
	p.TextDocument.URI, p.TextDocument.Version = uri, version
	p.ContentChanges = []lsp.TextDocumentContentChangeEvent{{Text: text}}
	return c.Notify("textDocument/didChange", p)
}

// At is the position params of a place in a document.
func At(uri string, line, char int) lsp.TextDocumentPositionParams {
	return lsp.TextDocumentPositionParams{TextDocument: lsp.TextDocumentIdentifier{URI: uri}, Position: lsp.Position{Line: line, Character: char}}
}

// Shutdown sends shutdown and exit.
func (c *Client) Shutdown(ctx context.Context) error {
	if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
		return err
	}
	return c.Notify("exit", nil)
}

// Pipe serves opt in this process over a pair of pipes and returns the
// client end and a channel that receives Serve's result. Closing
// neither is needed after Shutdown; the pipes close when Serve returns.
func Pipe(ctx context.Context, opt lsp.Options) (*Client, <-chan error) {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := lsp.Serve(ctx, toServer, fromServer, opt)
		fromServer.Close()
		toServer.Close()
		errc <- err
	}()
	return New(toClient, fromClient), errc
}
