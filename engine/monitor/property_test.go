package monitor

import (
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// genObservation draws an observation from a small space, so that equal
// observations (revisits, stagnation) are common.
func genObservation(t *rapid.T) Observation {
	switch rapid.IntRange(0, 2).Draw(t, "kind") {
	case 0:
		return menuPage(rapid.Bool().Draw(t, "open"), rapid.IntRange(0, 100).Draw(t, "tick"))
	case 1:
		return page(rapid.SampledFrom([]string{"t1", "t2"}).Draw(t, "tab"),
			rapid.SampledFrom([]string{"/a", "/b", "/c"}).Draw(t, "url"),
			rapid.SampledFrom([]string{"Saving", "Done", "Working"}).Draw(t, "text"))
	default:
		return loginPage(rapid.SampledFrom([]string{"", "a@b.c"}).Draw(t, "email"),
			rapid.SampledFrom([]string{"", "pw"}).Draw(t, "password"))
	}
}

var actionPool = []Action{clickMenu, clickOpen, clickClose, clickNext, clickSave}

// Property 1: no sequence of passive operations ever signals (MON-6).
func TestPropertyPassiveNeverSignals(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		m := New(Config{})
		n := rapid.IntRange(1, 200).Draw(t, "n")
		for i := range n {
			a := rapid.SampledFrom(actionPool).Draw(t, "target")
			if rapid.Bool().Draw(t, "flag") {
				a.Op = rapid.SampledFrom([]string{"observe", "click", "fill", "screenshot"}).Draw(t, "op")
				a.Passive = true
			} else {
				a.Op = rapid.SampledFrom(PassiveOps).Draw(t, "passiveOp")
			}
			m.Act(a)
			if rapid.Bool().Draw(t, "observe") {
				m.Observe(genObservation(t))
			}
			if s := m.Pending(); s != nil {
				t.Fatalf("step %d: got signal %+v, want none", i, *s)
			}
		}
	})
}

// Property 2: actions each followed by a never-before-seen observation never
// signal (in particular never under rule a).
func TestPropertyFreshObservationsNeverSignal(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		m := New(Config{})
		seen := map[string]bool{}
		n := rapid.IntRange(1, 200).Draw(t, "n")
		for i := range n {
			m.Act(rapid.SampledFrom(actionPool).Draw(t, "action"))
			o := genObservation(t)
			if seen[Fingerprint(o)] {
				// Make it new with a word (numbers are normalised away).
				o.Texts = append(clone(o).Texts, letters(i))
			}
			fp := Fingerprint(o)
			if seen[fp] {
				t.Fatalf("step %d: observation not fresh", i)
			}
			seen[fp] = true
			m.Observe(o)
			if s := m.Pending(); s != nil {
				t.Fatalf("step %d: got signal %+v, want none", i, *s)
			}
		}
	})
}

// letters spells i in base 26 with letters: a word no two indices share.
func letters(i int) string {
	b := []byte("fresh-")
	for {
		b = append(b, byte('a'+i%26))
		i /= 26
		if i == 0 {
			return string(b)
		}
	}
}

// valueMarkers and nameMarker never occur in a signal's keys, rule codes,
// numbers or advice, so finding a generated string in a signal can only mean
// a leak.
var valueMarkers = []string{"@", "%", "~", "^"}

const nameMarker = "`"

func genTyped(t *rapid.T, label string) string {
	return rapid.StringMatching(`[A-Za-z0-9 <&]{2,12}`).Draw(t, label+"Base") +
		rapid.SampledFrom(valueMarkers).Draw(t, label+"Marker") +
		rapid.String().Draw(t, label+"Tail")
}

func genSensitiveName(t *rapid.T, label string) string {
	return rapid.SampledFrom([]string{"Password", "One-time code", "Card number", "CVC", "PIN",
		"Security code", "Verification code", "otp"}).Draw(t, label+"Word") +
		" " + nameMarker + rapid.StringMatching(`[a-z]{3,8}`).Draw(t, label+"Suffix")
}

// Property 3: signals never contain typed text or sensitive names (MON-7);
// change summaries never contain typed text or sensitive names either.
func TestPropertySignalsNeverLeak(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		nFields := rapid.IntRange(1, 4).Draw(t, "fields")
		type field struct {
			name      string
			sensitive bool
			values    []string
		}
		fields := make([]field, nFields)
		var secrets []string // strings that must never appear
		for i := range fields {
			f := &fields[i]
			f.sensitive = rapid.Bool().Draw(t, "sensitive")
			if f.sensitive {
				f.name = genSensitiveName(t, "name")
				if !IsSensitive(ControlInfo{Label: f.name}) {
					t.Fatalf("IsSensitive(%q) = false, want true", f.name)
				}
				secrets = append(secrets, f.name)
			} else {
				f.name = "Field " + letters(i)
			}
			for range rapid.IntRange(1, 3).Draw(t, "values") {
				v := genTyped(t, "value")
				f.values = append(f.values, v)
				secrets = append(secrets, v)
			}
		}
		// state renders the page with the given values typed in; it echoes
		// the values in the text, as chat sites do.
		state := func(vals []string, open bool) Observation {
			o := Observation{Tab: "t1", URL: "/form", FrameScope: "doc"}
			for i, f := range fields {
				o.Controls = append(o.Controls, Control{
					Key: letters(i), Role: "textbox", Name: f.name, Value: vals[i], Sensitive: f.sensitive,
				})
				if !f.sensitive {
					o.Texts = append(o.Texts, "You typed "+vals[i])
				}
			}
			o.Controls = append(o.Controls, Control{Key: "menu", Role: "button", Name: "More", Expanded: open})
			return o
		}
		vals := make([]string, nFields)
		prev := state(vals, false)
		m := New(Config{})
		m.Observe(prev)
		var sigs []*Signal
		var summaries []ChangeSummary
		steps := rapid.IntRange(0, 60).Draw(t, "steps")
		loopAt := rapid.IntRange(0, steps).Draw(t, "loopAt")
		for i := 0; i <= steps; i++ {
			if i == loopAt {
				// A forced loop: the same fill while the menu flips, so
				// every run raises at least one signal.
				k := rapid.IntRange(0, nFields-1).Draw(t, "loopField")
				v := rapid.SampledFrom(fields[k].values).Draw(t, "loopValue")
				vals[k] = v
				for j := range 6 {
					m.Act(Action{Op: "fill", Tab: "t1", Role: "textbox", Name: fields[k].name, Value: v,
						Sensitive: fields[k].sensitive})
					o := state(vals, j%2 == 0)
					m.Observe(o)
					summaries = append(summaries, Summarize(prev, o))
					prev = o
					if s := m.Pending(); s != nil {
						sigs = append(sigs, s)
					}
				}
			}
			k := rapid.IntRange(0, nFields-1).Draw(t, "field")
			v := rapid.SampledFrom(fields[k].values).Draw(t, "value")
			m.Act(Action{Op: rapid.SampledFrom([]string{"fill", "press", "select"}).Draw(t, "op"),
				Tab: "t1", Role: "textbox", Name: fields[k].name, Value: v, Key: "Enter",
				Sensitive: fields[k].sensitive})
			if rapid.Bool().Draw(t, "observe") {
				vals[k] = v
				o := state(vals, rapid.Bool().Draw(t, "open"))
				m.Observe(o)
				summaries = append(summaries, Summarize(prev, o))
				prev = o
			}
			if s := m.Pending(); s != nil {
				sigs = append(sigs, s)
			}
		}
		if len(sigs) == 0 {
			t.Fatalf("got no signal, want at least one from the forced loop")
		}
		for _, s := range sigs {
			if s.Advice != Advice {
				t.Fatalf("got advice %q, want the fixed advice", s.Advice)
			}
			assertNoLeak(t, "signal", s, secrets)
		}
		for _, s := range summaries {
			assertNoLeak(t, "summary", s, secrets)
		}
	})
}

func assertNoLeak(t *rapid.T, what string, v any, secrets []string) {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %s: %v", what, err)
	}
	for _, s := range secrets {
		enc, _ := json.Marshal(s)
		inner := strings.Trim(string(enc), `"`)
		if strings.Contains(string(b), s) || strings.Contains(string(b), inner) {
			t.Fatalf("%s %s contains %q", what, b, s)
		}
	}
}
