package harness

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Hints. Every failure a command can fix names that command, spelled for
// the project the user is in: the harness as the user invoked it
// (Options.Command), the flags that make it the same run
// (Options.HintFlags: --root, --seed, …) and the scenario's own path and
// line, relative to where the user stands (Options.HintDir). Each hint
// fixes exactly its situation, so running it and then the failing command
// again passes (features/harness.feature runs each one on a scratch
// project):
//
//	no recording (replay)      → run --mode record-once PATH:LINE (live once in Chromium; records and creates the golden)
//	recording of older steps   → run --driver browser --update PATH:LINE (re-records it and rewrites its golden)
//	no golden                  → run --mode record-once PATH:LINE (creates what is missing, recording or not)
//	golden drift               → run --update PATH:LINE (rewrites the golden from this run's trace, after the diff is checked)
//	obsolete goldens, sessions → run --prune (removes them, listing each)

// DefaultCommand is how hints spell the harness when Options.Command is
// empty: the installed binary.
var DefaultCommand = []string{"replaylab", "run"}

// Hints are the commands that fix a scenario's recording problems, each
// for exactly its situation.
type Hints struct {
	// Record: the scenario has no recording.
	Record string
	// Rerecord: the recording was made from other steps.
	Rerecord string
	// CreateGolden: the golden is missing.
	CreateGolden string
	// Update: the trace drifted from the golden.
	Update string
}

// hints are sc's hints in this run.
func (r *Runner) hints(sc Scenario) Hints {
	var driver []string
	if r.opt.Mode.AlwaysLive() {
		driver = []string{"--driver", DriverBrowser}
	}
	return Hints{
		Record:       r.hint(sc, "--mode", "record-once"),
		Rerecord:     r.hint(sc, "--driver", DriverBrowser, "--update"),
		CreateGolden: r.hint(sc, append(driver, "--mode", "record-once")...),
		Update:       r.hint(sc, append(driver, "--update")...),
	}
}

// hint is the command that reruns sc with flags.
func (r *Runner) hint(sc Scenario, flags ...string) string {
	words := append([]string(nil), r.command()...)
	words = append(words, flags...)
	words = append(words, r.opt.HintFlags...)
	words = append(words, r.hintPath(sc))
	return ShellJoin(words)
}

func (r *Runner) command() []string {
	if len(r.opt.Command) > 0 {
		return r.opt.Command
	}
	return DefaultCommand
}

// PruneHint is the command that removes obsolete goldens and sessions.
func (r *Runner) PruneHint() string {
	words := append(append([]string(nil), r.command()...), "--prune")
	return ShellJoin(append(words, r.opt.HintFlags...))
}

// hintPath is sc's file:line as the user would type it: relative to
// HintDir (default Dir, then the current directory).
func (r *Runner) hintPath(sc Scenario) string {
	line := ":" + strconv.Itoa(sc.Line)
	base := r.opt.HintDir
	if base == "" {
		base = r.opt.Dir
	}
	if base == "" {
		base, _ = os.Getwd()
	}
	abs, err := filepath.Abs(base)
	if err != nil || sc.Path == "" {
		return sc.URI + line
	}
	rel, err := filepath.Rel(abs, sc.Path)
	if err != nil {
		return sc.URI + line
	}
	return filepath.ToSlash(rel) + line
}

// ShellJoin joins words into a command line a POSIX shell reads back as
// the same words (single quotes where needed).
func ShellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellQuote(w)
	}
	return strings.Join(out, " ")
}

func shellQuote(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+%^", r)) {
			safe = false
			break
		}
	}
	if safe {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// ShellSplit reads a command line written by ShellJoin (words separated
// by spaces, single quotes grouping) back into words.
func ShellSplit(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted, escaped := false, false, false
	for _, r := range line {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quoted:
			if r == '\'' {
				quoted = false
			} else {
				cur.WriteRune(r)
			}
		case r == '\'':
			quoted, inWord = true, true
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
