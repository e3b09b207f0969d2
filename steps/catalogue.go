package steps

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/cucumber/godog"
)

// StepDef is one step of the catalogue: the pattern godog binds, what it
// means, and an example line a QA engineer can copy.
type StepDef struct {
	Group   string
	Pattern string
	Meaning string
	Example string
	Fn      any
}

// registry is filled by the step files' init functions; the catalogue and
// the godog bindings both read it, so the catalogue never goes stale.
var registry []StepDef

func step(group, pattern, meaning, example string, fn any) {
	registry = append(registry, StepDef{Group: group, Pattern: pattern, Meaning: meaning, Example: example, Fn: fn})
}

// Catalogue returns every registered step, grouped and in registration
// order.
func Catalogue() []StepDef {
	out := append([]StepDef(nil), registry...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}

// WriteCatalogue prints the catalogue as Markdown.
func WriteCatalogue(w io.Writer) error {
	group := ""
	for _, d := range Catalogue() {
		if d.Group != group {
			group = d.Group
			if _, err := fmt.Fprintf(w, "\n## %s\n\n", group); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "- `%s`\n  %s\n  Example: `%s`\n", d.Pattern, d.Meaning, d.Example); err != nil {
			return err
		}
	}
	return nil
}

// CheckCatalogue verifies every example matches its own pattern and no
// other, so the catalogue is unambiguous.
func CheckCatalogue() error {
	var problems []string
	for _, d := range registry {
		re, err := regexp.Compile(d.Pattern)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", d.Pattern, err))
			continue
		}
		if !re.MatchString(exampleText(d.Example)) {
			problems = append(problems, fmt.Sprintf("example %q does not match %s", d.Example, d.Pattern))
		}
		for _, o := range registry {
			if o.Pattern != d.Pattern && regexp.MustCompile(o.Pattern).MatchString(exampleText(d.Example)) {
				problems = append(problems, fmt.Sprintf("example %q also matches %s", d.Example, o.Pattern))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("steps: catalogue: %s", strings.Join(problems, "; "))
	}
	return nil
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
	for _, d := range registry {
		sc.Step(d.Pattern, d.Fn)
	}
}
