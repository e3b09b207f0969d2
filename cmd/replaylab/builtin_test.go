package main

import (
	"strings"
	"testing"
)

// The commands of docs/adapters.md run as printed outside a checkout:
// validate reads the profiles, planted mistakes and recordings replaylab
// carries, says so, and prints their own names, not a temp dir's.
func TestValidateReadsBuiltinFilesOutsideACheckout(t *testing.T) {
	t.Chdir(t.TempDir())
	tests := []struct {
		name  string
		args  []string
		code  int
		check string // in stdout; empty: none
	}{
		{"the correct profile", []string{"--site", "testsite/chatapp.json"}, exitOK, ""},
		{"a planted mistake", []string{"--site", "testsite/chatapp-broken/stop-misnamed.json"}, exitFailed, "[stop-control]"},
		{"a planted adapter", []string{"--site", "testsite/chatapp.json", "--adapter", "testsite/chatapp-broken/toolbar-in-text.adapter.json"}, exitFailed, "[control-text]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(append([]string{"validate", "--quiet"}, tt.args...), "recordings/sessions/chatapp")...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s\n%s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stderr, "recordings/sessions/chatapp is not in this directory: using the copy built into replaylab") {
				t.Errorf("stderr does not say the built-in copy is used:\n%s", stderr)
			}
			if !strings.Contains(stdout, "== recordings/sessions/chatapp/") || strings.Contains(stdout, "replaylab-run-") {
				t.Errorf("sessions not named by their own paths:\n%s", stdout)
			}
			if tt.check != "" && !strings.Contains(stdout, "VIOLATION "+tt.check) {
				t.Errorf("no %s violation:\n%s", tt.check, stdout)
			}
		})
	}
}
