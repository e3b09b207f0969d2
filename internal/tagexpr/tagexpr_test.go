package tagexpr

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// readCases decodes one of the shared conformance files, unmodified copies
// of cucumber/tag-expressions' testdata (see testdata/README.md).
func readCases[T any](t *testing.T, name string) []T {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var cases []T
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no cases", name)
	}
	return cases
}

func TestConformanceParsing(t *testing.T) {
	t.Parallel()
	for _, c := range readCases[struct {
		Expression string `yaml:"expression"`
		Formatted  string `yaml:"formatted"`
	}](t, "parsing.yml") {
		t.Run(c.Expression, func(t *testing.T) {
			e, err := Parse(c.Expression)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.String(); got != c.Formatted {
				t.Fatalf("got %q, want %q", got, c.Formatted)
			}
			// the formatted form parses to itself
			again, err := Parse(e.String())
			if err != nil {
				t.Fatalf("the formatted form %q does not parse: %v", e.String(), err)
			}
			if again.String() != c.Formatted {
				t.Fatalf("formatted form reparsed as %q, want %q", again.String(), c.Formatted)
			}
		})
	}
}

func TestConformanceEvaluations(t *testing.T) {
	t.Parallel()
	for _, c := range readCases[struct {
		Expression string `yaml:"expression"`
		Tests      []struct {
			Variables []string `yaml:"variables"`
			Result    bool     `yaml:"result"`
		} `yaml:"tests"`
	}](t, "evaluations.yml") {
		t.Run(c.Expression, func(t *testing.T) {
			e, err := Parse(c.Expression)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range c.Tests {
				if got := e.Match(tc.Variables); got != tc.Result {
					t.Errorf("%v: got %v, want %v", tc.Variables, got, tc.Result)
				}
			}
		})
	}
}

func TestConformanceErrors(t *testing.T) {
	t.Parallel()
	for _, c := range readCases[struct {
		Expression string `yaml:"expression"`
		Error      string `yaml:"error"`
	}](t, "errors.yml") {
		t.Run(c.Expression, func(t *testing.T) {
			_, err := Parse(c.Expression)
			if err == nil {
				t.Fatalf("parsed; want error %q", c.Error)
			}
			if err.Error() != c.Error {
				t.Fatalf("got  %q\nwant %q", err.Error(), c.Error)
			}
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("%T is not a *SyntaxError wrapping ErrSyntax", err)
			}
		})
	}
}

// TestLegacy: godog's old forms keep their meaning.
func TestLegacy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr string
		tags       []string
		want       bool
	}{
		{"negation matches without the tag", "~@wip", []string{"@a"}, true},
		{"negation refuses the tag", "~@wip", []string{"@wip"}, false},
		{"and both", "@a && @b", []string{"@a", "@b"}, true},
		{"and one", "@a && @b", []string{"@a"}, false},
		{"comma is or", "@a,@b", []string{"@b"}, true},
		{"double bar is or", "@a || @b", []string{"@a"}, true},
		{"comma binds tighter than and", "@a,@b && @c", []string{"@a", "@c"}, true},
		{"comma group must hold", "@a,@b && @c", []string{"@c"}, false},
		{"negation inside and", "@ANS-3 && ~@wip", []string{"@ANS-3", "@wip"}, false},
		{"negation mixed with standard", "@a and ~@b", []string{"@a"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Parse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Match(tc.tags); got != tc.want {
				t.Fatalf("%q on %v: got %v, want %v (parsed as %s)", tc.expr, tc.tags, got, tc.want, e)
			}
		})
	}
}

// TestInvalid: the inputs of issue 13 that godog's matcher let through or
// panicked on are syntax errors.
func TestInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, expr, want string }{
		{"dangling legacy and", "@ANS-5 &&", `Tag expression "@ANS-5 &&" could not be parsed because of syntax error: Expected operand.`},
		{"unclosed parenthesis", "(@ANS-5", `Tag expression "(@ANS-5" could not be parsed because of syntax error: Unmatched (.`},
		{"leading comma", ",@a", `Tag expression ",@a" could not be parsed because of syntax error: Expected operand.`},
		{"bare tilde", "~", `Tag expression "~" could not be parsed because of syntax error: Expected operand.`},
		{"trailing backslash", `@a\`, `Tag expression "@a\" could not be parsed because of syntax error: Illegal escape before "".`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.expr)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
}

// FuzzParse: no input panics; what parses prints a form that parses to
// the same form and selects the same tags.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "@a", "not @a", "@a and (@b or not @c)", `x\(1\) or y`, "@ANS-5 &&", "~@a,@b && @c", "((", "a ) (", `\`, "not not a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("%q: error %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		if isLegacy(e.String()) {
			// a literal holding a comma, && or a leading ~ has no standard
			// spelling; its form reads as godog's old syntax
			return
		}
		again, err := Parse(e.String())
		if err != nil {
			t.Fatalf("%q formats as %q, which does not parse: %v", s, e.String(), err)
		}
		if again.String() != e.String() {
			t.Fatalf("%q: %q reparses as %q", s, e.String(), again.String())
		}
		for _, tags := range [][]string{nil, {"@a"}, {"@a", "@b"}, {"a", "b", "c"}} {
			if e.Match(tags) != again.Match(tags) {
				t.Fatalf("%q and its form %q disagree on %v", s, e.String(), tags)
			}
		}
	})
}
