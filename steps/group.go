package steps

import (
	"context"
	"errors"
	"fmt"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
)

// The seam for steps kept outside this package (replaylab's own
// self-tests, in internal/selftest): a Group adds its steps to a Table,
// Options.Groups hands the groups to a fixture, which binds and lists
// them after the vocabulary's own, and a group's step functions reach
// their scenario through WorldOf. There is no registry: whoever builds
// the fixture names its groups.

// Group is a group of steps from outside the vocabulary. Name heads its
// steps in the catalogue; SelfTest marks them as replaylab's own
// self-tests, bound and listed only where Options.SelfTests or
// SelfTestsFor say; Steps adds them, in catalogue order.
type Group struct {
	Name     string
	SelfTest bool
	Steps    func(*Table)
}

// Table collects the steps of a Group.
type Table struct {
	group Group
	t     *table
}

// Step adds a step to the group: its pattern (a regular expression, its
// groups the arguments of fn), what it means, an example that no other
// step's pattern matches, and fn, a godog step function.
func (t *Table) Step(pattern, meaning, example string, fn any) {
	t.t.step(t.group.Name, pattern, meaning, example, fn)
	t.t.defs[len(t.t.defs)-1].SelfTest = t.group.SelfTest
}

// World is a scenario's world as a Group's steps see it.
type World struct{ w *world }

// WorldOf returns the world of the scenario whose step gets ctx.
func WorldOf(ctx context.Context) World { return World{worldOf(ctx)} }

// State returns the scenario's value of type T, created on first use: a
// Group keeps its per-scenario state in a type of its own.
func State[T any](w World) *T { return stateOf[T](w.w) }

// Emit adds e to the scenario's trace, which its golden holds.
func (w World) Emit(e trace.Event) { w.w.log.Emit(e) }

// Slug names the scenario as its golden and recordings do.
func (w World) Slug() string { return w.w.slug }

// Root is the run's project root.
func (w World) Root() string { return w.w.sc.Root() }

// Mode is the run's recording mode.
func (w World) Mode() harness.Mode { return w.w.sc.Mode() }

// Skip marks the scenario skipped and prints msg; the step returns the
// error it gives.
func (w World) Skip(msg string) error { return w.w.skip(msg) }

// Skipped reports whether a step skipped the scenario.
func (w World) Skipped() bool { return w.w.skipped }

// OnFinish runs fn when the scenario ends.
func (w World) OnFinish(fn func()) { w.w.onFinish(fn) }

// Pickle is a copy of the scenario as godog runs it (its steps shared).
func (w World) Pickle() godog.Scenario { return *w.w.pickle }

// RecordingValidFor reports whether the main tab's recording would replay
// edited (the scenario changed), as a replay decides it when it loads the
// session.
func (w World) RecordingValidFor(edited *godog.Scenario) (bool, error) {
	s, err := w.w.mainSession()
	if err != nil {
		return false, err
	}
	stamp := s.Scenario
	if stamp == "" {
		return false, errors.New("the session carries no fingerprint of its scenario")
	}
	if !harness.RecordedFrom(stamp, w.w.scenario, w.w.steps) {
		return false, fmt.Errorf("the session is stamped %s, which does not replay this very scenario", stamp)
	}
	return harness.RecordedFrom(stamp, harness.Fingerprint(edited), harness.StepsFingerprint(edited)), nil
}

// Catalogue is every step the run's fixture binds.
func (w World) Catalogue() []StepDef { return w.w.fx.Catalogue() }

// MCPCommand is the command that starts `replaylab mcp`
// (Options.MCPCommand, else the root module's ./cmd/replaylab, built once
// per process).
func (w World) MCPCommand() ([]string, error) { return w.w.mcpCommand() }

// NeedPostgres returns the PostgreSQL URL of PostgresURLEnv; without one
// the scenario is skipped (an error in CI). who names the steps in the
// error, purpose ends the hint ("to explore on PostgreSQL").
func (w World) NeedPostgres(who, purpose string) (string, error) {
	return w.w.needPostgres(who, purpose)
}
