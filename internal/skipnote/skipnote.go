// Package skipnote keeps the messages of skipped tests and scenarios
// (something not installed, a step bound only under go test) so that
// they can be printed together when a run ends. It holds the notes only:
// internal/testskip, which test binaries use, prints them when the tests
// end; code the replaylab binary links (steps) records through this
// package, which does not import testing.
package skipnote

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

var (
	mu    sync.Mutex
	notes = map[string]bool{}
)

// Record notes a skip (a whole group of tests or scenarios, once per
// message) to be printed by Print.
func Record(msg string) {
	mu.Lock()
	notes[msg] = true
	mu.Unlock()
}

// Print writes the recorded skips, one "SKIPPING …" line each, sorted.
func Print(w io.Writer) {
	mu.Lock()
	var msgs []string
	for m := range notes {
		msgs = append(msgs, m)
	}
	mu.Unlock()
	sort.Strings(msgs)
	for _, m := range msgs {
		if !strings.HasPrefix(m, "SKIPPING") {
			m = "SKIPPING " + m
		}
		fmt.Fprintln(w, m)
	}
}

// Forget drops a recorded message (a test that planted a skip of no real
// run).
func Forget(msg string) {
	mu.Lock()
	delete(notes, msg)
	mu.Unlock()
}
