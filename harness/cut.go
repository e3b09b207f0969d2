package harness

import (
	"fmt"
	"io"
	"sort"
	"sync"
)

// flight records, for a run its context ended (a signal, or replaylab run
// --timeout), the scenarios it cut short (running when it ended: they
// finish after it) and the ones it never started.
type flight struct {
	mu         sync.Mutex
	cut        map[string]Scenario
	notStarted map[string]Scenario
}

func (f *flight) add(m *map[string]Scenario, id string, sc Scenario) {
	if *m == nil {
		*m = map[string]Scenario{}
	}
	(*m)[id] = sc
}

// finish is told, as a started scenario ends, whether the run's context
// had ended by then.
func (f *flight) finish(sc Scenario, runEnded bool) {
	if !runEnded {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.add(&f.cut, sc.ID(), sc)
}

func (f *flight) skipped(sc Scenario) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.add(&f.notStarted, sc.ID(), sc)
}

// cutListMax bounds the scenarios an interruption names in each list.
const cutListMax = 20

// report writes which scenarios the interruption cut short and which
// never started, each list in file order, with the command that runs
// them again.
func (f *flight) report(w io.Writer, name string, command []string) {
	f.mu.Lock()
	cut, never := sortedScenarios(f.cut), sortedScenarios(f.notStarted)
	f.mu.Unlock()
	list := func(what string, scs []Scenario) {
		if len(scs) == 0 {
			return
		}
		fmt.Fprintf(w, "%s: %d %s:\n", name, len(scs), what)
		for i, sc := range scs {
			if i == cutListMax {
				fmt.Fprintf(w, "  … and %d more\n", len(scs)-cutListMax)
				break
			}
			fmt.Fprintf(w, "  %s  %s\n", sc.ID(), sc.Name)
		}
	}
	list("cut short (running when the run stopped)", cut)
	list("never started", never)
	all := append(cut, never...)
	if len(all) == 0 || len(all) > cutListMax {
		return
	}
	ids := make([]string, len(all))
	for i, sc := range all {
		ids[i] = sc.ID()
	}
	fmt.Fprintf(w, "%s: run them again: %s\n", name, ShellJoin(append(append([]string(nil), command...), ids...)))
}

func sortedScenarios(m map[string]Scenario) []Scenario {
	out := make([]Scenario, 0, len(m))
	for _, sc := range m {
		out = append(out, sc)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].URI != out[j].URI {
			return out[i].URI < out[j].URI
		}
		return out[i].Line < out[j].Line
	})
	return out
}
