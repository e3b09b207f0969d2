package lsp

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"
)

// document is one feature file as the editor holds it (open) or as it is
// on disk (the rest of features/), parsed with the Gherkin parser godog
// uses.
type document struct {
	uri     string // as the client names it
	path    string // the file on disk ("" when the URI is not a file)
	rel     string // slash-separated, relative to the root when under it
	version int
	text    string
	lines   []string

	doc       *messages.GherkinDocument
	dialect   *gherkin.Dialect
	parseErrs []parseError
	pickles   []*messages.Pickle
	steps     []stepRef           // every AST step, in file order
	texts     map[string][]string // AST step id → its pickle texts (an outline's rows filled in)
	diags     []Diagnostic        // as last published (nil: not yet computed)
}

// parseError is one error of the Gherkin parser.
type parseError struct {
	line, column int // 1-based, as the parser says; column 0: the whole line
	msg          string
}

// stepRef is one step of the AST with where its parts are on its line.
type stepRef struct {
	step      *messages.Step
	line      int // 0-based
	textStart int // byte offset of the text after the keyword
	textEnd   int // byte offset of the end of the text
}

// parseErrLine reads one "(line:column): message" of the parser's
// error text.
var parseErrLine = regexp.MustCompile(`^\((\d+):(\d+)\): (.*)$`)

// parseDocument parses text. A malformed document keeps its lines and
// the parser's errors; the rest is empty.
func parseDocument(uri, path, rel string, version int, text string) *document {
	d := &document{uri: uri, path: path, rel: rel, version: version, text: text, texts: map[string][]string{}}
	d.lines = strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	doc, err := gherkin.ParseGherkinDocumentForLanguage(strings.NewReader(text), gherkin.DefaultDialect, (&messages.Incrementing{}).NewId)
	if err != nil {
		for l := range strings.SplitSeq(err.Error(), "\n") {
			m := parseErrLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			d.parseErrs = append(d.parseErrs, parseError{line: line, column: col, msg: m[3]})
		}
		if len(d.parseErrs) == 0 {
			d.parseErrs = append(d.parseErrs, parseError{line: 1, msg: strings.ReplaceAll(err.Error(), "\n", " ")})
		}
		return d
	}
	d.doc = doc
	if doc.Feature == nil {
		return d
	}
	d.dialect = gherkin.DialectsBuiltin().GetDialect(doc.Feature.Language)
	if d.dialect == nil {
		d.dialect = gherkin.DialectsBuiltin().GetDialect(gherkin.DefaultDialect)
	}
	visitSteps(doc.Feature, func(st *messages.Step) {
		line := int(st.Location.Line) - 1
		if line < 0 || line >= len(d.lines) {
			return
		}
		lt := d.lines[line]
		start := strings.Index(lt, st.Keyword)
		if start < 0 {
			start = len(lt) - len(strings.TrimLeft(lt, " \t"))
		} else {
			start += len(st.Keyword)
		}
		end := len(strings.TrimRight(lt, " \t"))
		if end < start {
			end = start
		}
		d.steps = append(d.steps, stepRef{step: st, line: line, textStart: start, textEnd: end})
	})
	d.pickles = gherkin.Pickles(*doc, rel, (&messages.Incrementing{}).NewId)
	for _, p := range d.pickles {
		for _, ps := range p.Steps {
			if len(ps.AstNodeIds) == 0 {
				continue
			}
			id := ps.AstNodeIds[0]
			if !contains(d.texts[id], ps.Text) {
				d.texts[id] = append(d.texts[id], ps.Text)
			}
		}
	}
	return d
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// visitSteps calls fn for every step of the feature in file order:
// backgrounds, scenarios and those of rules.
func visitSteps(f *messages.Feature, fn func(*messages.Step)) {
	each := func(steps []*messages.Step) {
		for _, st := range steps {
			fn(st)
		}
	}
	for _, ch := range f.Children {
		switch {
		case ch.Background != nil:
			each(ch.Background.Steps)
		case ch.Scenario != nil:
			each(ch.Scenario.Steps)
		case ch.Rule != nil:
			for _, rc := range ch.Rule.Children {
				if rc.Background != nil {
					each(rc.Background.Steps)
				}
				if rc.Scenario != nil {
					each(rc.Scenario.Steps)
				}
			}
		}
	}
}

// scenarios lists the scenarios of the feature, those of rules included,
// in file order.
func (d *document) scenarios() []*messages.Scenario {
	if d.doc == nil || d.doc.Feature == nil {
		return nil
	}
	var out []*messages.Scenario
	for _, ch := range d.doc.Feature.Children {
		if ch.Scenario != nil {
			out = append(out, ch.Scenario)
		}
		if ch.Rule != nil {
			for _, rc := range ch.Rule.Children {
				if rc.Scenario != nil {
					out = append(out, rc.Scenario)
				}
			}
		}
	}
	return out
}

// stepAt returns the step on the 0-based line.
func (d *document) stepAt(line int) (stepRef, bool) {
	for _, s := range d.steps {
		if s.line == line {
			return s, true
		}
	}
	return stepRef{}, false
}

// stepTexts are the texts the step runs with: the pickles' (an outline
// step once per distinct row), else its own.
func (d *document) stepTexts(s stepRef) []string {
	if t := d.texts[s.step.Id]; len(t) > 0 {
		return t
	}
	return []string{s.step.Text}
}

// rangeOf is the range of bytes [start, end) of the 0-based line.
func (d *document) rangeOf(line, start, end int) Range {
	return Range{Start: d.position(line, start), End: d.position(line, end)}
}

// lineRange is the whole 0-based line, indentation and trailing space
// left out.
func (d *document) lineRange(line int) Range {
	if line < 0 || line >= len(d.lines) {
		return Range{Start: Position{Line: max(line, 0)}, End: Position{Line: max(line, 0)}}
	}
	lt := d.lines[line]
	start := len(lt) - len(strings.TrimLeft(lt, " \t"))
	end := len(strings.TrimRight(lt, " \t"))
	if end < start {
		end = start
	}
	return d.rangeOf(line, start, end)
}

// position converts a byte offset of a 0-based line to a protocol
// position (UTF-16 code units).
func (d *document) position(line, byteOff int) Position {
	if line < 0 || line >= len(d.lines) {
		return Position{Line: line}
	}
	lt := d.lines[line]
	byteOff = min(max(byteOff, 0), len(lt))
	return Position{Line: line, Character: utf16Len(lt[:byteOff])}
}

// offset converts a protocol position to a byte offset of its line.
func (d *document) offset(p Position) int {
	if p.Line < 0 || p.Line >= len(d.lines) {
		return 0
	}
	return byteOffset(d.lines[p.Line], p.Character)
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// byteOffset is the byte offset of the UTF-16 column col of line (the
// end of the line when col is past it).
func byteOffset(line string, col int) int {
	n := 0
	for i, r := range line {
		if n >= col {
			return i
		}
		if r == utf8.RuneError {
			n++
			continue
		}
		n += utf16.RuneLen(r)
	}
	return len(line)
}
