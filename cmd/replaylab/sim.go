package main

import (
	"context"
	"fmt"
	"io"

	"github.com/replaylab/replaylab/sim"
)

func cmdSim(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("sim", stderr)
	addr := fs.String("addr", "127.0.0.1:8088", "listen address (loopback only; port 0 picks a free one)")
	seed := fs.Int64("seed", 0, "seed of every generated text")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if len(pos) > 0 {
		return exitBadInput, badInput("unexpected arguments %v", pos)
	}
	srv, err := sim.NewServer(sim.Options{Addr: *addr, Seed: *seed})
	if err != nil {
		return exitBadInput, badInput("%v", err)
	}
	fmt.Fprintf(stdout, "replaylab sim: serving %s (seed %d); index at %s/ — Ctrl-C stops\n", srv.URL, *seed, srv.URL)
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return exitFailed, err
	}
	fmt.Fprintln(stdout, "replaylab sim: stopped")
	return exitOK, nil
}
