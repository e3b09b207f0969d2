package harness

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/report"
)

// CostFile is where a project keeps what each scenario cost to replay in
// its last replayed runs, from its root: shards are balanced by it.
const CostFile = ".replaylab/replay-cost.json"

// LiveCostFile is where a project keeps what each scenario took in its
// last live runs (every scenario live, e.g. --driver browser), from its
// root: a live run in parallel starts the feature files that cost most
// live first by it.
const LiveCostFile = ".replaylab/live-cost.json"

// costs is the replay (or live) cost file: scenario slug → nanoseconds.
type costs struct {
	Version   int              `json:"version"`
	Scenarios map[string]int64 `json:"scenarios"`
}

const costVersion = 1

// loadCosts reads path; a missing or unreadable file, or one of another
// version, is no measure (nil).
func loadCosts(path string) map[string]time.Duration {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var c costs
	if json.Unmarshal(data, &c) != nil || c.Version != costVersion {
		return nil
	}
	out := map[string]time.Duration{}
	for k, v := range c.Scenarios {
		out[k] = time.Duration(v)
	}
	return out
}

// saveCosts adds the passed scenarios of run (their last attempt's
// duration) to the cost file at path.
func saveCosts(path string, run *report.Run) error {
	c := costs{Version: costVersion, Scenarios: map[string]int64{}}
	for k, v := range loadCosts(path) {
		c.Scenarios[k] = int64(v)
	}
	for _, sc := range run.Scenarios {
		if sc.Slug == "" || len(sc.Attempts) == 0 {
			continue
		}
		if a := sc.Last(); a.Status == report.Passed {
			c.Scenarios[sc.Slug] = int64(a.Duration)
		}
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("harness: cost file: %w", err)
	}
	return capture.WriteFileAtomic(path, append(data, '\n'))
}

// replayCost weighs a scenario for the shards: what it cost to replay
// when the project measured it (CostFile), else the size of its recorded
// sessions (what a replay reads and parses), else nothing known (the
// median of the others).
func (r *Runner) replayCost() func(Scenario) time.Duration {
	measured := loadCosts(filepath.Join(r.opt.Root, filepath.FromSlash(CostFile)))
	if len(measured) > 0 {
		return func(sc Scenario) time.Duration { return measured[sc.Slug] }
	}
	return func(sc Scenario) time.Duration {
		var size int64
		for _, p := range sessionFiles(r.opt.Root, sc.Slug) {
			if st, err := os.Stat(p); err == nil {
				size += st.Size()
			}
		}
		// about a microsecond a byte; only the proportions matter
		return time.Duration(size) * time.Microsecond
	}
}

// orderCost weighs a scenario for the order of a parallel run: a run
// where every scenario runs live weighs by the live costs (LiveCostFile) when the project
// measured them, since a live scenario's cost (its browser, its wall-time
// bounds) is not in proportion to its replay's; any other run, or a live
// one with no measure yet, by replayCost.
func (r *Runner) orderCost() func(Scenario) time.Duration {
	if r.opt.Mode.AlwaysLive() {
		measured := loadCosts(filepath.Join(r.opt.Root, filepath.FromSlash(LiveCostFile)))
		if len(measured) > 0 {
			return func(sc Scenario) time.Duration { return measured[sc.Slug] }
		}
	}
	return r.replayCost()
}

// HeaviestFirst orders sel's feature files by what their selected
// scenarios cost to replay, the heaviest file first (ties and scenarios
// within a file keep sel's order; a scenario with no measure weighs the
// median of those with one). Run concurrently, a long scenario then starts
// while the others still keep every worker busy, instead of being the one
// thing left running at the end.
func HeaviestFirst(sel []Scenario, weight func(Scenario) time.Duration) []Scenario {
	var known []time.Duration
	ws := make([]time.Duration, len(sel))
	for i, sc := range sel {
		ws[i] = -1
		if weight != nil {
			if w := weight(sc); w > 0 {
				ws[i] = w
				known = append(known, w)
			}
		}
	}
	if len(known) == 0 {
		return sel
	}
	slices.Sort(known)
	fill := known[len(known)/2]
	total := map[string]time.Duration{}
	first := map[string]int{}
	for i, sc := range sel {
		if ws[i] < 0 {
			ws[i] = fill
		}
		if _, ok := first[sc.URI]; !ok {
			first[sc.URI] = i
		}
		total[sc.URI] += ws[i]
	}
	out := slices.Clone(sel)
	slices.SortStableFunc(out, func(a, b Scenario) int {
		if a.URI == b.URI {
			return 0
		}
		if c := cmp.Compare(total[b.URI], total[a.URI]); c != 0 {
			return c
		}
		return cmp.Compare(first[a.URI], first[b.URI])
	})
	return out
}
