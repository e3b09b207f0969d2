package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/replaylab/replaylab/steps"
)

// selfTestsJSON is the catalogue of replaylab's own self-test groups
// (internal/selftest's steps.Declare), written by
// `go test ./cmd/replaylab -run TestSelfTestCatalogue -update-selftests`
// and checked to be current by that test. The binary lists and
// recognises those steps from it but does not link them: they run only
// under go test, so the binary links no test code.
//
//go:embed selftests.json
var selfTestsJSON []byte

var (
	selfTestsOnce sync.Once
	selfTests     []steps.Group
)

// selfTestGroups are the self-tests' groups as the binary binds them: in
// the catalogue as go test binds them, and a scenario that reaches one
// of their steps is skipped, naming the go test command that runs it.
func selfTestGroups() []steps.Group {
	selfTestsOnce.Do(func() {
		var decl []steps.DeclaredGroup
		if err := json.Unmarshal(selfTestsJSON, &decl); err != nil {
			panic("replaylab: the embedded self-test catalogue (selftests.json): " + err.Error())
		}
		selfTests = steps.Unbound(decl, selfTestSkip)
	})
	return selfTests
}

// selfTestSkip is why a scenario that uses a self-test step is skipped
// by the binary, with the command that runs it.
func selfTestSkip(w steps.World, group string, d steps.DeclaredStep) string {
	uri := w.Pickle().Uri
	return fmt.Sprintf("SKIPPING %s (%s): its steps of %q are replaylab's self-tests, which only go test runs; run them in a replaylab checkout with: go test ./internal/selftest -run TestFeatures/%s -godog.paths=%s",
		w.Pickle().Name, uri, group, steps.DriverReplay, uri)
}
