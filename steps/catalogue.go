package steps

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	gherkin "github.com/cucumber/gherkin/go/v42"
	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"
)

// StepDef is one step of the catalogue: the pattern godog binds, what it
// means, and an example line a QA engineer can copy.
type StepDef struct {
	Group   string `json:"group"`
	Pattern string `json:"pattern"`
	Meaning string `json:"meaning"`
	Example string `json:"example"`
	// Table is the data table (or doc string) the example continues
	// with, one line each ("| role | name |"), for steps that take one.
	Table string `json:"table,omitempty"`
	// Defaults names the step's defaults with their units ("waits up to
	// 10 s for …").
	Defaults string `json:"defaults,omitempty"`
	// NeedsSim: the step scripts or reads the built-in sim (its chat
	// script, its counters or its paths) and refuses on another site. A
	// step of a group whose name ends in "(sim)" needs it too.
	NeedsSim bool `json:"needsSim"`
	// AliasOf is the pattern of the step this one means exactly the same
	// as; the catalogue lists it under that step.
	AliasOf string `json:"aliasOf,omitempty"`
	// Kind is "action" for steps that act on a page and keep their result,
	// "result" for the checks of a kept result, "" otherwise.
	Kind string `json:"kind,omitempty"`
	Fn   any    `json:"-"`

	re *regexp.Regexp
}

// Step kinds.
const (
	KindAction = "action" // acts on the page; its result is kept (see "Actions and results")
	KindResult = "result" // checks the kept result of the last action
)

// stepOpt adds catalogue facts to a step at registration.
type stepOpt func(*StepDef)

// needsSim marks a step that works on the built-in sim only.
func needsSim(d *StepDef) { d.NeedsSim = true }

// isAction marks a step that acts and keeps its result.
func isAction(d *StepDef) { d.Kind = KindAction }

// isResult marks a check of the last action's kept result.
func isResult(d *StepDef) { d.Kind = KindResult }

// defaults states a step's defaults and units.
func defaults(s string) stepOpt { return func(d *StepDef) { d.Defaults = s } }

// table gives the data table of a table step's example.
func table(rows ...string) stepOpt {
	return func(d *StepDef) { d.Table = strings.Join(rows, "\n") }
}

// registry is filled by the step files' init functions; the catalogue and
// the godog bindings both read it, so the catalogue never goes stale.
var registry []StepDef

func step(group, pattern, meaning, example string, fn any, opts ...stepOpt) {
	d := StepDef{Group: group, Pattern: pattern, Meaning: meaning, Example: example, Fn: fn}
	for _, o := range opts {
		o(&d)
	}
	registry = append(registry, d)
}

// alias registers pattern as another wording of the step registered with
// the pattern of: the same function, meaning, kind and marks (filled in on
// first use, so the step may be registered in any file). Its own example
// must still match it alone.
func alias(of, pattern, example string, fn any) {
	registry = append(registry, StepDef{Pattern: pattern, Example: example, AliasOf: of, Fn: fn})
}

var resolveOnce sync.Once

// compiled returns the registry with aliases resolved and every pattern
// compiled.
func compiled() []StepDef {
	resolveOnce.Do(func() {
		byPattern := map[string]StepDef{}
		for _, d := range registry {
			if d.AliasOf == "" {
				byPattern[d.Pattern] = d
			}
		}
		for i, d := range registry {
			if d.AliasOf != "" {
				o, ok := byPattern[d.AliasOf]
				if !ok {
					panic("steps: alias of an unregistered step " + d.AliasOf)
				}
				d.Group, d.Kind, d.NeedsSim, d.Defaults, d.Table = o.Group, o.Kind, o.NeedsSim, o.Defaults, o.Table
				d.Meaning = "the same as `" + strings.Trim(o.Pattern, "^$") + "`"
				registry[i] = d
			}
			if strings.HasSuffix(registry[i].Group, "(sim)") {
				registry[i].NeedsSim = true // a group named "… (sim)" is the sim's
			}
			registry[i].re = regexp.MustCompile(registry[i].Pattern)
		}
	})
	return registry
}

// kindOf returns the kind of the step whose pattern matches text.
func kindOf(text string) string {
	for _, d := range compiled() {
		if d.re.MatchString(text) {
			return d.Kind
		}
	}
	return ""
}

// Catalogue returns every registered step, grouped and in registration
// order.
func Catalogue() []StepDef {
	out := append([]StepDef(nil), compiled()...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}

// Filter keeps the steps whose group, pattern, meaning, example, table or
// defaults contain every word (case-insensitive; a word also matches its
// plural and a plural its singular: "video" finds "videos" and "videos"
// finds "video").
func Filter(defs []StepDef, words []string) []StepDef {
	if len(words) == 0 {
		return defs
	}
	var out []StepDef
	for _, d := range defs {
		hay := strings.ToLower(strings.Join([]string{d.Group, d.Pattern, d.Meaning, d.Example, d.Table, d.Defaults}, "\n"))
		ok := true
		for _, w := range words {
			w = strings.ToLower(w)
			if !strings.Contains(hay, w) && (len(w) < 4 || !strings.HasSuffix(w, "s") || !strings.Contains(hay, w[:len(w)-1])) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, d)
		}
	}
	return out
}

// Catalogue formats.
const (
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// CatalogueVersion is the version of the JSON catalogue's shape.
const CatalogueVersion = 1

// catalogueIntro opens the Markdown catalogue: what every step family
// shares.
const catalogueIntro = `Every step a feature file may use, generated from the registered steps.

Words used the same way everywhere: "a"/"an" both work, and counts take the
singular or the plural ("1 turn", "2 turns"). A role is a WAI-ARIA role
(button, link, textbox, …) and a name its exact accessible name. "Sim" in a
step means the built-in sim: such steps are marked *sim only*; the others
work on any site.

Actions and results: every action step (fill, click, press, navigate, send)
keeps its result. When it ends with an engine code (TARGET_AMBIGUOUS,
OUTCOME_UNKNOWN, …) the step fails at once, unless a result check follows it
before the next action step: then the check decides. The result checks are
"the action ends with" (any code, "ok" when it succeeded), "the action is
refused with" (only refusals, where nothing reached the page: TARGET_*,
STALE_REF, MISSING_EXPECTATION, INVALID_EXPECTATION, TASK_BLOCKED,
TASK_FINISHED), and the refusal's count and descriptions. An alias is
another wording of a step and means exactly the same.
`

// WriteCatalogue prints defs in a format: FormatMarkdown (the default,
// for readers) or FormatJSON (for editor plugins).
func WriteCatalogue(w io.Writer, defs []StepDef, format string) error {
	switch format {
	case "", FormatMarkdown:
		return writeMarkdown(w, defs)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if defs == nil {
			defs = []StepDef{}
		}
		return enc.Encode(struct {
			Version int       `json:"version"`
			Steps   []StepDef `json:"steps"`
		}{CatalogueVersion, defs})
	}
	return fmt.Errorf("steps: unknown catalogue format %q (want markdown or json)", format)
}

func writeMarkdown(w io.Writer, defs []StepDef) error {
	var b strings.Builder
	b.WriteString("# replaylab step catalogue\n\n")
	b.WriteString(catalogueIntro)
	aliases := map[string][]StepDef{}
	listed := map[string]bool{}
	for _, d := range defs {
		listed[d.Pattern] = true
	}
	for _, d := range defs {
		if d.AliasOf != "" && listed[d.AliasOf] {
			aliases[d.AliasOf] = append(aliases[d.AliasOf], d)
		}
	}
	group := ""
	for _, d := range defs {
		if d.AliasOf != "" && listed[d.AliasOf] {
			continue // listed under its step
		}
		if d.Group != group {
			group = d.Group
			fmt.Fprintf(&b, "\n## %s\n\n", group)
		}
		fmt.Fprintf(&b, "- `%s`", d.Pattern)
		var marks []string
		if d.NeedsSim {
			marks = append(marks, "sim only")
		}
		switch d.Kind {
		case KindAction:
			marks = append(marks, "action: keeps its result")
		case KindResult:
			marks = append(marks, "result check")
		}
		if len(marks) > 0 {
			fmt.Fprintf(&b, " (*%s*)", strings.Join(marks, ", "))
		}
		fmt.Fprintf(&b, "\n  %s\n", d.Meaning)
		if d.Defaults != "" {
			fmt.Fprintf(&b, "  Defaults: %s\n", d.Defaults)
		}
		fmt.Fprintf(&b, "  Example: `%s`\n", d.Example)
		if d.Table != "" {
			for row := range strings.SplitSeq(d.Table, "\n") {
				fmt.Fprintf(&b, "      %s\n", row)
			}
		}
		for _, a := range aliases[d.Pattern] {
			fmt.Fprintf(&b, "  Alias: `%s` (example: `%s`)\n", a.Pattern, a.Example)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CheckCatalogue verifies every example parses as one Gherkin step (with
// its table) and matches its own pattern and no other, that a table step shows its table and that an alias names a
// registered step, so the catalogue is unambiguous.
func CheckCatalogue() error {
	var problems []string
	patterns := map[string]bool{}
	for _, d := range compiled() {
		patterns[d.Pattern] = true
	}
	for _, d := range registry {
		re, err := regexp.Compile(d.Pattern)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", d.Pattern, err))
			continue
		}
		if err := parsesAsStep(d); err != nil {
			problems = append(problems, err.Error())
		}
		if !re.MatchString(exampleText(d.Example)) {
			problems = append(problems, fmt.Sprintf("example %q does not match %s", d.Example, d.Pattern))
		}
		for _, o := range registry {
			if o.Pattern != d.Pattern && regexp.MustCompile(o.Pattern).MatchString(exampleText(d.Example)) {
				problems = append(problems, fmt.Sprintf("example %q also matches %s", d.Example, o.Pattern))
			}
		}
		if takesTable(d.Fn) && d.Table == "" {
			problems = append(problems, fmt.Sprintf("%s takes a table but its example shows none", d.Pattern))
		}
		if d.AliasOf != "" && !patterns[d.AliasOf] {
			problems = append(problems, fmt.Sprintf("%s is an alias of the unregistered %s", d.Pattern, d.AliasOf))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("steps: catalogue: %s", strings.Join(problems, "; "))
	}
	return nil
}

// parsesAsStep checks that d's example, with its table, is one Gherkin
// step of a scenario: a keyword, the text, and a data table when it shows
// one.
func parsesAsStep(d StepDef) error {
	var b strings.Builder
	b.WriteString("Feature: catalogue\n  Scenario: example\n    " + d.Example + "\n")
	if d.Table != "" {
		for row := range strings.SplitSeq(d.Table, "\n") {
			b.WriteString("      " + row + "\n")
		}
	}
	doc, err := gherkin.ParseGherkinDocument(strings.NewReader(b.String()), (&messages.Incrementing{}).NewId)
	if err != nil {
		return fmt.Errorf("example %q does not parse as a step: %v", d.Example, err)
	}
	var steps []*messages.Step
	for _, c := range doc.Feature.Children {
		if c.Scenario != nil {
			steps = append(steps, c.Scenario.Steps...)
		}
	}
	switch {
	case len(steps) != 1:
		return fmt.Errorf("example %q parses as %d steps, want 1 (does it start with Given, When, Then, And or But?)", d.Example, len(steps))
	case steps[0].Text != exampleText(d.Example):
		return fmt.Errorf("example %q parses as the step %q", d.Example, steps[0].Text)
	case d.Table != "" && steps[0].DataTable == nil:
		return fmt.Errorf("the table of example %q does not parse as a data table", d.Example)
	}
	return nil
}

// takesTable reports whether a step function takes a data table.
func takesTable(fn any) bool {
	t := reflect.TypeOf(fn)
	if t == nil || t.Kind() != reflect.Func || t.NumIn() == 0 {
		return false
	}
	return t.In(t.NumIn()-1) == reflect.TypeFor[*godog.Table]()
}

// exampleText strips the Gherkin keyword from an example line.
func exampleText(ex string) string {
	for _, kw := range []string{"Given ", "When ", "Then ", "And ", "But "} {
		if s, ok := strings.CutPrefix(ex, kw); ok {
			return s
		}
	}
	return ex
}

func bind(sc *godog.ScenarioContext) {
	for _, d := range compiled() {
		sc.Step(d.Pattern, d.Fn)
	}
	bindActionModel(sc)
	realLocations(sc) // godog would name the loops above for every step
}
