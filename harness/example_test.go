package harness_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/harness"
)

// greeter is a second team's vocabulary: two steps and a trace.
type greeter struct{}

type traceKey struct{}

func (greeter) Catalogue() []harness.StepDef {
	return []harness.StepDef{
		{Group: "Greeting", Pattern: `^a visitor called "([^"]*)"$`, Meaning: "the visitor's name",
			Example: `Given a visitor called "Ada"`, Fn: func(ctx context.Context, name string) context.Context {
				return context.WithValue(ctx, traceKey{}, "visitor "+name+"\n")
			}},
		{Group: "Greeting", Pattern: `^the greeting is "([^"]*)"$`, Meaning: "what the visitor is greeted with",
			Example: `Then the greeting is "Hello, Ada"`, Fn: func(ctx context.Context, want string) (context.Context, error) {
				return context.WithValue(ctx, traceKey{}, ctx.Value(traceKey{}).(string)+"greeting "+want+"\n"), nil
			}},
	}
}

func (g greeter) InitializeScenario(sc *godog.ScenarioContext, s *harness.Scenario) {
	harness.Bind(sc, g.Catalogue())
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		trace, _ := ctx.Value(traceKey{}).(string)
		return ctx, s.Finish(harness.Outcome{Err: err, Trace: []byte(trace)})
	})
}

func (greeter) Close() error { return nil }

// A runner with a vocabulary of its own: the first run creates the golden
// (Update), the second compares with it.
func Example() {
	root, _ := os.MkdirTemp("", "harness-example-")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, "features"), 0o755)
	_ = os.WriteFile(filepath.Join(root, "features", "greet.feature"), []byte(`Feature: Greet
  Scenario: A visitor is greeted
    Given a visitor called "Ada"
    Then the greeting is "Hello, Ada"
`), 0o644)

	for _, update := range []bool{true, false} {
		r, err := harness.New(harness.Options{Root: root, Dir: root, Update: update, Format: "progress", Output: io.Discard}, greeter{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("exit", r.Run())
	}
	golden, _ := os.ReadFile(filepath.Join(root, "recordings", "golden", "greet", "a-visitor-is-greeted.golden"))
	fmt.Print(string(golden))
	// Output:
	// exit 0
	// exit 0
	// visitor Ada
	// greeting Hello, Ada
}
