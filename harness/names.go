package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	messages "github.com/cucumber/messages/go/v34"
)

// Scenario names (CLK-2). A scenario's recordings are named
// <feature file base>/<scenario name>, lower-case with dashes. Scenarios of
// one file whose names give the same slug are numbered by their place in
// the file: the first keeps the plain name, the second gets -2, the third
// -3 (example rows of an outline without a placeholder in its name are the
// usual case). Select names every pickle of a file when it parses it, so
// the names do not depend on which scenarios run, nor in what order they
// start, at any concurrency. Two scenarios of one file with the same name
// and the same steps are refused (nothing would tell their recordings
// apart), and so are two selected files that would name a recording alike
// (features/a/x.feature and features/b/x.feature with a scenario of the
// same name).

// nameFile names the pickles of the file uri, in file order.
func nameFile(uri string, ps []*messages.Pickle) ([]string, error) {
	feat := slugify(strings.TrimSuffix(filepath.Base(uri), filepath.Ext(uri)))
	count := map[string]int{}
	seen := map[string]int64{} // name and steps → line
	names := make([]string, len(ps))
	for i, p := range ps {
		line := int64(0)
		if p.Location != nil {
			line = p.Location.Line
		}
		key := p.Name + "\x00" + StepsFingerprint(p)
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("steps: %s: the scenarios %q at lines %d and %d have the same name and the same steps, so nothing tells their recordings apart; rename one", uri, p.Name, prev, line)
		}
		seen[key] = line
		base := feat + "/" + slugify(p.Name)
		count[base]++
		names[i] = base
		if k := count[base]; k > 1 {
			names[i] = fmt.Sprintf("%s-%d", base, k)
		}
	}
	return names, nil
}

// claimNames refuses a selection in which scenarios of two files would be
// recorded under the same name.
func claimNames(scs []Scenario) error {
	owner := map[string]Scenario{}
	for _, sc := range scs {
		if prev, ok := owner[sc.Slug]; ok && prev.URI != sc.URI {
			return fmt.Errorf("steps: the scenarios at %s and %s would both be recorded as %s; rename one of them or one of the feature files", prev.ID(), sc.ID(), sc.Slug)
		}
		owner[sc.Slug] = sc
	}
	return nil
}

// Fingerprint identifies what a scenario's recording must replay: a hash
// of the text, doc string and table of every step but its checks. A check
// is a step under Then (Then and the And and But after it): it reads what
// the recording already holds, so adding, removing or changing checks
// keeps a recording valid, while an edit of a Given or When step (what is
// scripted, opened, typed or clicked) makes it stale (GATE-6). Action
// steps belong under When; the vocabulary refuses one under Then.
func Fingerprint(p *messages.Pickle) string { return fingerprint(p, false) }

// StepsFingerprint is the hash of every step, checks included: what tells
// two scenarios of a file apart, and what recordings made before checks
// were left out of Fingerprint carry (RecordedFrom still accepts it).
func StepsFingerprint(p *messages.Pickle) string { return fingerprint(p, true) }

// RecordedFrom reports whether a recording stamped with recorded (its
// session's "scenario") replays the scenario whose fingerprints are fp
// (Fingerprint) and steps (StepsFingerprint): "" is a recording that was
// never stamped.
func RecordedFrom(recorded, fp, steps string) bool {
	return recorded == "" || recorded == fp || (steps != "" && recorded == steps)
}

// IsCheck reports whether a pickle step is a check: a step under Then.
func IsCheck(st *messages.PickleStep) bool { return st.Type == messages.PickleStepType_OUTCOME }

func fingerprint(p *messages.Pickle, checks bool) string {
	h := sha256.New()
	for _, st := range p.Steps {
		if !checks && IsCheck(st) {
			continue
		}
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
