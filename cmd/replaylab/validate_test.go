package main

import (
	"strings"
	"testing"
)

// TestValidateZooLibraries (SPEC LIB-6): on every zoo library, validate
// with the library's correct profile exits 0 over its record --send
// session and its scenarios' sessions; with a planted mistake it exits 1
// naming the check that describes the mistake.
func TestValidateZooLibraries(t *testing.T) {
	for _, lib := range []string{"aisdk", "chatscope", "deepchat", "nlux"} {
		for _, dir := range []string{"../../zoo/" + lib + "/recordings/send", "../../zoo/recordings/sessions/" + lib} {
			t.Run(lib+" "+dir, func(t *testing.T) {
				code, stdout, stderr := runCLI(t, "validate", "--quiet", "--site", "../../zoo/"+lib+"/"+lib+".json", dir)
				if code != exitOK || !strings.Contains(stdout, "conformance: ok") {
					t.Fatalf("exit %d, want 0:\n%s%s", code, stdout, stderr)
				}
			})
		}
	}
	for _, tc := range []struct{ name, args, check string }{
		{"error bubble unmapped", "--site ../../zoo/chatscope/chatscope.json --adapter ../../zoo/chatscope/broken/unmapped-error.adapter.json", "[error-as-complete]"},
		{"stopped answer unmapped", "--site ../../zoo/chatscope/chatscope.json --adapter ../../zoo/chatscope/broken/stopped-unmapped.adapter.json", "[stopped-as-complete]"},
		{"turn selector on the list", "--site ../../zoo/chatscope/chatscope.json --adapter ../../zoo/chatscope/broken/container-turns.adapter.json", "[container-turn]"},
		{"generating that never clears", "--site ../../zoo/chatscope/broken/generating-stuck.json", "[generating-never-clears]"},
		{"send.by switched", "--site ../../zoo/chatscope/broken/send-by-enter.json", "[send-by]"},
		{"send control misnamed", "--site ../../zoo/chatscope/broken/send-misnamed.json", "[no-sends]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"validate", "--quiet"}, strings.Fields(tc.args)...), "../../zoo/recordings/sessions/chatscope")
			code, stdout, stderr := runCLI(t, args...)
			if code != exitFailed || !strings.Contains(stdout, tc.check) {
				t.Fatalf("exit %d, want 1 naming %s:\n%s%s", code, tc.check, stdout, stderr)
			}
		})
	}
}
