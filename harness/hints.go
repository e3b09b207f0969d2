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
//	no recording (replay)      → COMMAND Fixes.RecordOnce PATH:LINE (live once; records and creates the golden)
//	recording of older steps   → COMMAND Fixes.Rerecord PATH:LINE (re-records it and rewrites its golden)
//	no golden                  → COMMAND [Fixes.Live] Fixes.RecordOnce PATH:LINE (creates what is missing, recording or not)
//	golden drift               → COMMAND [Fixes.Live] Fixes.Update PATH:LINE (rewrites the golden from this run's trace, after the diff is checked)
//	obsolete goldens, sessions → COMMAND Fixes.Prune (removes them, listing each)
//
// The flags are the embedding program's (Options.Fixes): the runner
// knows no command line of its own. A problem whose flags the program
// did not give gets no hint (the message says what is wrong, not a
// command the program lacks).

// FixFlags are the flags of the embedding program that fix each
// recording problem: the words after Options.Command in a hint.
type FixFlags struct {
	// RecordOnce records what a scenario is missing (its session, its
	// golden) and leaves what exists: replaylab's "--mode record-once".
	RecordOnce []string
	// Rerecord records a scenario's session again live and rewrites its
	// golden: replaylab's "--driver browser --update".
	Rerecord []string
	// Update rewrites a golden from the run's trace: "--update".
	Update []string
	// Live goes before RecordOnce and Update when the run that failed
	// ran every scenario live, so the fix runs live too: replaylab's
	// "--driver browser".
	Live []string
	// Prune removes obsolete goldens and sessions: "--prune".
	Prune []string
}

// fix is "; VERB with: HINT", or "" when there is no hint.
func fix(verb, hint string) string {
	if hint == "" {
		return ""
	}
	return "; " + verb + " with: " + hint
}

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
	f := r.opt.Fixes
	var live []string
	if r.opt.Mode.AlwaysLive() {
		live = f.Live
	}
	with := func(flags []string) []string { return append(append([]string(nil), live...), flags...) }
	return Hints{
		Record:       r.hint(sc, f.RecordOnce),
		Rerecord:     r.hint(sc, f.Rerecord),
		CreateGolden: r.hint(sc, with(f.RecordOnce)),
		Update:       r.hint(sc, with(f.Update)),
	}
}

// hint is the command that reruns sc with flags, "" when the program
// gave none.
func (r *Runner) hint(sc Scenario, flags []string) string {
	if len(flags) == 0 {
		return ""
	}
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
	return []string{r.name()}
}

// name is the program's name in the runner's messages (Options.Name,
// default the running program's).
func (r *Runner) name() string {
	if r.opt.Name != "" {
		return r.opt.Name
	}
	return filepath.Base(os.Args[0])
}

// PruneHint is the command that removes obsolete goldens and sessions
// ("" when the program gave no Fixes.Prune).
func (r *Runner) PruneHint() string {
	if len(r.opt.Fixes.Prune) == 0 {
		return ""
	}
	words := append(append([]string(nil), r.command()...), r.opt.Fixes.Prune...)
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
