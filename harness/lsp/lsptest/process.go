package lsptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/replaylab/replaylab/harness/lsp"
	"github.com/replaylab/replaylab/internal/syncbuf"
)

// Process is a language server started as its own process, with a client
// on its stdin and stdout and the documents the client has synced.
type Process struct {
	*Client
	Stderr *syncbuf.Buffer // what the server printed on stderr

	cmd     *exec.Cmd
	stdin   io.Closer
	exited  bool
	version map[string]int
	text    map[string]string
}

// Start starts argv in dir and initializes it with rootURI.
func Start(ctx context.Context, argv []string, dir, rootURI string) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("lsptest: no command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &Process{Stderr: &syncbuf.Buffer{}, cmd: cmd, stdin: in, version: map[string]int{}, text: map[string]string{}}
	cmd.Stderr = p.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("lsptest: start %s: %w", argv[0], err)
	}
	p.Client = New(out, in)
	if _, err := p.Initialize(ctx, rootURI); err != nil {
		p.Kill()
		return nil, fmt.Errorf("lsptest: initialize: %w (stderr: %s)", err, p.Stderr.String())
	}
	return p, nil
}

// Sync opens the document (the first time) or changes it to text, and
// waits for the diagnostics of that version.
func (p *Process) Sync(ctx context.Context, uri, text string) ([]lsp.Diagnostic, error) {
	v := p.version[uri] + 1
	p.version[uri], p.text[uri] = v, text
	var err error
	if v == 1 {
		err = p.Open(uri, v, text)
	} else {
		err = p.Change(uri, v, text)
	}
	if err != nil {
		return nil, err
	}
	return p.Diagnostics(ctx, uri, v)
}

// Text is the document's text as last synced.
func (p *Process) Text(uri string) (string, bool) {
	t, ok := p.text[uri]
	return t, ok
}

// Exit sends shutdown and exit and returns the process's exit status; it
// kills the process if it has not ended when ctx does.
func (p *Process) Exit(ctx context.Context) (int, error) {
	if err := p.Shutdown(ctx); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		p.Kill()
		return 0, fmt.Errorf("lsptest: the server did not exit after shutdown and exit: %w", ctx.Err())
	}
	p.exited = true
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, werr
}

// Kill ends the process if it has not exited.
func (p *Process) Kill() {
	if p.exited {
		return
	}
	p.exited = true
	_ = p.stdin.Close()
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}
