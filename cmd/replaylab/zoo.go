package main

import (
	"context"
	"fmt"
	"io"

	"github.com/replaylab/replaylab/zoo"
)

// cmdZoo serves the zoo of real chat UI libraries (package zoo) until
// interrupted.
func cmdZoo(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("zoo", stderr)
	addr := fs.String("addr", "127.0.0.1:8710", "listen address (loopback only; port 0 picks a free one)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if len(pos) > 0 {
		return exitBadInput, badInput("unexpected arguments %v", pos)
	}
	s, err := zoo.Start(zoo.Options{Addr: *addr})
	if err != nil {
		return exitBadInput, badInput("%v", err)
	}
	fmt.Fprintf(stdout, "replaylab zoo: serving %s/ —", s.URL)
	for _, lib := range zoo.Libs {
		fmt.Fprintf(stdout, " %s/%s/", s.URL, lib)
	}
	fmt.Fprintln(stdout, " — Ctrl-C stops")
	<-ctx.Done()
	if err := s.Close(); err != nil {
		return exitFailed, fmt.Errorf("zoo: %w", err)
	}
	fmt.Fprintln(stdout, "replaylab zoo: stopped")
	return exitOK, nil
}
