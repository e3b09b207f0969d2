// Command replaylab runs the scenarios of features/ against the sim and the
// real engine, serves the sim, shows what the engine sees of a page, records
// live sessions, validates site adapters and serves the engine over MCP.
//
//	replaylab run [PATH…] [--driver replay|browser] [--tags EXPR] [--format F] [--update] [--mode replay|record-once|record] [--seed N] [--concurrency N]
//	replaylab sim [--addr 127.0.0.1:8088] [--seed N] [--db PATH|postgres://…] [--token TOKEN=NAME:ROLE …] [--fault-… P]
//	replaylab observe [--adapter NAME|FILE] [--view full|page] [--json] SOURCE
//	replaylab find --role ROLE [--name NAME] [--href URL] [--text TEXT] [--offset N] [--limit N] [--json] SOURCE
//	replaylab record --url URL --out DIR [--adapter A]
//	replaylab init [--send TEXT] [--out DIR] [--storage-state FILE] [--visible] URL | --from SESSION.json
//	replaylab validate --adapter A [--json FILE] DIR
//	replaylab mcp [--adapter A] [--http ADDR]
//	replaylab lsp [--root DIR]
//	replaylab steps [WORD…] [--format markdown|json]
//	replaylab explore [--seed S] [--seeds N] [--steps N] [--store sqlite|postgres] [--budget D] [--fault-… P] [--print]
//	replaylab merge-reports [--out DIR] [--allow-partial] DIR…
//
// Exit status: 0 success; 1 a scenario failed, drifted or was undefined, or
// a validation found a violation; 2 bad input (unknown flag or command,
// unreadable file, bad value).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1
	exitBadInput = 2
)

// usageError is bad input: it exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func badInput(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error)
}

var commands []command

func init() {
	commands = []command{
		{"run", "run feature files (default features/) and compare golden traces", cmdRun},
		{"sim", "serve the synthetic chat site on the loopback", cmdSim},
		{"zoo", "serve the zoo of real chat UI libraries from npm on the loopback", cmdZoo},
		{"observe", "print what the engine sees of an .html file, a capture or a URL", cmdObserve},
		{"find", "run a fresh find and print the resolve verdict", cmdFind},
		{"record", "record a live session of a page (captures after every burst of changes)", cmdRecord},
		{"init", "bring a chat site in with one command: open URL, send one message, infer and write its profile and adapter, validate them (--from SESSION.json: offline)", cmdInit},
		{"codegen", "turn a recorded session (--from SESSION.json) or what a person does on URL in a visible browser into a feature file of catalogue steps", cmdCodegen},
		{"validate", "check an adapter against recorded sessions (groups, boundaries, controls, id stability)", cmdValidate},
		{"steps", "print the step catalogue (filter by words; --format markdown|json)", cmdSteps},
		{"merge-reports", "merge the HTML reports (report.json) of shards into one HTML report, JUnit and Cucumber JSON", cmdMergeReports},
		{"mcp", "serve the engine's typed page operations as MCP tools on stdio", cmdMCP},
		{"lsp", "serve a language server for .feature files on stdio (completion, hover, diagnostics, definition)", cmdLSP},
		{"explore", "run the real ledger under seeded random schedules, check SPEC §3/§6 invariants, shrink a failure", cmdExplore},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitBadInput
		}
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			code, err := c.run(ctx, args[1:], stdout, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "replaylab %s: %v\n", c.name, err)
				var ue *usageError
				if errors.As(err, &ue) || errors.Is(err, flag.ErrHelp) {
					if errors.Is(err, flag.ErrHelp) {
						return exitOK
					}
					return exitBadInput
				}
				if code == exitOK {
					code = exitFailed
				}
			}
			return code
		}
	}
	fmt.Fprintf(stderr, "replaylab: unknown command %q\n", args[0])
	usage(stderr)
	return exitBadInput
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: replaylab COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nrun 'replaylab COMMAND -h' for a command's flags")
}

// parseInterleaved parses flags that may come before or after the
// positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, badInput("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("replaylab "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
