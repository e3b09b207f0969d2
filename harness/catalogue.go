package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strings"

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
	// SelfTest marks a step of the tool's own self-tests (nested runs,
	// shards, its explorer, its processes): bound for the project's own
	// features, left out of the QA catalogue (QA) and of suggestions.
	SelfTest bool `json:"selfTest,omitempty"`
	// Fn implements the step (what godog calls).
	Fn any `json:"-"`
	// Source is where the step's own function is declared ("file:line"
	// from the module root) when Fn is not it: a step a program lists
	// and recognises but binds elsewhere (steps.Unbound). Empty: Fn's.
	Source string `json:"-"`
	// Files are the arguments that name a file the step loads (a site
	// profile, an adapter): a dry run loads each (see DryRun).
	Files []FileArg `json:"-"`
}

// Step kinds.
const (
	KindAction = "action" // acts on the page; its result is kept (see "Actions and results")
	KindResult = "result" // checks the kept result of the last action
)

// ResolveAliases returns defs with every alias filled in from the step it
// is another wording of (group, kind, marks, defaults, table, and a
// meaning that names that step). It does not change defs.
func ResolveAliases(defs []StepDef) ([]StepDef, error) {
	byPattern := map[string]StepDef{}
	for _, d := range defs {
		if d.AliasOf == "" {
			byPattern[d.Pattern] = d
		}
	}
	out := make([]StepDef, len(defs))
	for i, d := range defs {
		if d.AliasOf != "" {
			o, ok := byPattern[d.AliasOf]
			if !ok {
				return nil, fmt.Errorf("harness: %s is an alias of the unregistered %s", d.Pattern, d.AliasOf)
			}
			d.Group, d.Kind, d.NeedsSim, d.Defaults, d.Table = o.Group, o.Kind, o.NeedsSim, o.Defaults, o.Table
			d.Meaning = "the same as `" + strings.Trim(o.Pattern, "^$") + "`"
		}
		out[i] = d
	}
	return out, nil
}

// QA returns defs without the self-test steps: the catalogue a QA
// engineer writes scenarios from.
func QA(defs []StepDef) []StepDef {
	var out []StepDef
	for _, d := range defs {
		if !d.SelfTest {
			out = append(out, d)
		}
	}
	return out
}

// Grouped returns defs sorted by group, in their order within a group
// (the order the catalogue lists them).
func Grouped(defs []StepDef) []StepDef {
	out := append([]StepDef(nil), defs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}

// Bind binds every step of defs to sc (a fixture's InitializeScenario
// calls it; the runner then points each binding at its own function's
// file and line).
func Bind(sc *godog.ScenarioContext, defs []StepDef) {
	for _, d := range defs {
		sc.Step(d.Pattern, d.Fn)
	}
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

// Catalogue is what WriteCatalogue prints: a title and an introduction
// (Markdown only) and the steps.
type Catalogue struct {
	Title string // default "Step catalogue"
	// Intro is Markdown: what every step family shares.
	Intro string
	Steps []StepDef
}

// WriteCatalogue prints the catalogue in a format: FormatMarkdown (the
// default, for readers) or FormatJSON (for editor plugins: every step
// with its pattern, meaning, example, defaults, kind and the file:line
// of the Go function implementing it).
func WriteCatalogue(w io.Writer, c Catalogue, format string) error {
	defs := c.Steps
	switch format {
	case "", FormatMarkdown:
		return writeMarkdown(w, c)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if defs == nil {
			defs = []StepDef{}
		}
		type jsonStep struct {
			StepDef
			Location string `json:"location,omitempty"`
		}
		steps := make([]jsonStep, len(defs))
		for i, d := range defs {
			loc := d.Source
			if loc == "" {
				loc = funcLocation(d.Fn)
			}
			steps[i] = jsonStep{d, loc}
		}
		return enc.Encode(struct {
			Version int        `json:"version"`
			Steps   []jsonStep `json:"steps"`
		}{CatalogueVersion, steps})
	}
	return fmt.Errorf("harness: unknown catalogue format %q (want markdown or json)", format)
}

func writeMarkdown(w io.Writer, c Catalogue) error {
	defs := c.Steps
	title := c.Title
	if title == "" {
		title = "Step catalogue"
	}
	var b strings.Builder
	b.WriteString("# " + title + "\n\n")
	b.WriteString(c.Intro)
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
func CheckCatalogue(defs []StepDef) error {
	var problems []string
	patterns := map[string]bool{}
	for _, d := range defs {
		patterns[d.Pattern] = true
	}
	for _, d := range defs {
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
		for _, o := range defs {
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
		return fmt.Errorf("harness: catalogue: %s", strings.Join(problems, "; "))
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
