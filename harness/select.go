package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/replaylab/replaylab/internal/tagexpr"
)

// Scenario selection belongs to replaylab, not to godog's tag matcher:
// Select parses the feature files with godog's own Gherkin parser,
// compiles their pickles (one per scenario, one per example row of an
// outline) and keeps those the paths, lines and tag expression choose.
// A suite then runs exactly that list (Options.Scenarios), which is how
// shards and retries pick what to run.

// Scenario is one selected pickle: a scenario, or one example row of a
// scenario outline.
type Scenario struct {
	// URI names the feature file in reports and in godog: slash-separated
	// and relative to the root when the file is under it
	// ("features/chat.feature").
	URI string
	// Path is the file on disk.
	Path string
	// Line is the scenario's line, or for an outline row the row's own
	// line: URI:Line selects exactly this pickle again.
	Line    int
	Feature string   // the feature's name
	Name    string   // the pickle's name (an outline's placeholders filled in)
	Tags    []string // every tag that applies: feature, rule, scenario, examples
	// Slug names the scenario's recording and golden trace
	// (<feature file>/<scenario name>, repeats -2, -3 in file order); it
	// does not depend on what else is selected.
	Slug string
	// Fingerprint identifies what the scenario's recording must replay
	// (see Fingerprint), StepsFingerprint all its steps: a recording
	// stamped with neither is stale (RecordedFrom).
	Fingerprint      string
	StepsFingerprint string

	// run is the runner's state while the scenario runs (nil in a
	// selection): its mode, paths, hints and Outcome.
	run *scenarioRun
}

// ID is URI:Line, unique in a run.
func (s Scenario) ID() string { return s.URI + ":" + strconv.Itoa(s.Line) }

// Selection says which scenarios to run.
type Selection struct {
	// Root holds features/ and recordings/; default ".".
	Root string
	// Dir is where relative paths are looked up first (default: the
	// current directory); then they are looked up under Root.
	Dir string
	// Paths are feature files or directories, a file optionally followed
	// by :LINE[:LINE…]; a line inside a scenario selects it, the line of an
	// outline's example row selects that row. Default: features.
	Paths []string
	// Tags is a tag expression (see internal/tagexpr): standard Cucumber
	// syntax, or godog's old one.
	Tags string
}

// Errors of Select. A BadSelectionError is bad input (exit 2); an empty
// selection wraps ErrNoScenarios (exit 1).
var ErrNoScenarios = errors.New("no scenario selected")

// BadSelectionError is a selection that cannot be read: a path that does
// not exist, a malformed feature file, an invalid tag expression.
type BadSelectionError struct{ Err error }

func (e *BadSelectionError) Error() string { return e.Err.Error() }
func (e *BadSelectionError) Unwrap() error { return e.Err }

func badSelection(format string, args ...any) error {
	return &BadSelectionError{Err: fmt.Errorf(format, args...)}
}

// IsFullSelection reports whether sel is every scenario of the project
// (no paths but the default, no tags): only then can goldens no scenario
// produced be called obsolete.
func IsFullSelection(sel Selection) bool {
	if strings.TrimSpace(sel.Tags) != "" {
		return false
	}
	return len(sel.Paths) == 0 || (len(sel.Paths) == 1 && filepath.Clean(sel.Paths[0]) == "features")
}

var lineSuffix = regexp.MustCompile(`(:[0-9]+)+$`)

// SplitPathLines splits "x.feature:12:30" into the path and its lines.
func SplitPathLines(p string) (string, []int) {
	m := lineSuffix.FindString(p)
	if m == "" {
		return p, nil
	}
	var lines []int
	for _, f := range strings.Split(strings.TrimPrefix(m, ":"), ":") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return p, nil
		}
		lines = append(lines, n)
	}
	return strings.TrimSuffix(p, m), lines
}

// Select returns the scenarios sel chooses, in file order. An empty
// result is an error wrapping ErrNoScenarios that says what matched
// nothing; the caller decides whether that is allowed.
func Select(sel Selection) ([]Scenario, error) {
	out, _, err := SelectWarn(sel)
	return out, err
}

// SelectWarn is Select with the warnings of the selection: each tag of
// the tag expression that no scenario of the chosen files carries, with
// the closest tag that one does ("did you mean @case-1?").
func SelectWarn(sel Selection) ([]Scenario, []string, error) {
	out, warnings, err := selectScenarios(sel, nil)
	return out, warnings, err
}

// selectScenarios is SelectWarn parsing through feats.
func selectScenarios(sel Selection, feats *features) ([]Scenario, []string, error) {
	tags, err := tagexpr.Parse(sel.Tags)
	if err != nil {
		return nil, nil, &BadSelectionError{Err: err}
	}
	files, err := resolvePaths(sel)
	if err != nil {
		return nil, nil, err
	}
	var out []Scenario
	var misses []string
	present := map[string]bool{}
	for _, f := range files {
		pf, err := feats.parse(f.path, f.uri)
		if err != nil {
			return nil, nil, err
		}
		chosen, missed := pf.byLines(f.lines)
		misses = append(misses, missed...)
		for _, sc := range chosen {
			for _, t := range sc.Tags {
				present[t] = true
			}
			if tags.Match(sc.Tags) {
				out = append(out, sc)
			}
		}
	}
	var warnings []string
	for _, t := range tags.Tags() {
		if present[t] {
			continue
		}
		w := fmt.Sprintf("the tag %s matches no scenario", t)
		if near := closestTag(t, present); near != "" {
			w += fmt.Sprintf(" (did you mean %s?)", near)
		}
		warnings = append(warnings, w)
	}
	if len(misses) > 0 {
		return nil, warnings, fmt.Errorf("%w: %s", ErrNoScenarios, strings.Join(misses, "; "))
	}
	if err := claimNames(out); err != nil {
		return nil, warnings, err
	}
	if len(out) == 0 {
		msg := describe(sel, files)
		if len(warnings) > 0 {
			msg += "; " + strings.Join(warnings, "; ")
		}
		return nil, warnings, fmt.Errorf("%w: %s", ErrNoScenarios, msg)
	}
	return out, warnings, nil
}

// closestTag is the tag of present nearest to t: the same but for case,
// else within a third of its length in edits; "" when none is near.
func closestTag(t string, present map[string]bool) string {
	best, bestD := "", 0
	for p := range present {
		if strings.EqualFold(p, t) {
			return p
		}
		d := levenshtein([]rune(strings.ToLower(t)), []rune(strings.ToLower(p)))
		if d*3 <= len(t) && (best == "" || d < bestD || d == bestD && p < best) {
			best, bestD = p, d
		}
	}
	return best
}

// describe says what matched nothing, for the "no scenario selected"
// message.
func describe(sel Selection, files []featureFile) string {
	where := "features/"
	if len(sel.Paths) > 0 {
		where = strings.Join(sel.Paths, " ")
	}
	if strings.TrimSpace(sel.Tags) != "" {
		return fmt.Sprintf("the tag expression %q matches no scenario in %s", sel.Tags, where)
	}
	if len(files) == 0 {
		return where + " holds no .feature file"
	}
	return where + " has no scenarios"
}

// featureFile is one file of a selection with the lines asked for (none:
// the whole file).
type featureFile struct {
	path, uri string
	lines     []int
	whole     bool
}

func resolvePaths(sel Selection) ([]featureFile, error) {
	root := sel.Root
	if root == "" {
		root = "."
	}
	dir := sel.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		dir = wd
	}
	paths := sel.Paths
	if len(paths) == 0 {
		paths = []string{"features"}
	}
	var files []featureFile
	index := map[string]int{}
	add := func(path, uri string, lines []int) {
		if i, ok := index[path]; ok {
			f := &files[i]
			if len(lines) == 0 {
				f.whole = true
			}
			f.lines = append(f.lines, lines...)
			return
		}
		index[path] = len(files)
		files = append(files, featureFile{path: path, uri: uri, lines: lines, whole: len(lines) == 0})
	}
	for _, arg := range paths {
		p, lines := SplitPathLines(arg)
		full, err := findPath(p, dir, root)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(full)
		if err != nil {
			return nil, badSelection("feature path %s: %w", arg, err)
		}
		if st.IsDir() {
			if len(lines) > 0 {
				return nil, badSelection("feature path %s: a directory has no lines", arg)
			}
			err := filepath.WalkDir(full, func(q string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !d.IsDir() && strings.HasSuffix(q, ".feature") {
					add(q, uriOf(q, root, dir), nil)
				}
				return nil
			})
			if err != nil {
				return nil, badSelection("feature path %s: %w", arg, err)
			}
			continue
		}
		add(full, uriOf(full, root, dir), lines)
	}
	for i := range files {
		if files[i].whole {
			files[i].lines = nil
		}
	}
	return files, nil
}

// nearestScenario names the scenario line closest to l, for a line
// that is in no scenario: " (did you mean features/x.feature:12?)".
func (pf *parsedFeature) nearestScenario(l int) string {
	best := 0
	for _, sc := range pf.all {
		if best == 0 || abs(sc.Line-l) < abs(best-l) {
			best = sc.Line
		}
	}
	if best == 0 {
		return " (the file has no scenario)"
	}
	return fmt.Sprintf(" (did you mean %s:%d?)", pf.uri, best)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// closestFeature is the .feature file under dir or root whose path is
// nearest to p, for a path that does not exist: " (did you mean …?)".
func closestFeature(p, dir, root string) string {
	want := strings.ToLower(filepath.Base(p))
	best, bestD := "", 0
	for _, base := range []string{dir, root} {
		_ = filepath.WalkDir(base, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && q != base && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(q, ".feature") {
				return nil
			}
			dist := levenshtein([]rune(want), []rune(strings.ToLower(d.Name())))
			if dist*3 <= len(want) && (best == "" || dist < bestD) {
				rel, err := filepath.Rel(base, q)
				if err != nil {
					return nil
				}
				best, bestD = filepath.ToSlash(rel), dist
			}
			return nil
		})
		if best != "" {
			break
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// findPath finds p: absolute as it is; relative, in dir first, then under
// root.
func findPath(p, dir, root string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	var tried []string
	for _, base := range []string{dir, root} {
		full, err := filepath.Abs(filepath.Join(base, p))
		if err != nil {
			return "", badSelection("feature path %s: %w", p, err)
		}
		if _, err := os.Stat(full); err == nil {
			return full, nil
		}
		tried = append(tried, full)
	}
	if i := strings.LastIndex(p, ".feature:"); i >= 0 {
		// x.feature:abc: a file with a line that is no number
		file, line := p[:i+len(".feature")], p[i+len(".feature:"):]
		return "", badSelection("feature path %s: %q is not a line number (write FILE:LINE, e.g. %s:12)", p, line, file)
	}
	return "", badSelection("feature path %s: no such file or directory (looked for %s)%s", p, strings.Join(tried, " and "), closestFeature(p, dir, root))
}

// uriOf names a file for reports: relative to root when under it, else
// relative to dir, else absolute; slash-separated.
func uriOf(path, root, dir string) string {
	for _, base := range []string{root, dir} {
		abs, err := filepath.Abs(base)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(abs, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

// parsedFeature is one feature file with its pickles and, for each
// scenario, the lines it spans.
type parsedFeature struct {
	uri     string
	content []byte
	doc     *messages.GherkinDocument
	all     []Scenario
	spans   []span
	steps   map[int][]stepInfo // pickle line → its steps, background first
}

// stepInfo is one step of a pickle: the AST step's line and keyword and
// the pickle's text (an outline's placeholders filled in).
type stepInfo struct {
	line    int
	keyword string
	text    string
	arg     bool // the step carries a doc string or data table
}

// span is a scenario's lines (from its first tag to the line before the
// next scenario, background or rule) and the pickles it compiles to.
type span struct {
	start, end int
	outline    bool
	examples   []exampleSpan
	pickles    []int // indexes into all
}

type exampleSpan struct {
	start, end int
	rows       map[int]int // row line → index into all
}

// parseFeature parses a file and compiles its pickles; a malformed file
// (including an outline with no Examples) is a BadSelectionError naming
// file:line.
func parseFeature(path, uri string) (*parsedFeature, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, badSelection("feature file %s: %w", uri, err)
	}
	return parseFeatureBytes(content, path, uri)
}

// parseFeatureBytes is parseFeature of content read from path.
func parseFeatureBytes(content []byte, path, uri string) (*parsedFeature, error) {
	doc, err := gherkin.ParseGherkinDocumentForLanguage(strings.NewReader(string(content)), gherkin.DefaultDialect, (&messages.Incrementing{}).NewId)
	if err != nil {
		return nil, badSelection("%s: malformed feature file: %s", uri, strings.ReplaceAll(err.Error(), "\n", " "))
	}
	pf := &parsedFeature{uri: uri, content: content, doc: doc}
	if doc.Feature == nil {
		return pf, nil
	}
	dialect := gherkin.DialectsBuiltin().GetDialect(doc.Feature.Language)
	if dialect == nil {
		dialect = gherkin.DialectsBuiltin().GetDialect(gherkin.DefaultDialect)
	}
	outlineKw := map[string]bool{}
	for _, k := range dialect.ScenarioOutlineKeywords() {
		outlineKw[k] = true
	}

	// every element that ends the span of the scenario before it
	var starts []int
	var scenarios []*messages.Scenario
	addScenario := func(sc *messages.Scenario) {
		scenarios = append(scenarios, sc)
		starts = append(starts, firstLine(sc.Location, sc.Tags))
	}
	for _, ch := range doc.Feature.Children {
		switch {
		case ch.Scenario != nil:
			addScenario(ch.Scenario)
		case ch.Background != nil:
			starts = append(starts, int(ch.Background.Location.Line))
		case ch.Rule != nil:
			starts = append(starts, firstLine(ch.Rule.Location, ch.Rule.Tags))
			for _, rc := range ch.Rule.Children {
				if rc.Scenario != nil {
					addScenario(rc.Scenario)
				} else if rc.Background != nil {
					starts = append(starts, int(rc.Background.Location.Line))
				}
			}
		}
	}
	sort.Ints(starts)
	lastLine := strings.Count(string(content), "\n") + 1

	for _, sc := range scenarios {
		if outlineKw[sc.Keyword] && len(sc.Examples) == 0 {
			return nil, badSelection("%s:%d: malformed feature file: %s %q has no Examples (an outline needs an Examples table; a single scenario is written Scenario:)",
				uri, sc.Location.Line, sc.Keyword, sc.Name)
		}
	}

	byID := map[string]int{}
	for i, sc := range scenarios {
		byID[sc.Id] = i
	}
	pf.spans = make([]span, len(scenarios))
	for i, sc := range scenarios {
		st := firstLine(sc.Location, sc.Tags)
		end := lastLine
		for _, s := range starts {
			if s > st {
				end = s - 1
				break
			}
		}
		sp := span{start: st, end: end, outline: len(sc.Examples) > 0}
		for _, ex := range sc.Examples {
			es := exampleSpan{start: firstLine(ex.Location, ex.Tags), end: int(ex.Location.Line), rows: map[int]int{}}
			if ex.TableHeader != nil {
				es.end = int(ex.TableHeader.Location.Line)
			}
			for _, r := range ex.TableBody {
				es.end = int(r.Location.Line)
			}
			sp.examples = append(sp.examples, es)
		}
		pf.spans[i] = sp
	}

	ps := gherkin.Pickles(*doc, uri, (&messages.Incrementing{}).NewId)
	names, err := nameFile(uri, ps)
	if err != nil {
		return nil, err
	}
	astSteps := map[string]*messages.Step{}
	collect := func(steps []*messages.Step) {
		for _, st := range steps {
			astSteps[st.Id] = st
		}
	}
	for _, ch := range doc.Feature.Children {
		if ch.Background != nil {
			collect(ch.Background.Steps)
		}
		if ch.Rule != nil {
			for _, rc := range ch.Rule.Children {
				if rc.Background != nil {
					collect(rc.Background.Steps)
				}
			}
		}
	}
	for _, sc := range scenarios {
		collect(sc.Steps)
	}
	pf.steps = map[int][]stepInfo{}
	for i, p := range ps {
		si, ok := byID[p.AstNodeIds[0]]
		if !ok {
			continue
		}
		slug := names[i]
		sc := Scenario{URI: uri, Path: path, Line: int(p.Location.Line), Feature: doc.Feature.Name, Name: p.Name, Slug: slug, Fingerprint: Fingerprint(p), StepsFingerprint: StepsFingerprint(p)}
		for _, t := range p.Tags {
			sc.Tags = append(sc.Tags, t.Name)
		}
		for _, ps := range p.Steps {
			info := stepInfo{text: ps.Text, arg: ps.Argument != nil}
			if len(ps.AstNodeIds) > 0 {
				if st, ok := astSteps[ps.AstNodeIds[0]]; ok {
					info.line, info.keyword = int(st.Location.Line), st.Keyword
				}
			}
			pf.steps[sc.Line] = append(pf.steps[sc.Line], info)
		}
		idx := len(pf.all)
		pf.all = append(pf.all, sc)
		sp := &pf.spans[si]
		sp.pickles = append(sp.pickles, idx)
		for ei := range sp.examples {
			if _, ok := exampleRowOf(scenarios[si], ei, sc.Line); ok {
				sp.examples[ei].rows[sc.Line] = idx
			}
		}
	}
	return pf, nil
}

// exampleRowOf reports whether line is a body row of the scenario's
// examples block ei.
func exampleRowOf(sc *messages.Scenario, ei, line int) (int, bool) {
	for _, r := range sc.Examples[ei].TableBody {
		if int(r.Location.Line) == line {
			return line, true
		}
	}
	return 0, false
}

func firstLine(loc *messages.Location, tags []*messages.Tag) int {
	l := int(loc.Line)
	for _, t := range tags {
		if int(t.Location.Line) < l {
			l = int(t.Location.Line)
		}
	}
	return l
}

// byLines returns the pickles the lines select (all of them for no
// lines), in file order, and a message for each line that selects
// nothing.
func (pf *parsedFeature) byLines(lines []int) ([]Scenario, []string) {
	if len(lines) == 0 {
		return pf.all, nil
	}
	picked := map[int]bool{}
	var misses []string
	for _, l := range lines {
		found := false
		for _, sp := range pf.spans {
			if l < sp.start || l > sp.end {
				continue
			}
			found = true
			chosen := sp.pickles
			for _, ex := range sp.examples {
				if l < ex.start || l > ex.end {
					continue
				}
				chosen = nil
				if idx, ok := ex.rows[l]; ok {
					chosen = []int{idx} // an example row: that row only
				} else {
					for _, idx := range ex.rows {
						chosen = append(chosen, idx) // the Examples block: its rows
					}
				}
			}
			for _, idx := range chosen {
				picked[idx] = true
			}
		}
		if !found {
			misses = append(misses, fmt.Sprintf("%s:%d is not inside a scenario%s", pf.uri, l, pf.nearestScenario(l)))
		}
	}
	var out []Scenario
	for i, sc := range pf.all {
		if picked[i] {
			out = append(out, sc)
		}
	}
	return out, misses
}

// served is the file's content with every scenario and example row that
// is not in keep blanked out, lines kept where they were: godog then
// compiles exactly the kept pickles, at their own lines.
func (pf *parsedFeature) served(keep map[int]bool) []byte {
	lines := strings.SplitAfter(string(pf.content), "\n")
	blank := func(l int) { // l is 1-based
		if l >= 1 && l <= len(lines) {
			if strings.HasSuffix(lines[l-1], "\r\n") {
				lines[l-1] = "\r\n"
			} else if strings.HasSuffix(lines[l-1], "\n") {
				lines[l-1] = "\n"
			} else {
				lines[l-1] = ""
			}
		}
	}
	for _, sp := range pf.spans {
		any := false
		for _, idx := range sp.pickles {
			if keep[pf.all[idx].Line] {
				any = true
			}
		}
		if !any {
			for l := sp.start; l <= sp.end; l++ {
				blank(l)
			}
			continue
		}
		for _, ex := range sp.examples {
			for line := range ex.rows {
				if !keep[line] {
					blank(line)
				}
			}
		}
	}
	return []byte(strings.Join(lines, ""))
}
