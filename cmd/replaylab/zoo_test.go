package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/zoo"
)

func TestZooBadInputExits2(t *testing.T) {
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"not loopback", []string{"zoo", "--addr", "0.0.0.0:0"}, "not on the loopback"},
		{"an argument", []string{"zoo", "aisdk"}, "unexpected arguments"},
		{"unknown flag", []string{"zoo", "--port", "1"}, "port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitBadInput {
				t.Fatalf("exit %d (stderr %q), want %d", code, stderr, exitBadInput)
			}
			if !strings.Contains(stderr, "replaylab zoo:") || !strings.Contains(stderr, tt.says) {
				t.Fatalf("stderr %q: want the command and %q", stderr, tt.says)
			}
		})
	}
}

// A live run starts the zoo for the features that choose a zoo site, and
// leaves a site --base-url names alone.
func TestLiveRunServesTheZoo(t *testing.T) {
	byName := map[string]string{"zoo-nlux": "http://127.0.0.1:1"}
	stop, err := serveBuiltinSites(harness.ModeRecord, byName)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if byName["zoo-nlux"] != "http://127.0.0.1:1" {
		t.Errorf("zoo-nlux is %s: --base-url's address was replaced", byName["zoo-nlux"])
	}
	for _, lib := range zoo.Libs {
		if lib == "nlux" {
			continue
		}
		u, ok := byName["zoo-"+lib]
		if !ok {
			t.Fatalf("no address for zoo-%s", lib)
		}
		res, err := http.Get(u + "/" + lib + "/")
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s/%s/: %d", u, lib, res.StatusCode)
		}
	}
}
