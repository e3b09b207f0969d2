package syncbuf_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/replaylab/replaylab/internal/syncbuf"
)

// TestConcurrentWritesAndReads: writers and readers at once (go test
// -race finds a missing lock); every line written is there once, whole.
func TestConcurrentWritesAndReads(t *testing.T) {
	t.Parallel()
	var b syncbuf.Buffer
	const writers, lines = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(&b, "w%d line %d\n", w, i)
			}
		})
	}
	wg.Go(func() {
		for range lines {
			_ = b.String()
		}
	})
	wg.Wait()
	got := b.String()
	if n := strings.Count(got, "\n"); n != writers*lines {
		t.Fatalf("got %d lines, want %d", n, writers*lines)
	}
	for w := range writers {
		if !strings.Contains(got, fmt.Sprintf("w%d line %d\n", w, lines-1)) {
			t.Fatalf("writer %d's last line is missing", w)
		}
	}
}

func ExampleBuffer() {
	var b syncbuf.Buffer
	fmt.Fprint(&b, "started\n")
	fmt.Print(b.String())
	// Output: started
}
