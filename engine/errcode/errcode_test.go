package errcode_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/replay"
)

// TestAllListsEveryCode reads codes.go: every constant declared there is in
// All, once, and no two constants share a text.
func TestAllListsEveryCode(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []errcode.Code
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				lit := v.(*ast.BasicLit)
				declared = append(declared, errcode.Code(lit.Value[1:len(lit.Value)-1]))
			}
		}
	}
	all := errcode.All()
	if len(declared) != len(all) {
		t.Fatalf("codes.go declares %d codes, All lists %d", len(declared), len(all))
	}
	seen := map[errcode.Code]bool{}
	for _, c := range all {
		if seen[c] {
			t.Errorf("%s is listed twice", c)
		}
		seen[c] = true
		if !slices.Contains(declared, c) {
			t.Errorf("All lists %s, codes.go does not declare it", c)
		}
	}
}

// TestEveryCodeInEveryCarrier: for every code and every error type that
// carries one, errors.Is and errcode.Of see the code through %w wrapping,
// errors.As finds the carrier, and another code does not match.
func TestEveryCodeInEveryCarrier(t *testing.T) {
	t.Parallel()
	carriers := []struct {
		name string
		wrap func(errcode.Code) error
		as   func(error) bool
	}{
		{"bare code", func(c errcode.Code) error { return c }, func(err error) bool {
			var c errcode.Code
			return errors.As(err, &c)
		}},
		{"engine.Error", func(c errcode.Code) error { return &engine.Error{Code: c, Op: "click"} }, func(err error) bool {
			var e *engine.Error
			return errors.As(err, &e)
		}},
		{"locate.Error", func(c errcode.Code) error { return &locate.Error{Code: c} }, func(err error) bool {
			var e *locate.Error
			return errors.As(err, &e)
		}},
		{"mcp.Error", func(c errcode.Code) error { return &mcp.Error{Tool: "click", ToolError: mcp.ToolError{Code: c}} }, func(err error) bool {
			var e *mcp.Error
			return errors.As(err, &e)
		}},
		{"engine.Error around locate.Error", func(c errcode.Code) error {
			return &engine.Error{Code: c, Op: "fill", Err: &locate.Error{Code: errcode.TargetNotFound}}
		}, func(err error) bool {
			var e *engine.Error
			return errors.As(err, &e)
		}},
	}
	for _, cr := range carriers {
		for _, c := range errcode.All() {
			t.Run(cr.name+"/"+string(c), func(t *testing.T) {
				err := fmt.Errorf("outer: %w", cr.wrap(c))
				if got := errcode.Of(err); got != c {
					t.Errorf("errcode.Of: got %q, want %q", got, c)
				}
				if !errors.Is(err, c) {
					t.Errorf("errors.Is(%v, %s) is false", err, c)
				}
				other := errcode.Internal
				if c == other {
					other = errcode.NotFound
				}
				if errors.Is(err, other) {
					t.Errorf("errors.Is(%v, %s) is true", err, other)
				}
				if !cr.as(err) {
					t.Errorf("errors.As does not find the %s in %v", cr.name, err)
				}
			})
		}
	}
}

func TestReplayDiverged(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("step: %w", &replay.DivergedError{Step: 3, Field: "node", Want: "n1", Got: "n2"})
	var de *replay.DivergedError
	if !errors.Is(err, replay.Code) || !errors.Is(err, errcode.ReplayDiverged) || errcode.Of(err) != errcode.ReplayDiverged || !errors.As(err, &de) {
		t.Fatalf("got Of=%q for %v", errcode.Of(err), err)
	}
	if errors.Is(err, errcode.TargetNotFound) {
		t.Fatal("a divergence matches TARGET_NOT_FOUND")
	}
}

func TestOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		want, orIn errcode.Code
	}{
		{"nil", nil, "", ""},
		{"uncoded", errors.New("boom"), "", errcode.Internal},
		{"wrapped uncoded", fmt.Errorf("a: %w", errors.New("boom")), "", errcode.Internal},
		{"bare", errcode.StaleRef, errcode.StaleRef, errcode.StaleRef},
		{"outermost carrier wins", &engine.Error{Code: errcode.InvalidArgument, Err: &locate.Error{Code: errcode.InvalidLocator}}, errcode.InvalidArgument, errcode.InvalidArgument},
		{"joined", errors.Join(errors.New("x"), errcode.NoWinner), errcode.NoWinner, errcode.NoWinner},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errcode.Of(tt.err); got != tt.want {
				t.Errorf("Of: got %q, want %q", got, tt.want)
			}
			if got := errcode.OfOr(tt.err, errcode.Internal); got != tt.orIn {
				t.Errorf("OfOr: got %q, want %q", got, tt.orIn)
			}
		})
	}
}

// TestErrorText: the texts that reach goldens, problem documents and MCP
// payloads.
func TestErrorText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"bare code", errcode.TargetAmbiguous, "TARGET_AMBIGUOUS"},
		{"engine", &engine.Error{Code: engine.OutcomeUnknown, Op: "click", Detail: "expected new_answer did not happen in time; the task is blocked"},
			"engine: click: OUTCOME_UNKNOWN: expected new_answer did not happen in time; the task is blocked"},
		{"locate", &locate.Error{Code: locate.TargetAmbiguous, Locator: locate.Locator{Role: "button", Name: "Send"}, Count: 2},
			`locate: TARGET_AMBIGUOUS for role=button name="Send": 2 matches`},
		{"mcp", &mcp.Error{Tool: "click", ToolError: mcp.ToolError{Code: mcp.CallTimeout, Message: "no answer in time"}}, "mcp: click: CALL_TIMEOUT: no answer in time"},
		{"fmt %s %q %v", fmt.Errorf("%s %q %v", errcode.NoBaseline, errcode.NoBaseline, errcode.NoBaseline), `NO_BASELINE "NO_BASELINE" NO_BASELINE`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
