// Package engine is the Task/Page API an agent and the test harness drive:
// begin a task, name pages (tabs) in it, observe, find, fill, click, press,
// wait for an answer and finish — with outcome discipline: clicks need an
// expected outcome, a fill is verified against the real value, and an
// outcome that cannot be confirmed blocks the task instead of being
// guessed (SPEC §4).
//
// The engine needs a Driver (declared here) and reports every decision to a
// trace.Tracer. It never imports a concrete driver, the sim or the harness.
package engine

import (
	"sync"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// Engine serves many tasks; tasks share nothing but configuration (ACT-6).
type Engine struct {
	cfg Config

	mu    sync.Mutex
	tasks int
}

// New returns an engine with cfg, defaults filled in.
func New(cfg Config) *Engine {
	if cfg.Adapter == nil {
		cfg.Adapter = adapter.DefaultMarker
	}
	if cfg.Tracer == nil {
		cfg.Tracer = trace.Discard
	}
	if cfg.Limits == (observe.Limits{}) {
		cfg.Limits = observe.DefaultLimits
	}
	if cfg.PageLimits == (observe.Limits{}) {
		cfg.PageLimits = observe.PageLimits
	}
	if cfg.OutcomeTimeout <= 0 {
		cfg.OutcomeTimeout = DefaultOutcomeTimeout
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.ChangePollInterval <= 0 {
		cfg.ChangePollInterval = DefaultChangePollInterval
	}
	if cfg.PageGroups.GroupsMax <= 0 || cfg.PageGroups.TextCharsMax <= 0 {
		cfg.PageGroups = DefaultPageGroups
	}
	if cfg.FullGroups.GroupsMax <= 0 || cfg.FullGroups.TextCharsMax <= 0 {
		cfg.FullGroups = DefaultFullGroups
	}
	return &Engine{cfg: cfg}
}

func (e *Engine) emit(kind string, attrs ...trace.Attr) { e.cfg.Tracer.Emit(trace.E(kind, attrs...)) }
