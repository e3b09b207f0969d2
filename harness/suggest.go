package harness

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Undefined steps, for QA engineers: instead of a Go snippet, the run
// lists each undefined step with the closest steps of the catalogue and
// their examples (Options.Snippets keeps godog's snippet for Go users).
// Closeness is a string distance over the step text with its parameters
// masked: quoted strings and numbers count as one placeholder, so
// `I sent "Hello"` is next to `I send "…"` whatever was typed in the
// quotes.

// SuggestCount is how many catalogue steps an undefined step is shown.
const SuggestCount = 3

var (
	quotedParam = regexp.MustCompile(`"[^"]*"`)
	numberParam = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?\b`)
)

// maskParams replaces quoted strings by "" and numbers by 0, lower-cased.
func maskParams(s string) string {
	s = quotedParam.ReplaceAllString(s, `""`)
	s = numberParam.ReplaceAllString(s, "0")
	return strings.ToLower(strings.TrimSpace(s))
}

// Suggest returns the n catalogue steps closest to the step text (no
// keyword), closest first.
func Suggest(defs []StepDef, text string, n int) []StepDef {
	t := maskParams(exampleText(text))
	type scored struct {
		d     StepDef
		score float64
	}
	var all []scored
	for _, d := range QA(defs) {
		all = append(all, scored{d, stepDistance(t, maskParams(exampleText(d.Example)))})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score < all[j].score })
	var out []StepDef
	for i := 0; i < n && i < len(all); i++ {
		out = append(out, all[i].d)
	}
	return out
}

// stepDistance is in [0, 1]: the normalised Levenshtein distance of the two
// texts, averaged with that of text against the example's start of the
// same length, so a step typed short of its parameters (`a marker style
// chat`) still finds the step it began.
func stepDistance(text, example string) float64 {
	full := normLevenshtein(text, example)
	prefix := full
	if n := utf8.RuneCountInString(text); n < utf8.RuneCountInString(example) {
		prefix = normLevenshtein(text, string([]rune(example)[:n]))
	}
	return (full + prefix) / 2
}

func normLevenshtein(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	m := len(ra)
	if len(rb) > m {
		m = len(rb)
	}
	if m == 0 {
		return 0
	}
	return float64(levenshtein(ra, rb)) / float64(m)
}

// levenshtein is the edit distance (insert, delete, substitute) of a and b.
func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// undefinedStep is a step of a selected scenario no catalogue step
// matches.
type undefinedStep struct {
	uri     string
	line    int
	keyword string
	text    string
}

// defined reports whether a catalogue step matches text.
func defined(defs []StepDef, text string) bool {
	for _, d := range defs {
		if regexp.MustCompile(d.Pattern).MatchString(text) {
			return true
		}
	}
	return false
}

// undefinedSteps lists, once each and in file order, the steps of the
// scenarios godog was served (sel, its files parsed through feats) that
// no catalogue step matches.
func undefinedSteps(defs []StepDef, sel []Scenario, feats *features) ([]undefinedStep, error) {
	var out []undefinedStep
	seen := map[string]bool{}
	keep := map[string]map[int]bool{}
	var files []Scenario
	for _, sc := range sel {
		if keep[sc.URI] == nil {
			keep[sc.URI] = map[int]bool{}
			files = append(files, sc)
		}
		keep[sc.URI][sc.Line] = true
	}
	for _, f := range files {
		uri := f.URI
		pf, err := feats.parse(f.Path, f.URI)
		if err != nil {
			return nil, err
		}
		for _, sc := range pf.all {
			if !keep[uri][sc.Line] {
				continue
			}
			for _, st := range pf.steps[sc.Line] {
				key := fmt.Sprintf("%s:%d:%s", uri, st.line, st.text)
				if seen[key] || defined(defs, st.text) {
					continue
				}
				seen[key] = true
				out = append(out, undefinedStep{uri: uri, line: st.line, keyword: st.keyword, text: st.text})
			}
		}
	}
	return out, nil
}

// writeSuggestions prints each undefined step with the closest catalogue
// steps.
func writeSuggestions(w io.Writer, defs []StepDef, steps []undefinedStep) {
	if len(steps) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d undefined step(s). Closest steps of the catalogue (`replaylab steps` lists them all):\n", len(steps))
	for _, st := range steps {
		fmt.Fprintf(w, "\n  %s:%d: %s%s\n    did you mean:\n", st.uri, st.line, st.keyword, st.text)
		for _, d := range Suggest(defs, st.text, SuggestCount) {
			fmt.Fprintf(w, "      %s\n        (%s)\n", d.Example, d.Meaning)
		}
	}
}

// snippetFilter passes godog's output through until godog starts printing
// Go snippets for undefined steps, and drops the rest (the snippets close
// godog's summary).
type snippetFilter struct {
	w       io.Writer
	line    []byte
	dropped bool
}

const snippetMarker = "You can implement step definitions for undefined steps with these snippets:"

func (f *snippetFilter) Write(p []byte) (int, error) {
	if f.dropped {
		return len(p), nil
	}
	for _, b := range p {
		f.line = append(f.line, b)
		if b != '\n' {
			continue
		}
		if strings.Contains(string(f.line), snippetMarker) {
			f.dropped = true
			f.line = nil
			return len(p), nil
		}
		if _, err := f.w.Write(f.line); err != nil {
			return 0, err
		}
		f.line = f.line[:0]
	}
	return len(p), nil
}

// Flush writes a last line with no newline.
func (f *snippetFilter) Flush() error {
	if f.dropped || len(f.line) == 0 {
		return nil
	}
	_, err := f.w.Write(f.line)
	f.line = nil
	return err
}
