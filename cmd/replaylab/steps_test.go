package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStepsCatalogue(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		want    []string // in stdout
		notWant []string // not in stdout
		wantErr string   // in stderr
	}{
		{name: "whole catalogue", args: []string{"steps"}, want: []string{"# replaylab step catalogue", "## Action results", "Defaults: waits up to 10 s", "Alias: `^I try to send", "*sim only*", "| added   |"}},
		{name: "filtered by a word", args: []string{"steps", "video"}, want: []string{"ready video", "with an? (video|image)"}, notWant: []string{"the refusal counts"}},
		{name: "a plural finds the singular", args: []string{"steps", "videos"}, want: []string{"ready video"}},
		{name: "every word must match", args: []string{"steps", "refusal", "counts"}, want: []string{"the refusal counts"}, notWant: []string{"`^the action ends with"}},
		{name: "no match", args: []string{"steps", "zeppelin"}, code: 1, wantErr: "no step matches"},
		{name: "unknown format", args: []string{"steps", "--format", "yaml"}, code: 2, wantErr: `unknown --format "yaml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %s)", code, tt.code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("stdout has %q", w)
				}
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr %q lacks %q", errOut, tt.wantErr)
			}
		})
	}
}

func TestStepsCatalogueJSON(t *testing.T) {
	code, out, errOut := runCLI(t, "steps", "--format", "json", "send")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var cat struct {
		Version int `json:"version"`
		Steps   []struct {
			Group, Pattern, Meaning, Example, Defaults, AliasOf, Kind string
			NeedsSim                                                  bool
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &cat); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if cat.Version != 1 || len(cat.Steps) == 0 {
		t.Fatalf("version %d, %d steps", cat.Version, len(cat.Steps))
	}
	var send, alias bool
	for _, s := range cat.Steps {
		if s.Pattern == `^I send "([^"]*)"$` {
			send = s.Kind == "action" && strings.Contains(s.Defaults, "10 s")
		}
		if s.Pattern == `^I try to send "([^"]*)"$` {
			alias = s.AliasOf == `^I send "([^"]*)"$`
		}
	}
	if !send || !alias {
		t.Errorf("the send step (action, 10 s default: %v) or its alias (%v) is missing from %s", send, alias, out)
	}
}
