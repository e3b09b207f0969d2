package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML in the shape Jenkins (junit-10.xsd of the xunit plugin, the
// Surefire format) and GitLab read: one <testsuite> per feature file with
// the file in its file attribute, one <testcase> per scenario with the
// feature as classname and the scenario's name; its file:line opens
// <system-out>. A flaky scenario is a passed testcase holding a
// <flakyFailure> per failed attempt (as Maven Surefire writes reruns); a
// failed one holds <failure> with the last attempt's error and a
// <rerunFailure> for each earlier failed attempt.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	File       string          `xml:"file,attr"`
	Properties *junitProps     `xml:"properties,omitempty"`
	Cases      []junitTestcase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestcase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Reruns    []junitRerun  `xml:"rerunFailure,omitempty"`
	Flaky     []junitRerun  `xml:"flakyFailure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

type junitRerun struct {
	Message    string `xml:"message,attr,omitempty"`
	Type       string `xml:"type,attr"`
	StackTrace string `xml:"stackTrace"`
	SystemOut  string `xml:"system-out,omitempty"`
}

func seconds(d Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes r as JUnit XML.
func WriteJUnit(w io.Writer, r *Run) error {
	out := junitSuites{Name: "replaylab", Time: seconds(r.Duration)}
	byFile := map[string]int{}
	var suiteTime []Duration // each suite's total, formatted once at the end
	for _, sc := range r.Scenarios {
		i, ok := byFile[sc.File]
		if !ok {
			i = len(out.Suites)
			byFile[sc.File] = i
			out.Suites = append(out.Suites, junitSuite{Name: sc.Feature, File: sc.File})
			suiteTime = append(suiteTime, 0)
			if !r.Started.IsZero() {
				out.Suites[i].Timestamp = r.Started.UTC().Format("2006-01-02T15:04:05")
			}
			props := []junitProp{{"driver", r.Driver}, {"seed", fmt.Sprint(r.Seed)}}
			if r.Shard != "" {
				props = append(props, junitProp{"shard", r.Shard})
			}
			out.Suites[i].Properties = &junitProps{props}
		}
		s := &out.Suites[i]
		tc := junitTestcase{Name: scenarioTitle(sc), Classname: sc.Feature}
		var total Duration
		for _, a := range sc.Attempts {
			total += a.Duration
		}
		tc.Time = seconds(total)
		last := sc.Last()
		var outLines []string
		outLines = append(outLines, fmt.Sprintf("%s:%d", sc.File, sc.Line))
		if len(sc.Attempts) > 1 {
			outLines = append(outLines, fmt.Sprintf("attempts: %d", len(sc.Attempts)))
		}
		for _, st := range last.Steps {
			outLines = append(outLines, fmt.Sprintf("%-9s %s%s", st.Status, st.Keyword, st.Text))
		}
		tc.SystemOut = strings.Join(outLines, "\n") + "\n"
		status := sc.Outcome()
		switch status {
		case Skipped:
			tc.Skipped = &junitMessage{Message: firstLine(last.Error)}
			s.Skipped++
		case Flaky:
			for n, a := range sc.Attempts {
				if a.Status == Failed {
					tc.Flaky = append(tc.Flaky, rerun(sc, n, a))
				}
			}
		case Passed:
		default:
			msg := last.Error
			if status == Undefined && msg == "" {
				msg = "undefined step"
			}
			tc.Failure = &junitMessage{Message: fmt.Sprintf("%s:%d: %s", sc.File, sc.Line, firstLine(msg)), Type: failureType(last, status), Body: msg}
			for n, a := range sc.Attempts[:len(sc.Attempts)-1] {
				if a.Status == Failed {
					tc.Reruns = append(tc.Reruns, rerun(sc, n, a))
				}
			}
			s.Failures++
		}
		s.Tests++
		suiteTime[i] += total
		s.Cases = append(s.Cases, tc)
		out.Tests++
		if tc.Failure != nil {
			out.Failures++
		}
	}
	for i, d := range suiteTime {
		out.Suites[i].Time = seconds(d)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("report: junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func rerun(sc *Scenario, n int, a *Attempt) junitRerun {
	return junitRerun{Message: fmt.Sprintf("attempt %d of %d: %s", n+1, len(sc.Attempts), firstLine(a.Error)),
		Type: failureType(a, a.Status), StackTrace: a.Error}
}

// failureType is the error code when there is one, else the kind of
// failure.
func failureType(a *Attempt, st Status) string {
	switch {
	case a.Code != "":
		return a.Code
	case a.Drift:
		return "GOLDEN_DRIFT"
	case st == Undefined:
		return "UNDEFINED_STEP"
	}
	return "STEP_FAILED"
}

// scenarioTitle is the scenario's name, with its repetition when the run
// repeats scenarios (JUnit readers key test cases by classname and name).
func scenarioTitle(sc *Scenario) string {
	if sc.Repeat > 0 {
		return fmt.Sprintf("%s (repeat %d)", sc.Name, sc.Repeat)
	}
	return sc.Name
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
