package steps

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/site"
	"github.com/replaylab/replaylab/harness"
)

// StepDef is one step of the catalogue (the runner's type).
type StepDef = harness.StepDef

// Step kinds.
const (
	KindAction = harness.KindAction // acts on the page; its result is kept (see "Actions and results")
	KindResult = harness.KindResult // checks the kept result of the last action
)

// table is one step group's table as its function builds it.
type table struct{ defs []StepDef }

// groups are the step tables, one function per group of steps; the
// catalogue and the godog bindings both read them, so the catalogue never
// goes stale.
func groups() []func(*table) {
	return []func(*table){
		actSteps, answerSteps, chatSteps, clockSteps,
		locateSteps, loopSteps,
		mcpSteps, observeSteps, recordingSteps,
		siteSteps, siteRefusalSteps, siteValidateSteps, vocabSteps, storageSteps, shadowSteps,
	}
}

// selfTestGroups are the vocabulary's own groups of the tool's
// self-tests: bound for features/ of this repository, left out of the QA
// catalogue (the other self-test groups are Groups marked SelfTest).
var selfTestGroups = map[string]bool{
	"MCP process": true,
}

// stepOpt adds catalogue facts to a step of a table.
type stepOpt = StepOpt

// needsSim marks a step that works on the built-in sim only.
func needsSim(d *StepDef) { d.NeedsSim = true }

// isAction marks a step that acts and keeps its result.
func isAction(d *StepDef) { d.Kind = KindAction }

// isResult marks a check of the last action's kept result.
func isResult(d *StepDef) { d.Kind = KindResult }

// readyWait is the default of every step that opens a page or waits for
// one to be ready.
var readyWait = fmt.Sprintf(`waits up to %d s for the page to be ready (a site profile's "ready.timeout_ms" sets another bound): its "ready" signal, else no request in flight and the DOM quiet; PAGE_NOT_READY names what was awaited`, int(engine.DefaultReadyTimeout/time.Second))

// defaults states a step's defaults and units.
func defaults(s string) stepOpt { return func(d *StepDef) { d.Defaults = s } }

// table gives the data table of a table step's example.
func withTable(rows ...string) stepOpt {
	return func(d *StepDef) { d.Table = strings.Join(rows, "\n") }
}

// loadsFile marks argument arg (0: the first capture) as the name of a
// file the step loads, relative to the project root: a dry run loads it
// with load (harness.FileArg).
func loadsFile(arg int, kind string, load func(root, path string) error) stepOpt {
	return func(d *StepDef) {
		d.Files = append(d.Files, harness.FileArg{Arg: arg, Kind: kind, Load: load})
	}
}

// loadProfile loads a site profile as "the site" does.
func loadProfile(root, path string) error {
	_, err := site.LoadIn(path, root)
	return err
}

// loadAdapter loads an adapter file as "the engine reads the chat with
// the adapter file" does.
func loadAdapter(root, path string) error {
	read := path
	if !filepath.IsAbs(path) {
		read = filepath.Join(root, path)
	}
	data, err := os.ReadFile(read)
	if err != nil {
		return fmt.Errorf("adapter file: %w", err)
	}
	_, err = adapter.ParseFile(data, path)
	return err
}

// step adds a step to the table.
func (t *table) step(group, pattern, meaning, example string, fn any, opts ...stepOpt) {
	d := StepDef{Group: group, Pattern: pattern, Meaning: meaning, Example: example, Fn: fn}
	for _, o := range opts {
		o(&d)
	}
	t.defs = append(t.defs, d)
}

// alias adds pattern as another wording of the step with the pattern of:
// the same function, meaning, kind and marks (filled in by
// harness.ResolveAliases, so the step may be in any table). Its own
// example must still match it alone.
func (t *table) alias(of, pattern, example string, fn any) {
	t.defs = append(t.defs, StepDef{Pattern: pattern, Example: example, AliasOf: of, Fn: fn})
}

// compiledStep is a catalogue step with its pattern compiled.
type compiledStep struct {
	StepDef
	re *regexp.Regexp
}

// catalogue is the vocabulary's own steps, compiled once.
func catalogue() []compiledStep {
	catalogueOnce.Do(func() { compiledSteps = compileSteps(nil) })
	return compiledSteps
}

var (
	catalogueOnce sync.Once
	compiledSteps []compiledStep // set once, never changed
)

// compileSteps builds the step tables, then those of extra: aliases
// resolved, every step of a group named "… (sim)" marked as the sim's,
// the self-test groups' steps marked, patterns compiled.
func compileSteps(extra []Group) []compiledStep {
	var t table
	for _, g := range groups() {
		g(&t)
	}
	for _, g := range extra {
		g.Steps(&Table{group: g, t: &t})
	}
	defs, err := harness.ResolveAliases(t.defs)
	if err != nil {
		panic("steps: " + err.Error())
	}
	out := make([]compiledStep, len(defs))
	for i, d := range defs {
		if strings.HasSuffix(d.Group, "(sim)") {
			d.NeedsSim = true // a group named "… (sim)" is the sim's
		}
		d.SelfTest = d.SelfTest || selfTestGroups[d.Group]
		out[i] = compiledStep{d, regexp.MustCompile(d.Pattern)}
	}
	return out
}

// defsOf is the steps of cs in table order.
func defsOf(cs []compiledStep) []StepDef {
	out := make([]StepDef, len(cs))
	for i, c := range cs {
		out[i] = c.StepDef
	}
	return out
}

// kindOf returns the kind of the step whose pattern matches text (a
// Group's steps have none).
func kindOf(text string) string {
	for _, d := range catalogue() {
		if d.re.MatchString(text) {
			return d.Kind
		}
	}
	return ""
}

// Catalogue returns every step of the vocabulary and of groups, grouped
// and in table order.
func Catalogue(groups ...Group) []StepDef { return harness.Grouped(defsOf(compiled(groups))) }

// compiled is the vocabulary's steps and those of groups.
func compiled(groups []Group) []compiledStep {
	if len(groups) == 0 {
		return catalogue()
	}
	return compileSteps(groups)
}

// CatalogueTitle and CatalogueIntro open the Markdown catalogue.
const CatalogueTitle = "replaylab step catalogue"

// CatalogueIntro is what every step family shares.
const CatalogueIntro = `Every step a feature file may use, generated from the registered steps.

Words used the same way everywhere: "a"/"an" both work, and counts take the
singular or the plural ("1 turn", "2 turns"). A role is a WAI-ARIA role
(button, link, textbox, …) and a name its exact accessible name. A target
is the ROLE "NAME" and may be narrowed, as the engine narrows a locator
(AGT-3): the 2nd button "Delete" (in page order), the button "Delete" in the
row "notes.txt" (or in the item "…": the table row or list item holding
that text), the button "Delete" near "notes.txt" (closest to that text).
"Sim" in a
step means the built-in sim: such steps are marked *sim only*; the others
work on any site.

Actions and results: every action step (fill, click, press, navigate, send)
keeps its result. When it ends with an engine code (TARGET_AMBIGUOUS,
OUTCOME_UNKNOWN, …) the step fails at once, unless a result check follows it
before the next action step: then the check decides. The result checks are
"the action ends with" (any code, "ok" when it succeeded), "the action is
refused with" (only refusals, where nothing reached the page: TARGET_*,
STALE_REF, MISSING_EXPECTATION, INVALID_EXPECTATION, TASK_BLOCKED,
TASK_FINISHED, PAGE_NOT_READY), and the refusal's count and descriptions. An alias is
another wording of a step and means exactly the same.
`

// CheckCatalogue verifies the catalogue of the vocabulary and groups
// (harness.CheckCatalogue).
func CheckCatalogue(groups ...Group) error {
	return harness.CheckCatalogue(defsOf(compiled(groups)))
}

// bind binds the fixture's steps to sc, the self-test steps only when
// they belong to the project (a QA project's run finds them undefined).
func (f *Fixture) bind(sc *godog.ScenarioContext) {
	defs := defsOf(f.steps)
	if !f.selfTests {
		defs = harness.QA(defs)
	}
	harness.Bind(sc, defs)
	bindActionModel(sc)
}
