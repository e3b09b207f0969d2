package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"
)

// Cucumber Messages (NDJSON), the format Cucumber's own tools read: the
// official HTML formatter, Cucumber Reports, ReportPortal, Allure. One
// envelope a line, in the order the protocol asks for: meta; each feature's
// source, gherkin document and the pickles that ran; the step definitions
// and the hook the run used; testRunStarted; each test case; each attempt
// (testCaseStarted with its 0-based attempt, the steps started and
// finished, attachments, testCaseFinished with willBeRetried); and
// testRunFinished. The stream is written from the model, so shards merged
// on the model (Merge) give one stream, like every other format.
//
// The gherkin documents and pickles are the gherkin parser's own, read
// again from the feature files (the model keeps results, not sources).
// An error found after the last step (golden drift, recorded actions never
// replayed) is an AFTER_TEST_CASE hook step of the test case, the way
// Cucumber reports a failing After hook; the golden's diff is attached to
// that step as text/x.diff. The capture a step read last is attached to
// the step as text/html. An undefined step's suggestion holds the closest
// catalogue steps as gherkin snippets (the catalogue is fixed: there is
// no step definition to write).

// MessagesProtocolVersion is the Cucumber Messages version written: the
// one of the Go messages module this build links (and of the npm
// @cucumber/messages whose JSON schema CI validates the stream against).
const MessagesProtocolVersion = "34.2.0"

// Media types of the attachments.
const (
	MediaDiff    = "text/x.diff"
	MediaCapture = "text/html"
	mediaGherkin = "text/x.cucumber.gherkin+plain"
)

// MessagesFile is the message stream's name beside a merged report.
const MessagesFile = "messages.ndjson"

// ErrMessagesSource is a feature file of the run that cannot be read or
// parsed again, or no longer holds a scenario of the run.
var ErrMessagesSource = errors.New("report: messages: feature source")

// MessageOptions says where the run's feature files are and who wrote it.
type MessageOptions struct {
	// Root is the directory Scenario.File is relative to.
	Root string
	// ReadFile reads the feature file Scenario.File names (nil: from
	// Root): the run's own, where the run read it.
	ReadFile func(file string) ([]byte, error)
	// Version is replaylab's version, for meta ("": the module version
	// the binary was built at, else "devel").
	Version string
}

// WriteMessages writes r as Cucumber Messages NDJSON.
func WriteMessages(w io.Writer, r *Run, opt MessageOptions) error {
	mw := &msgWriter{w: w, run: r, opt: opt}
	err := mw.write()
	if err != nil && !errors.Is(err, ErrMessagesSource) {
		return fmt.Errorf("report: messages: %w", err)
	}
	return err
}

type msgWriter struct {
	w   io.Writer
	run *Run
	opt MessageOptions
	err error
	id  int
}

func (m *msgWriter) newID() string {
	m.id++
	return strconv.Itoa(m.id)
}

func (m *msgWriter) emit(e *messages.Envelope) {
	if m.err != nil {
		return
	}
	data, err := json.Marshal(e)
	if err != nil {
		m.err = err
		return
	}
	data = append(data, '\n')
	_, m.err = m.w.Write(data)
}

// parsedFeature is one feature file read again: its pickles by the
// scenario id (file:line) the model uses.
type parsedFeature struct {
	pickles map[int]*messages.Pickle // by scenario or example row line
}

func (m *msgWriter) write() error {
	r := m.run
	m.emit(&messages.Envelope{Meta: meta(m.opt.Version)})

	// sources, documents and the pickles that ran, file by file
	features := map[string]*parsedFeature{}
	var order []string
	for _, sc := range r.Scenarios {
		if _, ok := features[sc.File]; !ok {
			features[sc.File] = nil
			order = append(order, sc.File)
		}
	}
	pickleOf := map[*Scenario]*messages.Pickle{}
	for _, file := range order {
		pf, doc, src, err := m.parse(file)
		if err != nil {
			return err
		}
		features[file] = pf
		m.emit(&messages.Envelope{Source: &messages.Source{Uri: file, Data: src, MediaType: mediaGherkin}})
		m.emit(&messages.Envelope{GherkinDocument: doc})
		emitted := map[string]bool{}
		for _, sc := range r.Scenarios {
			if sc.File != file {
				continue
			}
			p := pf.pickles[sc.Line]
			if p == nil {
				return fmt.Errorf("%w: %s has no scenario or example row at line %d any more (re-run, or write the report from the run)", ErrMessagesSource, file, sc.Line)
			}
			pickleOf[sc] = p
			if !emitted[p.Id] {
				emitted[p.Id] = true
				m.emit(&messages.Envelope{Pickle: p})
			}
		}
	}

	// step definitions (those the run matched) and the after-scenario check
	defIDs := map[string]string{} // pattern \x00 location -> id
	for _, sc := range r.Scenarios {
		for _, a := range sc.Attempts {
			for _, st := range a.Steps {
				if st.Pattern == "" {
					continue
				}
				k := st.Pattern + "\x00" + st.Location
				if _, ok := defIDs[k]; ok {
					continue
				}
				id := m.newID()
				defIDs[k] = id
				m.emit(&messages.Envelope{StepDefinition: &messages.StepDefinition{Id: id,
					Pattern:         &messages.StepDefinitionPattern{Source: st.Pattern, Type: messages.StepDefinitionPatternType_REGULAR_EXPRESSION},
					SourceReference: sourceRef(st.Location)}})
			}
		}
	}
	hookID := ""
	for _, sc := range r.Scenarios {
		for _, a := range sc.Attempts {
			if a.AfterError != "" && hookID == "" {
				hookID = m.newID()
				m.emit(&messages.Envelope{Hook: &messages.Hook{Id: hookID, Name: "replaylab: golden trace and recorded session check",
					Type: messages.HookType_AFTER_TEST_CASE, SourceReference: &messages.SourceReference{Uri: checkURI}}})
			}
		}
	}

	runID := m.newID()
	started := r.Started
	if started.IsZero() {
		started = time.Unix(0, 0).UTC()
	}
	m.emit(&messages.Envelope{TestRunStarted: &messages.TestRunStarted{Id: runID, Timestamp: ts(started)}})

	// test cases: one a scenario (and repetition)
	type tcase struct {
		id    string
		steps []string // test step ids, one a pickle step
		pick  []string // the pickle step ids
		hook  string   // the after-scenario check's test step id
	}
	cases := make([]tcase, len(r.Scenarios))
	for i, sc := range r.Scenarios {
		p := pickleOf[sc]
		tc := &messages.TestCase{Id: m.newID(), PickleId: p.Id, TestRunStartedId: runID, TestSteps: []*messages.TestStep{}}
		cases[i].id = tc.Id
		var model []*Step
		if len(sc.Attempts) > 0 {
			model = sc.Attempts[0].Steps
		}
		if len(model) != len(p.Steps) {
			return fmt.Errorf("%w: %s has %d steps in %s, the run had %d (re-run, or write the report from the run)", ErrMessagesSource, sc.ID, len(p.Steps), sc.File, len(model))
		}
		for j, ps := range p.Steps {
			ts := &messages.TestStep{Id: m.newID(), PickleStepId: ps.Id, StepDefinitionIds: []string{}, StepMatchArgumentsLists: []*messages.StepMatchArgumentsList{}}
			if id, ok := defIDs[model[j].Pattern+"\x00"+model[j].Location]; ok && model[j].Pattern != "" {
				ts.StepDefinitionIds = []string{id}
				ts.StepMatchArgumentsLists = matchArguments(model[j].Pattern, ps.Text)
			}
			tc.TestSteps = append(tc.TestSteps, ts)
			cases[i].steps = append(cases[i].steps, ts.Id)
			cases[i].pick = append(cases[i].pick, ps.Id)
		}
		if hookID != "" && hasAfterError(sc) {
			ts := &messages.TestStep{Id: m.newID(), HookId: hookID}
			tc.TestSteps = append(tc.TestSteps, ts)
			cases[i].hook = ts.Id
		}
		m.emit(&messages.Envelope{TestCase: tc})
	}

	// attempts
	end := started
	for i, sc := range r.Scenarios {
		tc := cases[i]
		for n, a := range sc.Attempts {
			at := a.Started
			if at.IsZero() {
				at = started
			}
			sid := m.newID()
			m.emit(&messages.Envelope{TestCaseStarted: &messages.TestCaseStarted{Id: sid, TestCaseId: tc.id, Attempt: int64(n), Timestamp: ts(at)}})
			clock := at
			for j, st := range a.Steps {
				m.emit(&messages.Envelope{TestStepStarted: &messages.TestStepStarted{TestCaseStartedId: sid, TestStepId: tc.steps[j], Timestamp: ts(clock)}})
				if st.Status == Undefined && len(st.Suggestions) > 0 {
					sg := &messages.Suggestion{Id: m.newID(), PickleStepId: tc.pick[j]}
					for _, x := range st.Suggestions {
						sg.Snippets = append(sg.Snippets, &messages.Snippet{Language: "gherkin", Code: x.Example + " # " + x.Meaning})
					}
					m.emit(&messages.Envelope{Suggestion: sg})
				}
				if html, name, ok := m.stepCapture(sc, a, n, j, st); ok {
					m.emit(&messages.Envelope{Attachment: &messages.Attachment{Body: html, ContentEncoding: messages.AttachmentContentEncoding_IDENTITY,
						MediaType: MediaCapture, FileName: name, TestCaseStartedId: sid, TestStepId: tc.steps[j], Timestamp: ts(clock)}})
				}
				clock = clock.Add(time.Duration(st.Duration))
				m.emit(&messages.Envelope{TestStepFinished: &messages.TestStepFinished{TestCaseStartedId: sid, TestStepId: tc.steps[j],
					TestStepResult: stepResult(st.Status, st.Error, st.Duration), Timestamp: ts(clock)}})
			}
			if tc.hook != "" {
				m.emit(&messages.Envelope{TestStepStarted: &messages.TestStepStarted{TestCaseStartedId: sid, TestStepId: tc.hook, Timestamp: ts(clock)}})
				status := Passed
				if a.AfterError != "" {
					status = Failed
					if a.GoldenDiff != "" {
						m.emit(&messages.Envelope{Attachment: &messages.Attachment{Body: a.GoldenDiff, ContentEncoding: messages.AttachmentContentEncoding_IDENTITY,
							MediaType: MediaDiff, FileName: goldenName(sc), TestCaseStartedId: sid, TestStepId: tc.hook, Timestamp: ts(clock)}})
					}
				}
				m.emit(&messages.Envelope{TestStepFinished: &messages.TestStepFinished{TestCaseStartedId: sid, TestStepId: tc.hook,
					TestStepResult: stepResult(status, a.AfterError, 0), Timestamp: ts(clock)}})
			}
			done := at.Add(time.Duration(a.Duration))
			if done.Before(clock) {
				done = clock
			}
			if done.After(end) {
				end = done
			}
			retried := n < len(sc.Attempts)-1
			m.emit(&messages.Envelope{TestCaseFinished: &messages.TestCaseFinished{TestCaseStartedId: sid, WillBeRetried: retried, Timestamp: ts(done)}})
		}
	}
	if d := started.Add(time.Duration(r.Duration)); d.After(end) {
		end = d
	}
	m.emit(&messages.Envelope{TestRunFinished: &messages.TestRunFinished{TestRunStartedId: runID, Success: r.OK(false), Timestamp: ts(end)}})
	return m.err
}

// checkURI is where the after-scenario check lives (the hook's source).
const checkURI = "harness/runner.go"

// parse reads a feature file again with the gherkin parser.
func (m *msgWriter) parse(file string) (*parsedFeature, *messages.GherkinDocument, string, error) {
	read := m.opt.ReadFile
	if read == nil {
		read = func(file string) ([]byte, error) {
			return os.ReadFile(filepath.Join(m.opt.Root, filepath.FromSlash(file)))
		}
	}
	src, err := read(file)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%w: %v (write the message report from the project root the run used)", ErrMessagesSource, err)
	}
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(src), m.newID)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%w: %s: %v", ErrMessagesSource, file, err)
	}
	doc.Uri = file
	lines := map[string]int{}
	indexLines(doc, lines)
	pf := &parsedFeature{pickles: map[int]*messages.Pickle{}}
	for _, p := range gherkin.Pickles(*doc, file, m.newID) {
		ids := p.AstNodeIds
		if len(ids) == 0 {
			continue
		}
		pf.pickles[lines[ids[len(ids)-1]]] = p // an outline's row, or the scenario
	}
	return pf, doc, string(src), nil
}

// indexLines maps the ids of scenarios and example rows to their lines.
func indexLines(doc *messages.GherkinDocument, lines map[string]int) {
	if doc.Feature == nil {
		return
	}
	scenario := func(sc *messages.Scenario) {
		lines[sc.Id] = int(sc.Location.Line)
		for _, ex := range sc.Examples {
			for _, row := range ex.TableBody {
				lines[row.Id] = int(row.Location.Line)
			}
		}
	}
	for _, c := range doc.Feature.Children {
		if c.Scenario != nil {
			scenario(c.Scenario)
		}
		if c.Rule != nil {
			for _, rc := range c.Rule.Children {
				if rc.Scenario != nil {
					scenario(rc.Scenario)
				}
			}
		}
	}
}

// stepCapture is the HTML of the last capture step j of attempt n read on
// the main tab, when the run kept sessions.
func (m *msgWriter) stepCapture(sc *Scenario, a *Attempt, n, j int, st *Step) (string, string, bool) {
	if len(a.Recordings) == 0 || m.run.Sessions == nil {
		return "", "", false
	}
	sess := m.run.Sessions[a.Recordings[0].Key]
	if sess == nil {
		return "", "", false
	}
	last := -1
	for k := st.SessionFrom; k < st.SessionTo && k < len(sess.Steps); k++ {
		if c := sess.Steps[k].Capture; c >= 0 {
			last = c
		}
	}
	if last < 0 {
		return "", "", false
	}
	html, err := m.run.CaptureHTML(last, 0)
	if err != nil {
		return "", "", false
	}
	slug := sc.Slug
	if slug == "" {
		slug = strings.NewReplacer("/", "-", ":", "-").Replace(sc.ID)
	}
	return html, fmt.Sprintf("%s-attempt%d-step%d.html", slug, n+1, j+1), true
}

func hasAfterError(sc *Scenario) bool {
	for _, a := range sc.Attempts {
		if a.AfterError != "" {
			return true
		}
	}
	return false
}

func goldenName(sc *Scenario) string {
	if sc.Slug != "" {
		return sc.Slug + ".golden.diff"
	}
	return "golden.diff"
}

// sourceRef reads a step location "file:line" as a source reference.
func sourceRef(loc string) *messages.SourceReference {
	if loc == "" {
		return &messages.SourceReference{}
	}
	file, line := loc, ""
	if i := strings.LastIndex(loc, ":"); i >= 0 {
		file, line = loc[:i], loc[i+1:]
	}
	ref := &messages.SourceReference{Uri: path.Clean(file)}
	if n, err := strconv.Atoi(line); err == nil {
		ref.Location = &messages.Location{Line: int64(n)}
	}
	return ref
}

// matchArguments are the groups of pattern in text, for the test step.
func matchArguments(pattern, text string) []*messages.StepMatchArgumentsList {
	args := []*messages.StepMatchArgument{}
	if re, err := regexp.Compile(pattern); err == nil {
		if idx := re.FindStringSubmatchIndex(text); idx != nil {
			for g := 1; g < len(idx)/2; g++ {
				start, stop := idx[2*g], idx[2*g+1]
				if start < 0 {
					continue
				}
				args = append(args, &messages.StepMatchArgument{Group: &messages.Group{Start: int64(start), Value: text[start:stop], Children: []*messages.Group{}}})
			}
		}
	}
	return []*messages.StepMatchArgumentsList{{StepMatchArguments: args}}
}

func stepResult(s Status, msg string, d Duration) *messages.TestStepResult {
	dur := messages.GoDurationToDuration(time.Duration(d))
	res := &messages.TestStepResult{Duration: &dur, Status: msgStatus(s), Message: msg}
	if res.Status == messages.TestStepResultStatus_FAILED && msg != "" {
		first, _, _ := strings.Cut(msg, "\n")
		res.Exception = &messages.Exception{Type: "replaylab.Error", Message: first}
	}
	return res
}

func msgStatus(s Status) messages.TestStepResultStatus {
	switch s {
	case Passed:
		return messages.TestStepResultStatus_PASSED
	case Failed:
		return messages.TestStepResultStatus_FAILED
	case Skipped:
		return messages.TestStepResultStatus_SKIPPED
	case Undefined:
		return messages.TestStepResultStatus_UNDEFINED
	case Pending:
		return messages.TestStepResultStatus_PENDING
	case Ambiguous:
		return messages.TestStepResultStatus_AMBIGUOUS
	}
	return messages.TestStepResultStatus_UNKNOWN
}

func ts(t time.Time) *messages.Timestamp {
	v := messages.GoTimeToTimestamp(t)
	return &v
}

func meta(version string) *messages.Meta {
	if version == "" {
		version = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
	}
	m := &messages.Meta{ProtocolVersion: MessagesProtocolVersion,
		Implementation: &messages.Product{Name: "replaylab", Version: version},
		Runtime:        &messages.Product{Name: "go", Version: strings.TrimPrefix(runtime.Version(), "go")},
		Os:             &messages.Product{Name: runtime.GOOS},
		Cpu:            &messages.Product{Name: runtime.GOARCH}}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		m.Ci = &messages.Ci{Name: "GitHub Actions", BuildNumber: os.Getenv("GITHUB_RUN_ID")}
		if rev := os.Getenv("GITHUB_SHA"); rev != "" {
			m.Ci.Git = &messages.Git{Remote: os.Getenv("GITHUB_SERVER_URL") + "/" + os.Getenv("GITHUB_REPOSITORY"), Revision: rev, Branch: os.Getenv("GITHUB_REF_NAME")}
		}
	}
	return m
}
