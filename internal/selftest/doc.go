// Package selftest is the vocabulary of replaylab's own self-tests: the
// steps of features/ that test the tool itself rather than a site. They
// run the harness on scratch projects (nested runs, reports, shards,
// retries, the browser pool), run the seeded explorer, and speak to
// `replaylab lsp` as an editor does.
//
// The package uses steps only through its exported API, and joins the
// vocabulary through one seam: Groups returns its step groups
// (steps.Group), whoever builds a fixture passes them in
// steps.Options.Groups (cmd/replaylab for run, steps and lsp; this
// package's tests, and the nested runs its own steps start), and the step
// functions reach their scenario through steps.WorldOf and keep their
// state with steps.State. steps never imports this package, and there is
// no registry: a fixture built without these groups has none of their
// steps.
//
// Every group but the editor's is marked SelfTest: bound and listed in
// replaylab's own checkout, or with REPLAYLAB_SELF_TESTS=1, never in a QA
// project's. The editor's group is not, so its steps are listed in every
// catalogue.
//
// TestFeatures runs every scenario of features/ under both drivers (go
// test ./internal/selftest; -update re-records from the browser).
package selftest

import "github.com/replaylab/replaylab/steps"

// Groups are the self-tests' step groups, in table order.
func Groups() []steps.Group {
	return []steps.Group{
		{Name: "Seeded explorer", SelfTest: true, Steps: exploreSteps},
		{Name: "The editor (language server)", Steps: editorSteps},
		{Name: "A real editor (Neovim)", SelfTest: true, Steps: neovimSteps},
		{Name: "The harness itself", SelfTest: true, Steps: func(t *steps.Table) {
			harnessSteps(t)
			scratchFileSteps(t)
		}},
		{Name: "Reports, shards and retries", SelfTest: true, Steps: func(t *steps.Table) {
			poolSteps(t)
			reportSteps(t)
			ecosystemSteps(t)
		}},
	}
}
