package steps

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/sim"
)

// world is one scenario's state; it lives in the scenario's context.
type world struct {
	suite    *Suite
	slug     string
	scenario string // fingerprint of the scenario's steps

	chat sim.Chat
	sim  *sim.Server // browser driver only
	base string      // the base URL the engine navigates to

	log    *trace.Log
	eng    *engine.Engine
	task   *engine.Task
	page   *engine.Page
	bpage  *browser.Page
	rec    *replay.Recorder
	replay *replay.Driver

	answer    *answer.Result
	lastView  *engine.View
	lastError error

	// state holds the per-scenario state of step files that need their
	// own, keyed by a type of that file (see stateOf).
	state map[any]any
}

// stateOf returns the scenario's value of type T, creating it on first use.
// Step files keep their own state this way without widening world.
func stateOf[T any](w *world) *T {
	if w.state == nil {
		w.state = map[any]any{}
	}
	var key *T
	if v, ok := w.state[key]; ok {
		return v.(*T)
	}
	v := new(T)
	w.state[key] = v
	return v
}

type worldKey struct{}

func worldOf(ctx context.Context) *world {
	w, _ := ctx.Value(worldKey{}).(*world)
	return w
}

// InitializeScenario binds the steps and the per-scenario hooks.
func (s *Suite) InitializeScenario(sc *godog.ScenarioContext) {
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		w := &world{suite: s, slug: s.slug(p.Uri, p.Name), scenario: fingerprint(p), chat: sim.DefaultChat()}
		w.chat.Seed = s.opt.Seed
		w.log = &trace.Log{}
		if s.opt.Driver == DriverBrowser {
			srv, err := sim.NewServer(sim.Options{Seed: s.opt.Seed})
			if err != nil {
				return ctx, err
			}
			w.sim = srv
			w.base = srv.URL
		} else {
			w.base = CanonicalBase
		}
		pairs := []string{CanonicalBase, TraceBase}
		if w.sim != nil {
			pairs = append(pairs, w.sim.URL, TraceBase)
		}
		w.log.Normalize = strings.NewReplacer(pairs...).Replace
		w.eng = engine.New(engine.Config{Tracer: w.log})
		return context.WithValue(ctx, worldKey{}, w), nil
	})
	sc.After(func(ctx context.Context, p *godog.Scenario, stepErr error) (context.Context, error) {
		w := worldOf(ctx)
		if w == nil {
			return ctx, nil
		}
		return ctx, w.finish(stepErr)
	})
	bind(sc)
}

// fingerprint hashes the scenario's step texts and arguments.
func fingerprint(p *godog.Scenario) string {
	h := sha256.New()
	for _, st := range p.Steps {
		fmt.Fprintln(h, st.Text)
		if st.Argument != nil && st.Argument.DocString != nil {
			fmt.Fprintln(h, st.Argument.DocString.Content)
		}
		if st.Argument != nil && st.Argument.DataTable != nil {
			for _, r := range st.Argument.DataTable.Rows {
				for _, c := range r.Cells {
					fmt.Fprint(h, c.Value, "|")
				}
				fmt.Fprintln(h)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func (w *world) sessionPath() string {
	return filepath.Join(w.suite.sessionsDir(), filepath.FromSlash(w.slug)+".json")
}

func (w *world) createHint() string {
	return "go test ./steps -update (with Chromium installed), or go run ./cmd/replaylab run --driver browser --update"
}

// driver opens the page's driver on first use: the browser (recording when
// updating) or the scenario's recorded session.
func (w *world) ensurePage(ctx context.Context) (*engine.Page, error) {
	if w.page != nil {
		return w.page, nil
	}
	var d engine.Driver
	switch w.suite.opt.Driver {
	case DriverBrowser:
		b, err := w.suite.sharedBrowser(ctx)
		if err != nil {
			return nil, err
		}
		bp, err := b.NewPage(ctx)
		if err != nil {
			return nil, err
		}
		w.bpage = bp
		d = bp
		if w.suite.opt.Update {
			w.rec = replay.NewRecorder(bp, CanonicalBase, replay.Hooks{Rewrite: replay.BaseRewriter(CanonicalBase, w.sim.URL)})
			w.rec.SetScenario(w.scenario)
			d = w.rec
		}
	default:
		s, err := replay.Load(w.sessionPath())
		if errors.Is(err, replay.ErrNoRecording) {
			return nil, fmt.Errorf("%w for scenario %s; record it with: %s", err, w.slug, w.createHint())
		}
		if err != nil {
			return nil, err
		}
		if s.Scenario != "" && s.Scenario != w.scenario {
			return nil, fmt.Errorf("replay: the recording %s was made from another version of this scenario (steps changed); re-record it with: %s", w.sessionPath(), w.createHint())
		}
		w.replay = replay.NewDriver(s)
		d = w.replay
	}
	if w.task == nil {
		w.task = w.eng.Begin(ctx, w.slug)
	}
	w.page = w.task.Page("main", d)
	return w.page, nil
}

// finish runs after the scenario: golden comparison, recording, cleanup.
func (w *world) finish(stepErr error) error {
	var errs []error
	if stepErr == nil {
		if w.replay != nil {
			if unused := w.replay.Unused(); len(unused) > 0 {
				errs = append(errs, fmt.Errorf("replay: %d recorded actions were never replayed: %s", len(unused), strings.Join(unused, "; ")))
			}
		}
		w.suite.markUsed(w.slug)
		if err := compareGolden(w.suite.goldenDir(), w.slug, trace.Format(w.log.Events()), w.createHint()); err != nil {
			errs = append(errs, err)
		}
		if w.rec != nil {
			if err := w.rec.Session().Save(w.sessionPath()); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if w.bpage != nil {
		_ = w.bpage.Close()
	}
	if w.sim != nil {
		_ = w.sim.Close()
	}
	return errors.Join(errs...)
}
