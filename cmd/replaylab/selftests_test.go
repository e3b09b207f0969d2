package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/internal/selftest"
	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/vocabulary"
)

var updateSelfTests = flag.Bool("update-selftests", false, "rewrite selftests.json from internal/selftest's groups")

// TestSelfTestCatalogue: the binary's copy of the self-tests' catalogue
// (selftests.json) is internal/selftest's, and the binary's catalogue,
// bound with it, is the one go test binds, step for step.
func TestSelfTestCatalogue(t *testing.T) {
	want, err := json.MarshalIndent(steps.Declare(selftest.Groups()...), "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *updateSelfTests {
		if err := os.WriteFile("selftests.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(selfTestsJSON, want) {
		t.Fatal("selftests.json is not internal/selftest's catalogue; rewrite it with: go test ./cmd/replaylab -run TestSelfTestCatalogue -update-selftests")
	}
	// the catalogue as `replaylab steps --all --format json` writes it:
	// every field, and where each step's function is
	var got, full bytes.Buffer
	for _, c := range []struct {
		buf    *bytes.Buffer
		groups []steps.Group
	}{{&got, selfTestGroups()}, {&full, selftest.Groups()}} {
		if err := harness.WriteCatalogue(c.buf, harness.Catalogue{Steps: vocabulary.Catalogue(c.groups...)}, harness.FormatJSON); err != nil {
			t.Fatal(err)
		}
	}
	if got.String() != full.String() {
		t.Errorf("the binary's catalogue is not go test's:\n%s\nwant\n%s", got.String(), full.String())
	}
}
