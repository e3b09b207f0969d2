package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/mcp"
)

// mcpStdin is the server's input; tests replace it.
var mcpStdin io.ReadCloser = os.Stdin

// cmdMCP serves the engine's typed operations as MCP tools on stdin and
// stdout until stdin closes (or a signal arrives), then closes every page
// and the browser, if one was started.
func cmdMCP(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("mcp", stderr)
	adapterName := fs.String("adapter", "auto", "answer-group adapter: marker, heading or auto")
	cdpURL := fs.String("cdp", "", "attach to a running Chromium at this CDP websocket URL instead of starting one")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if len(pos) > 0 {
		return exitBadInput, badInput("unexpected argument %q", pos[0])
	}
	ad, err := adapter.ByName(*adapterName)
	if err != nil {
		return exitBadInput, badInput("--adapter %q: %v", *adapterName, err)
	}
	lb := &mcp.LazyBrowser{Options: browser.Options{RemoteURL: *cdpURL}}
	srv := mcp.NewServer(mcp.Options{Engine: engine.Config{Adapter: ad}, Driver: lb.Driver})
	runErr := srv.Run(ctx, &mcpsdk.IOTransport{Reader: mcpStdin, Writer: nopWriteCloser{stdout}})
	if errors.Is(runErr, io.EOF) {
		runErr = nil
	}
	if err := errors.Join(runErr, lb.Close()); err != nil {
		return exitFailed, fmt.Errorf("%w", err)
	}
	return exitOK, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
