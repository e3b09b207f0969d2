package steps

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
)

func recordingSteps(r *table) {
	const g = "Recording and adapters"
	r.step(g, `^the engine reads the chat with the adapter file "([^"]*)"$`,
		"the engine uses an adapter described in a JSON file (path from the project root; see docs/adapters.md)",
		`And the engine reads the chat with the adapter file "docs/examples/listchat.json"`, givenAdapterFile,
		loadsFile(0, "adapter file", loadAdapter))
	r.step(g, `^replaying this session with "([^"]*)" typed instead diverges at the field "([^"]*)"$`,
		"the session recorded so far is replayed with one typed text changed: the replay must refuse it with REPLAY_DIVERGED naming that field",
		`Then replaying this session with "Hello!" typed instead diverges at the field "text"`, divergesAt)
	r.step(g, `^the recording of this session holds no "([^"]*)"$`,
		"the session as it is written to disk (live: what would be saved; replay: the file) does not contain that text",
		`Then the recording of this session holds no "hunter2"`, recordingHolds)
	r.step(g, `^the trace holds no "([^"]*)"$`, "the golden trace of this scenario does not contain that text",
		`And the trace holds no "hunter2"`, traceHolds)
	r.step(g, `^validating this session with the adapter "([^"]*)" passes$`,
		"replaylab validate's checks over the session recorded so far find no violation (adapter: marker, heading, auto or a file path)",
		`Then validating this session with the adapter "docs/examples/listchat.json" passes`, validatePasses)
	r.step(g, `^validating this session with the adapter "([^"]*)" reports "([^"]*)"$`,
		"the same checks find a violation of that check (structure, turn-boundary, composer, send-control, group-id-stable, new-group)",
		`Then validating this session with the adapter "marker" reports "structure"`, validateReports)
}

func (w *world) adapterPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(w.sc.Root(), p)
}

func givenAdapterFile(ctx context.Context, path string) error {
	// the file is named as the scenario names it (from the project root),
	// so the adapter's rule — and the golden — do not depend on where the
	// run started
	data, err := os.ReadFile(worldOf(ctx).adapterPath(path))
	if err != nil {
		return fmt.Errorf("adapter file: %w", err)
	}
	ad, err := adapter.ParseFile(data, path)
	if err != nil {
		return err
	}
	worldOf(ctx).adapter = ad
	return nil
}

func (w *world) mainSession() (*replay.Session, error) {
	t, ok := w.tabs[mainTab]
	if !ok {
		return nil, fmt.Errorf("no page was opened in this scenario")
	}
	s := t.recorded()
	if s == nil {
		return nil, fmt.Errorf("this run neither records nor replays a session")
	}
	return s, nil
}

func divergesAt(ctx context.Context, typed, field string) error {
	w := worldOf(ctx)
	s, err := w.mainSession()
	if err != nil {
		return err
	}
	d := replay.NewDriver(s)
	actions := 0
	for _, st := range s.Steps {
		var err error
		switch st.Kind {
		case replay.KindCapture:
			continue
		case replay.KindNavigate:
			err = d.Navigate(ctx, st.URL)
		case replay.KindClick:
			err = d.Click(ctx, st.Node)
		case replay.KindPress:
			err = d.Press(ctx, st.Node, st.Key)
		case replay.KindType:
			err = d.Type(ctx, st.Node, typed)
		}
		actions++
		var de *replay.DivergedError
		if errors.As(err, &de) {
			w.log.Emit(trace.E("replay.diverged", trace.A("action", actions), trace.A("field", de.Field), trace.A("code", replay.Code)))
			if de.Field != field {
				return fmt.Errorf("the replay diverged at field %q, want %q: %v", de.Field, field, err)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
	return fmt.Errorf("the replay with %q typed did not diverge", typed)
}

func recordingHolds(ctx context.Context, text string) error {
	w := worldOf(ctx)
	s, err := w.mainSession()
	if err != nil {
		return err
	}
	data, err := s.Encode()
	if err != nil {
		return err
	}
	if strings.Contains(string(data), text) {
		return fmt.Errorf("the recording holds %q", text)
	}
	return nil
}

func traceHolds(ctx context.Context, text string) error {
	if strings.Contains(string(trace.Format(worldOf(ctx).log.Events())), text) {
		return fmt.Errorf("the trace holds %q", text)
	}
	return nil
}

func (w *world) validate(name string) (conformance.Session, error) {
	s, err := w.mainSession()
	if err != nil {
		return conformance.Session{}, err
	}
	var ad adapter.Adapter
	if strings.Contains(name, "/") || strings.HasSuffix(name, ".json") {
		data, err := os.ReadFile(w.adapterPath(name))
		if err != nil {
			return conformance.Session{}, fmt.Errorf("adapter file: %w", err)
		}
		if ad, err = adapter.ParseFile(data, name); err != nil {
			return conformance.Session{}, err
		}
	} else if ad, err = adapter.ByName(name); err != nil {
		return conformance.Session{}, err
	}
	rep := conformance.Check("this session", s, ad, conformance.DefaultOptions)
	checks := map[string]bool{}
	for _, v := range rep.Violations {
		checks[v.Check] = true
	}
	var names []string
	for c := range checks {
		names = append(names, c)
	}
	sort.Strings(names)
	// only what does not depend on how many captures the timing produced
	w.log.Emit(trace.E("validate", trace.A("adapter", ad.Name()), trace.A("sends", len(rep.Decisions)), trace.A("violated", names)))
	return rep, nil
}

func validatePasses(ctx context.Context, name string) error {
	rep, err := worldOf(ctx).validate(name)
	if err != nil {
		return err
	}
	if rep.Errors() > 0 {
		return fmt.Errorf("validation found %d violations:\n%s", rep.Errors(), conformance.Text([]conformance.Session{rep}))
	}
	return nil
}

func validateReports(ctx context.Context, name, check string) error {
	rep, err := worldOf(ctx).validate(name)
	if err != nil {
		return err
	}
	for _, v := range rep.Violations {
		if v.Check == check {
			return nil
		}
	}
	return fmt.Errorf("validation did not report %q:\n%s", check, conformance.Text([]conformance.Session{rep}))
}
