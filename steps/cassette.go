package steps

import (
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/engine/driver"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/report"
)

// tabCassette is the vocabulary's recording format for one tab, handed
// to harness.Scenario.Driver: engine/replay's sessions, recorded with the
// scenario's base rewrite, scrubber and clock. The runner decides when a
// tab is replayed or recorded and saves it; the cassette notes the
// driver it made in the tab for the steps that read it (clock, status,
// session).
type tabCassette struct {
	w *world
	t *tab
}

// Load implements harness.Cassette.
func (c tabCassette) Load(path string) (harness.Tape, error) {
	s, err := replay.Load(path)
	if err != nil {
		return nil, err
	}
	c.t.replay = replay.NewDriver(s)
	c.t.session = s
	return replayTape{d: c.t.replay, s: s}, nil
}

// Record implements harness.Cassette. Live runs always pass through the
// recorder, so the scrubber meets values in the same order whether or
// not the session is saved.
func (c tabCassette) Record(live driver.Driver, fingerprint string) (harness.Tape, error) {
	w := c.w
	var rec *replay.Recorder
	if w.site != nil {
		rec = replay.NewRecorder(live, SiteCanonicalBase, replay.Hooks{Rewrite: replay.BaseRewriter(SiteCanonicalBase, w.siteLive), Scrub: w.scrub})
	} else {
		rec = replay.NewRecorder(live, CanonicalBase, replay.Hooks{Rewrite: replay.BaseRewriter(CanonicalBase, w.sim.URL), Scrub: w.scrub})
	}
	rec.SetScenario(fingerprint)
	rec.SetClock(clock.Kind(w.clock))
	c.t.rec = rec
	return recordTape{rec: rec, fp: fingerprint, scrub: w.scrub}, nil
}

// replayTape is a tab replayed from its session.
type replayTape struct {
	d *replay.Driver
	s *replay.Session
}

func (t replayTape) Driver() driver.Driver        { return t.d }
func (t replayTape) Fingerprint() string          { return t.s.Scenario }
func (t replayTape) Position() int                { return t.d.Position() }
func (t replayTape) Unused() []string             { return t.d.Unused() }
func (t replayTape) Save(string) error            { return nil }
func (t replayTape) Recording() harness.Recording { return recordingOf(t.s) }

// recordTape is a tab recorded live.
type recordTape struct {
	rec   *replay.Recorder
	fp    string
	scrub *replay.Scrubber
}

func (t recordTape) Driver() driver.Driver { return t.rec }
func (t recordTape) Fingerprint() string   { return t.fp }
func (t recordTape) Position() int         { return t.rec.Len() }
func (t recordTape) Unused() []string      { return nil }

// Save writes the session, checked to hold no secret the scrubber knows.
func (t recordTape) Save(path string) error { return t.rec.Session().SaveChecked(path, t.scrub) }

func (t recordTape) Recording() harness.Recording { return recordingOf(t.rec.Session()) }

// recordingOf is a session as the HTML report shows it.
func recordingOf(s *replay.Session) harness.Recording {
	out := harness.Recording{Captures: append([]*capture.Capture(nil), s.Captures...)}
	for _, st := range s.Steps {
		ss := report.SessionStep{AtMS: st.AtMS, Kind: st.Kind, Capture: -1, Node: st.Node, URL: st.URL, Text: st.Text, Key: st.Key}
		if st.Capture != nil {
			ss.Capture = *st.Capture
		}
		out.Steps = append(out.Steps, ss)
	}
	return out
}

// Fixes are replaylab run's flags that fix each recording problem, the
// hints' words after the command (harness.Options.Fixes).
var Fixes = harness.FixFlags{
	RecordOnce: []string{"--mode", "record-once"},
	Rerecord:   []string{"--driver", harness.DriverBrowser, "--update"},
	Update:     []string{"--update"},
	Live:       []string{"--driver", harness.DriverBrowser},
	Prune:      []string{"--prune"},
}

// CommandLine fills in what hints and messages say of replaylab where
// opt leaves it out: the name "replaylab", the command "replaylab run"
// and its fixing flags (Fixes).
func CommandLine(opt harness.Options) harness.Options {
	if opt.Name == "" {
		opt.Name = "replaylab"
	}
	if len(opt.Command) == 0 {
		opt.Command = []string{"replaylab", "run"}
	}
	if len(opt.Fixes.RecordOnce) == 0 && len(opt.Fixes.Update) == 0 {
		opt.Fixes = Fixes
	}
	return opt
}
