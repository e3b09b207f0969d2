package steps

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	gherkin "github.com/cucumber/gherkin/go/v42"
	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"
)

// Scenario names (CLK-2). A scenario's recordings are named
// <feature file base>/<scenario name>, lower-case with dashes. Scenarios of
// one file whose names give the same slug are numbered by their place in
// the file: the first keeps the plain name, the second gets -2, the third
// -3 (example rows of an outline without a placeholder in its name are the
// usual case). The place is found by parsing the file and matching the
// scenario by its name and steps, so the names do not depend on which
// scenarios run, nor in what order they start, at any concurrency. Two
// scenarios of one file with the same name and the same steps are refused
// (nothing would tell their recordings apart), and so are two files that
// would name a recording alike (features/a/x.feature and
// features/b/x.feature with a scenario of the same name).
type scenarioNames struct {
	mu      sync.Mutex
	files   map[string]*namedFile
	claimed map[string]string // slug → "file#place" that owns it
}

type namedFile struct {
	err     error
	pickles []namedPickle // file order
}

type namedPickle struct {
	base string // feature/scenario slug before numbering
	key  string // name and fingerprint of the steps
	line int64
	slug string
}

// lineSuffix is the :LINE[:LINE…] a selection by line adds to a URI.
var lineSuffix = regexp.MustCompile(`(:\d+)+$`)

// name returns the stable slug of p, or an error that says why it has none.
func (n *scenarioNames) name(p *godog.Scenario) (string, error) {
	path := lineSuffix.ReplaceAllString(p.Uri, "")
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.files == nil {
		n.files = map[string]*namedFile{}
		n.claimed = map[string]string{}
	}
	f, ok := n.files[path]
	if !ok {
		f = parseNames(path)
		n.files[path] = f
	}
	if f.err != nil {
		return "", f.err
	}
	key := p.Name + "\x00" + fingerprint(p)
	var match []namedPickle
	for _, np := range f.pickles {
		if np.key == key {
			match = append(match, np)
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("steps: scenario %q is not in %s as parsed at the start of the run (was the file edited during the run?)", p.Name, path)
	case 1:
	default:
		return "", fmt.Errorf("steps: %s: the scenarios %q at lines %d and %d have the same name and the same steps, so nothing tells their recordings apart; rename one", path, p.Name, match[0].line, match[1].line)
	}
	slug := match[0].slug
	owner := fmt.Sprintf("%s:%d", path, match[0].line)
	if prev, ok := n.claimed[slug]; ok && prev != owner {
		return "", fmt.Errorf("steps: the scenarios at %s and %s would both be recorded as %s; rename one of them or one of the feature files", prev, owner, slug)
	}
	n.claimed[slug] = owner
	return slug, nil
}

// parseNames parses a feature file the way godog does and names its
// pickles by their place.
func parseNames(path string) *namedFile {
	data, err := os.ReadFile(path)
	if err != nil {
		return &namedFile{err: fmt.Errorf("steps: name scenarios: %w", err)}
	}
	ids := (&messages.Incrementing{}).NewId
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), ids)
	if err != nil {
		return &namedFile{err: fmt.Errorf("steps: name scenarios: %s: %w", path, err)}
	}
	lines := map[string]int64{}
	if doc.Feature != nil {
		var walk func(children []*messages.FeatureChild, rules []*messages.RuleChild)
		scenario := func(sc *messages.Scenario) {
			if sc == nil {
				return
			}
			lines[sc.Id] = sc.Location.Line
		}
		walk = func(children []*messages.FeatureChild, rules []*messages.RuleChild) {
			for _, c := range children {
				scenario(c.Scenario)
				if c.Rule != nil {
					walk(nil, c.Rule.Children)
				}
			}
			for _, c := range rules {
				scenario(c.Scenario)
			}
		}
		walk(doc.Feature.Children, nil)
	}
	feat := slugify(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	f := &namedFile{}
	count := map[string]int{}
	for _, p := range gherkin.Pickles(*doc, path, ids) {
		np := namedPickle{base: feat + "/" + slugify(p.Name), key: p.Name + "\x00" + fingerprint(p)}
		if len(p.AstNodeIds) > 0 {
			np.line = lines[p.AstNodeIds[0]]
		}
		count[np.base]++
		np.slug = np.base
		if k := count[np.base]; k > 1 {
			np.slug = fmt.Sprintf("%s-%d", np.base, k)
		}
		f.pickles = append(f.pickles, np)
	}
	return f
}
