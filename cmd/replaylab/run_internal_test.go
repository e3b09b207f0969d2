package main

import (
	"slices"
	"testing"
)

// TestInvokedFrom: the command a hint repeats is one a user can type,
// also when `go run` started the binary from the build cache.
func TestInvokedFrom(t *testing.T) {
	t.Chdir(t.TempDir()) // no cmd/replaylab below: the module path form
	tests := []struct {
		name, a0 string
		want     []string
	}{
		{"go run, temporary build", "/tmp/go-build123/b001/exe/replaylab", []string{"go", "run", "github.com/replaylab/replaylab/cmd/replaylab", "run"}},
		{"go run, cached executable", "/root/.cache/go-build/4f/4f0c2a-d/replaylab", []string{"go", "run", "github.com/replaylab/replaylab/cmd/replaylab", "run"}},
		{"installed on PATH", "replaylab", []string{"replaylab", "run"}},
		{"a path", "./bin/replaylab", []string{"./bin/replaylab", "run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := invokedFrom(tt.a0); !slices.Equal(got, tt.want) {
				t.Errorf("invokedFrom(%q) = %q, want %q", tt.a0, got, tt.want)
			}
		})
	}
}
