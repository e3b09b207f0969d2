package browser_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/replaylab/replaylab/engine/browser"
)

// TestFindHeadless: REPLAYLAB_CHROMIUM wins; else the headless shell when
// it is installed (its binary, then PATH); else the full browser.
func TestFindHeadless(t *testing.T) {
	exe := func(t *testing.T, dir, name string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		// env, shell, onPath, full: which binaries exist
		env, shell, onPath, full bool
		want                     string
	}{
		{name: "REPLAYLAB_CHROMIUM wins over the shell", env: true, shell: true, onPath: true, full: true, want: "env"},
		{name: "the shell's binary first", shell: true, onPath: true, full: true, want: "shell"},
		{name: "the shell on PATH", onPath: true, full: true, want: "path"},
		{name: "no shell: the full browser", full: true, want: "full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, bin := t.TempDir(), t.TempDir()
			want := map[string]string{}
			t.Setenv("REPLAYLAB_CHROMIUM", "")
			if tc.env {
				want["env"] = exe(t, dir, "my-chrome")
				t.Setenv("REPLAYLAB_CHROMIUM", want["env"])
			}
			shell := filepath.Join(dir, "lib-chromium-headless-shell") // absent unless tc.shell
			if tc.shell {
				want["shell"] = exe(t, dir, "lib-chromium-headless-shell")
			}
			old := browser.HeadlessShells
			browser.HeadlessShells = []string{shell}
			t.Cleanup(func() { browser.HeadlessShells = old })
			if tc.onPath {
				want["path"] = exe(t, bin, "chromium-headless-shell")
			}
			if tc.full {
				want["full"] = exe(t, bin, "chromium")
			}
			t.Setenv("PATH", bin)
			got, err := browser.FindHeadless()
			if err != nil {
				t.Fatal(err)
			}
			if got != want[tc.want] {
				t.Fatalf("FindHeadless() = %s, want %s (%s)", got, want[tc.want], tc.want)
			}
			full, err := browser.FindChromium()
			if err != nil {
				t.Fatal(err)
			}
			if tc.env && full != want["env"] || !tc.env && full != want["full"] {
				t.Fatalf("FindChromium() = %s: the full browser (or REPLAYLAB_CHROMIUM) whatever the shell", full)
			}
		})
	}
}
