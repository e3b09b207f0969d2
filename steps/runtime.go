package steps

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/replaylab/replaylab/internal/procs"
)

// What the scenarios of every group need from the machine, kept out of the
// step files: the `replaylab mcp` command (built from the checkout when
// the fixture is not told which binary to start) and the PostgreSQL
// server of PostgresURLEnv. The live sim's lifecycle is the world's
// (startSim, goLive) and the browser's and the pool's the fixture's
// (sharedBrowser).

// PostgresURLEnv names the PostgreSQL server for "postgres" scenarios.
const PostgresURLEnv = "REPLAYLAB_PG_URL"

// mcpCommand is the command that starts `replaylab mcp`: Options.MCPCommand,
// else the binary of the module at the run's root, built once per process
// (procs.Binary).
func (w *world) mcpCommand() ([]string, error) { return w.fx.mcpCommand(w.sc.Root()) }

func (f *Fixture) mcpCommand(root string) ([]string, error) {
	if c := f.opt.MCPCommand; len(c) > 0 {
		return append([]string(nil), c...), nil
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	bin, err := procs.Binary(root)
	if err != nil {
		return nil, fmt.Errorf("steps: the MCP scenarios: %w", err)
	}
	return []string{bin, "mcp"}, nil
}

// needPostgres returns the PostgreSQL server of PostgresURLEnv. Without
// one the scenario is skipped with a visible message, or fails in CI
// (CI=true); who names the steps in the error, purpose ends the hint
// ("to explore on PostgreSQL").
func (w *world) needPostgres(who, purpose string) (string, error) {
	if u := os.Getenv(PostgresURLEnv); u != "" {
		return u, nil
	}
	msg := fmt.Sprintf("%s is not set; set it to postgres://user:pass@127.0.0.1:5432/db?sslmode=disable %s", PostgresURLEnv, purpose)
	if os.Getenv("CI") == "true" {
		return "", fmt.Errorf("%s: CI=true and %s: PostgreSQL scenarios are required in CI", who, msg)
	}
	return "", w.skip(fmt.Sprintf("SKIPPING %s: %s", w.slug, msg))
}
