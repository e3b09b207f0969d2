package report

import (
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// GitHub Actions workflow commands: an ::error annotation for each
// failed, drifted or undefined scenario, on the line of the step that
// failed (the scenario's line for drift), with the fix-it hint the error
// carries; a ::warning for each flaky one; and a Markdown job summary
// appended to $GITHUB_STEP_SUMMARY. Values are escaped per the runner's
// grammar: in the message % \r \n, in a property also : and ,.

// GitHubOptions says where the annotated files are and where the summary
// goes.
type GitHubOptions struct {
	// Dir is the run's root relative to the workspace (the repository's
	// top), slash-separated; "" or "." when they are one.
	Dir string
	// SummaryPath is $GITHUB_STEP_SUMMARY; "" writes no summary.
	SummaryPath string
}

// EscapeData escapes a workflow command's message.
func EscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeProperty escapes a workflow command's property value.
func EscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Annotation is one workflow command.
type Annotation struct {
	Level   string // error, warning
	File    string
	Line    int
	Title   string
	Message string
}

// String is the command line, escaped.
func (a Annotation) String() string {
	return fmt.Sprintf("::%s file=%s,line=%d,title=%s::%s", a.Level, EscapeProperty(a.File), a.Line, EscapeProperty(a.Title), EscapeData(a.Message))
}

// Annotations are the workflow commands of r: one a failed, drifted,
// undefined or flaky scenario.
func Annotations(r *Run, opt GitHubOptions) []Annotation {
	var out []Annotation
	for _, sc := range r.Scenarios {
		last := sc.Last()
		file := sc.File
		if opt.Dir != "" && opt.Dir != "." {
			file = path.Join(opt.Dir, file)
		}
		a := Annotation{Level: "error", File: file, Line: sc.Line}
		switch sc.Status {
		case Flaky:
			a.Level, a.Title = "warning", "flaky: "+scenarioTitle(sc)
			var notes []string
			for n, at := range sc.Attempts {
				if at.Status == Failed {
					notes = append(notes, fmt.Sprintf("attempt %d of %d failed: %s", n+1, len(sc.Attempts), at.Error))
				}
			}
			a.Message = "passed on a retry; " + strings.Join(notes, "\n")
		case Undefined:
			a.Title = "undefined step: " + scenarioTitle(sc)
			for _, st := range last.Steps {
				if st.Status != Undefined {
					continue
				}
				a.Line = st.Line
				msg := fmt.Sprintf("no step definition matches %q", st.Text)
				if len(st.Suggestions) > 0 {
					msg += "\nclosest steps:"
					for _, s := range st.Suggestions {
						msg += "\n  " + s.Example + " (" + s.Meaning + ")"
					}
				}
				a.Message = msg + "\nlist every step with: replaylab steps"
				break
			}
		case Failed:
			a.Title = "failed: " + scenarioTitle(sc)
			if last.Drift {
				a.Title = "golden drift: " + scenarioTitle(sc)
			} else {
				for _, st := range last.Steps {
					if st.Status == Failed || st.Status == Pending || st.Status == Ambiguous {
						a.Line = st.Line
						break
					}
				}
			}
			a.Message = last.Error
			if last.Code != "" {
				a.Message = last.Code + ": " + a.Message
			}
		default:
			continue
		}
		out = append(out, a)
	}
	return out
}

// WriteGitHub writes r's annotations to w and appends its summary to
// opt.SummaryPath when set.
func WriteGitHub(w io.Writer, r *Run, opt GitHubOptions) error {
	for _, a := range Annotations(r, opt) {
		if _, err := fmt.Fprintln(w, a.String()); err != nil {
			return fmt.Errorf("report: github: %w", err)
		}
	}
	if opt.SummaryPath == "" {
		return nil
	}
	f, err := os.OpenFile(opt.SummaryPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("report: github: job summary ($GITHUB_STEP_SUMMARY): %w", err)
	}
	if _, err := io.WriteString(f, GitHubSummary(r, opt)); err != nil {
		f.Close()
		return fmt.Errorf("report: github: job summary: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: github: job summary: %w", err)
	}
	return nil
}

// GitHubSummary is the job summary in Markdown: the counts, then each
// scenario that is not a pass with its status and error.
func GitHubSummary(r *Run, opt GitHubOptions) string {
	s := r.Summary
	var b strings.Builder
	verdict := "passed"
	if !r.OK(false) {
		verdict = "failed"
	}
	fmt.Fprintf(&b, "### replaylab: %s\n\n", verdict)
	b.WriteString("| scenarios | passed | failed | flaky | skipped | undefined | drift | attempts |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d | %d | %d |\n\n", s.Scenarios, s.Passed, s.Failed, s.Flaky, s.Skipped, s.Undefined, s.Drift, s.Attempts)
	anns := Annotations(r, opt)
	if len(anns) == 0 {
		return b.String()
	}
	b.WriteString("| scenario | where | status |\n| --- | --- | --- |\n")
	for _, a := range anns {
		status, name, _ := strings.Cut(a.Title, ": ")
		fmt.Fprintf(&b, "| %s | `%s:%d` | %s |\n", mdCell(name), a.File, a.Line, status)
	}
	b.WriteString("\n")
	for _, a := range anns {
		fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n```\n%s\n```\n\n</details>\n\n", mdCell(a.Title), strings.ReplaceAll(a.Message, "```", "'''"))
	}
	return b.String()
}

// mdCell keeps text on one table cell: no pipes, no newlines, no markup.
func mdCell(s string) string {
	s = strings.NewReplacer("|", "\\|", "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;").Replace(s)
	return s
}
