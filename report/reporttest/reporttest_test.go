package reporttest

import (
	"os/exec"
	"testing"
)

func TestValidateCucumber(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		ok   bool
	}{
		{name: "one feature, one scenario", ok: true,
			doc: `[{"uri":"f.feature","id":"f","line":1,"keyword":"Feature","name":"F","description":"","tags":[],"elements":[{"id":"f;a","line":3,"keyword":"Scenario","type":"scenario","name":"a","description":"","tags":[],"steps":[{"keyword":"Given ","name":"x","line":4,"arguments":[],"match":{"location":"s.go:1"},"result":{"status":"passed","duration":1}}]}]}]`},
		{name: "unknown property", doc: unknownProperty},
		{name: "not an array", doc: `{"uri":"f.feature"}`},
		{name: "not JSON", doc: `[{`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateCucumber([]byte(tt.doc))
			if (err == nil) != tt.ok {
				t.Fatalf("got %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestValidateJUnit(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("SKIPPING: xmllint not found (apt-get install libxml2-utils)")
	}
	tests := []struct {
		name string
		doc  string
		ok   bool
	}{
		{name: "one suite, one case", ok: true,
			doc: `<testsuites><testsuite name="F" tests="1" failures="0" errors="0" skipped="0" time="0.001"><testcase name="a" classname="F" time="0.001"/></testsuite></testsuites>`},
		{name: "unknown element", doc: `<testsuites><testsuite name="F" tests="1"><nonsense/></testsuite></testsuites>`},
		{name: "not XML", doc: `<testsuites>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateJUnit(xmllint, t.TempDir(), []byte(tt.doc))
			if (err == nil) != tt.ok {
				t.Fatalf("got %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
