package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/replay"
)

// One MCP process may open many pages (every task has its own), so a
// recorded MCP session is one file per task page, named after a base FILE:
// SessionPath(FILE, "t2", "main") is FILE without ".json" plus
// "@t2-main.json". Task ids count from t1 in every process, so a replay
// of the same calls asks for the same files.

// SessionPath is the session file of a task's page under the base file.
func SessionPath(file, task, page string) string {
	if page == "" {
		page = MainPage
	}
	return strings.TrimSuffix(file, ".json") + "@" + task + "-" + page + ".json"
}

// validPageName: page names become part of file names.
func validPageName(page string) error {
	for _, r := range page {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("page name %q: only letters, digits, _ and - can be recorded", page)
		}
	}
	return nil
}

// Recording passes every page of Next through a replay.Recorder and saves
// each page's session under File when Save is called (at shutdown).
type Recording struct {
	// File is the base file (see SessionPath).
	File string
	// Base is the canonical base URL recorded sessions store (the live one
	// is rewritten by Hooks.Rewrite).
	Base string
	// Hooks rewrite and scrub what is recorded; Save refuses a session
	// that still holds a secret Hooks.Scrub knows.
	Hooks replay.Hooks
	// Scenario is stored in every session (a replay checks it).
	Scenario string
	// Next opens the live pages.
	Next DriverFunc

	mu   sync.Mutex
	recs []recorded
}

type recorded struct {
	path string
	rec  *replay.Recorder
}

// Driver is a DriverFunc: Next's page, recorded.
func (r *Recording) Driver(ctx context.Context, task, page string) (engine.Driver, func() error, error) {
	if err := validPageName(page); err != nil {
		return nil, nil, err
	}
	d, closeFn, err := r.Next(ctx, task, page)
	if err != nil {
		return nil, nil, err
	}
	rec := replay.NewRecorder(d, r.Base, r.Hooks)
	rec.SetScenario(r.Scenario)
	r.mu.Lock()
	r.recs = append(r.recs, recorded{path: SessionPath(r.File, task, page), rec: rec})
	r.mu.Unlock()
	return rec, closeFn, nil
}

// Paths lists the files Save writes, in the order the pages were opened.
func (r *Recording) Paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.recs))
	for i, x := range r.recs {
		out[i] = x.path
	}
	return out
}

// Save writes every page's session atomically, each checked for secrets.
func (r *Recording) Save() error {
	r.mu.Lock()
	recs := append([]recorded(nil), r.recs...)
	r.mu.Unlock()
	var errs []error
	for _, x := range recs {
		if err := x.rec.Session().SaveChecked(x.path, r.Hooks.Scrub); err != nil {
			errs = append(errs, fmt.Errorf("mcp: save the recording: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Replaying serves every page from its recorded session under File, with
// no browser.
type Replaying struct {
	// File is the base file (see SessionPath).
	File string
	// Scenario, when set, must equal the sessions' or one of Also (a
	// recording of another version of the calls is refused). Also are
	// the older stamps of the same calls (harness.StepsFingerprint).
	Scenario string
	Also     []string

	mu      sync.Mutex
	drivers []replayed
}

type replayed struct {
	task, page string
	d          *replay.Driver
}

// Driver is a DriverFunc: the page's recorded session.
func (r *Replaying) Driver(ctx context.Context, task, page string) (engine.Driver, func() error, error) {
	if err := validPageName(page); err != nil {
		return nil, nil, err
	}
	path := SessionPath(r.File, task, page)
	s, err := replay.Load(path)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: page %s/%s: %w", task, page, err)
	}
	if r.Scenario != "" && s.Scenario != r.Scenario && !slices.Contains(r.Also, s.Scenario) {
		return nil, nil, fmt.Errorf("mcp: page %s/%s: the recording %s was made from other calls (scenario %q, want %q); re-record it", task, page, path, s.Scenario, r.Scenario)
	}
	d := replay.NewDriver(s)
	r.mu.Lock()
	r.drivers = append(r.drivers, replayed{task: task, page: page, d: d})
	r.mu.Unlock()
	return d, func() error { return nil }, nil
}

// Unused reports, as an error, the recorded actions no call replayed.
func (r *Replaying) Unused() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, x := range r.drivers {
		if u := x.d.Unused(); len(u) > 0 {
			errs = append(errs, fmt.Errorf("replay: page %s/%s: %d recorded actions were never replayed: %s", x.task, x.page, len(u), strings.Join(u, "; ")))
		}
	}
	return errors.Join(errs...)
}
