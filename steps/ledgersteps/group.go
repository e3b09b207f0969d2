// Package ledgersteps is the vocabulary's ledger domain: the steps of
// features/ledger*.feature and the patch page's bursts (LED-*), which
// drive the ledger and its job API in a lab of their own
// (ledger/ledgerlab: the store, the service, the sim's providers, on
// SQLite or PostgreSQL), never a browser page. The group joins a fixture
// through steps.Group (steps/vocabulary binds it) and reaches its
// scenario through steps.WorldOf.
package ledgersteps

import (
	"context"

	"github.com/replaylab/replaylab/steps"
)

// Name heads the group's steps in the catalogue.
const Name = "Ledger and job API (sim)"

// Group is the ledger's steps, in catalogue order.
func Group() steps.Group {
	return steps.Group{Name: Name, Steps: func(t *steps.Table) {
		r := &table{t}
		patchSteps(r)
		ledgerSteps(r)
		ledgerTrustSteps(r)
		ledgerHardenedSteps(r)
	}}
}

// table adds the group's steps under their heading.
type table struct{ t *steps.Table }

func (r *table) step(group, pattern, meaning, example string, fn any, opts ...steps.StepOpt) {
	r.t.StepIn(group, pattern, meaning, example, fn, opts...)
}

// world is a scenario's world as the ledger's steps see it; its state
// lives in the steps.World (stateOf).
type world struct {
	steps.World
	log steps.World // the scenario's trace (Emit)
}

func worldOf(ctx context.Context) *world {
	w := steps.WorldOf(ctx)
	return &world{World: w, log: w}
}

// stateOf returns the scenario's value of type T, created on first use.
func stateOf[T any](w *world) *T { return steps.State[T](w.World) }

// defaults states a step's defaults and units.
func defaults(s string) steps.StepOpt { return steps.Defaults(s) }
