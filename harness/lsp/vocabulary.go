package lsp

import (
	"regexp"
	"strings"
)

// Step is one step of the catalogue as the server shows it: the same
// facts `replaylab steps --format json` prints, and where the Go function
// that implements it is.
type Step struct {
	Group    string
	Pattern  string // the regular expression godog binds
	Meaning  string
	Example  string // a whole step line, keyword first
	Table    string // the data table the example continues with, one row a line
	Defaults string
	Kind     string // "action", "result" or ""
	NeedsSim bool
	AliasOf  string
	// File and Line are the implementing function's: File slash-separated
	// and relative to the module root the server resolves it against
	// (Options.SourceDirs), or absolute.
	File string
	Line int
}

// Step kinds (the catalogue's).
const (
	KindAction = "action"
	KindResult = "result"
)

// Vocabulary is what the server needs of the catalogue: its steps, and
// the closest of them to a step text nobody defined, ranked as `run`
// ranks them.
type Vocabulary interface {
	Steps() []Step
	Suggest(text string, n int) []Step
}

// SuggestCount is how many closest steps an undefined step is shown, as
// `run` shows them.
const SuggestCount = 3

// matcher finds the catalogue step a text runs: the first whose pattern
// matches, as godog binds them. Results are cached by text (feature
// files repeat steps a lot).
type matcher struct {
	steps []Step
	res   []*regexp.Regexp
	cache map[string]int
}

func newMatcher(steps []Step) (*matcher, error) {
	m := &matcher{steps: steps, cache: map[string]int{}}
	for _, s := range steps {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, err
		}
		m.res = append(m.res, re)
	}
	return m, nil
}

// match returns the index of the step text runs, or -1.
func (m *matcher) match(text string) int {
	if i, ok := m.cache[text]; ok {
		return i
	}
	i := -1
	for j, re := range m.res {
		if re.MatchString(text) {
			i = j
			break
		}
	}
	if len(m.cache) > 100_000 {
		clear(m.cache)
	}
	m.cache[text] = i
	return i
}

// exampleText strips the keyword from an example line.
func exampleText(ex string) string {
	for _, kw := range []string{"Given ", "When ", "Then ", "And ", "But ", "* "} {
		if s, ok := strings.CutPrefix(ex, kw); ok {
			return s
		}
	}
	return ex
}
