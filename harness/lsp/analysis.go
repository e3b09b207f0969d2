package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	messages "github.com/cucumber/messages/go/v34"

	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/internal/tagexpr"
)

// Diagnostic codes: what each diagnostic is about, for clients that
// filter or count them.
const (
	CodeGherkin         = "gherkin"           // the parser refused the file
	CodeNoExamples      = "no-examples"       // an outline with no Examples (run refuses the file)
	CodeUndefined       = "undefined-step"    // no catalogue step matches
	CodeTagExpression   = "tag-expression"    // a `# tags:` comment that does not parse
	CodeTagsMatchNone   = "tags-match-none"   // a `# tags:` comment that selects nothing
	CodeNoRecording     = "no-recording"      // the scenario has no recorded session
	CodeStaleRecording  = "stale-recording"   // recorded from other steps
	CodeNoGolden        = "no-golden"         // the golden trace is missing
	CodeObsoleteUnknown = "recordings-unread" // the recording state could not be read
	// the dry run's (run --dry-run, Checks)
	CodeAmbiguous    = harness.CodeAmbiguousStep // more than one catalogue step matches
	CodeBadArgument  = harness.CodeBadArgument   // a number, duration or JSON argument that does not convert
	CodeMissingFile  = harness.CodeMissingFile   // a site profile or adapter file a step names is not there
	CodeBadFile      = harness.CodeBadFile       // one that does not load
	CodeChecksUnread = "checks-unread"           // the dry run could not check the file
)

// Diagnostics lists the problems of d: what the parser refused, steps no
// catalogue step matches (with the closest, as `run` prints them), `#
// tags:` comments that do not parse or select nothing, and each
// scenario's missing or stale recording and missing golden.
func (s *Server) Diagnostics(d *document) []Diagnostic {
	diags := []Diagnostic{}
	for _, e := range d.parseErrs {
		line := max(e.line-1, 0)
		diags = append(diags, Diagnostic{Range: d.lineRange(line), Severity: SeverityError, Code: CodeGherkin, Source: Source,
			Message: fmt.Sprintf("malformed feature file: %s:%d: %s", d.rel, e.line, e.msg)})
	}
	if d.doc == nil || d.doc.Feature == nil {
		return diags
	}
	outline := map[string]bool{}
	if d.dialect != nil {
		for _, k := range d.dialect.ScenarioOutlineKeywords() {
			outline[k] = true
		}
	}
	for _, sc := range d.scenarios() {
		if outline[sc.Keyword] && len(sc.Examples) == 0 {
			l := int(sc.Location.Line) - 1
			diags = append(diags, Diagnostic{Range: d.lineRange(l), Severity: SeverityError, Code: CodeNoExamples, Source: Source,
				Message: fmt.Sprintf("%s %q has no Examples: an outline needs an Examples table; a single scenario is written Scenario:", sc.Keyword, sc.Name)})
		}
	}
	for _, st := range d.steps {
		text, ok := s.undefinedText(d, st)
		if !ok {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "undefined step: %s%s\ndid you mean:", st.step.Keyword, text)
		data := &DiagnosticData{}
		for _, c := range s.opt.Vocabulary.Suggest(text, SuggestCount) {
			fmt.Fprintf(&b, "\n  %s\n    (%s)", c.Example, c.Meaning)
			data.Replacements = append(data.Replacements, exampleText(c.Example))
		}
		diags = append(diags, Diagnostic{Range: d.rangeOf(st.line, st.textStart, st.textEnd), Severity: SeverityError, Code: CodeUndefined, Source: Source,
			Message: b.String(), Data: data})
	}
	diags = append(diags, s.tagDiagnostics(d)...)
	diags = append(diags, s.checkDiagnostics(d)...)
	diags = append(diags, s.recordingDiagnostics(d)...)
	return diags
}

// checkDiagnostics are the dry run's problems of d (Options.Checks, the
// code `run --dry-run` runs), each on its step's text.
func (s *Server) checkDiagnostics(d *document) []Diagnostic {
	if s.opt.Checks == nil || len(d.pickles) == 0 {
		return nil
	}
	ps, err := s.opt.Checks.Check(s.root, d.rel, d.path, []byte(d.text))
	if err != nil {
		return []Diagnostic{{Range: d.lineRange(0), Severity: SeverityWarning, Code: CodeChecksUnread, Source: Source,
			Message: fmt.Sprintf("the steps of this file cannot be checked: %v", err)}}
	}
	var out []Diagnostic
	for _, p := range ps {
		r := d.lineRange(p.Line - 1)
		for _, st := range d.steps {
			if st.line == p.Line-1 {
				r = d.rangeOf(st.line, st.textStart, st.textEnd)
				break
			}
		}
		out = append(out, Diagnostic{Range: r, Severity: SeverityError, Code: p.Code, Source: Source, Message: p.Message})
	}
	return out
}

// undefinedText is the first text the step runs with that no catalogue
// step matches.
func (s *Server) undefinedText(d *document, st stepRef) (string, bool) {
	for _, t := range d.stepTexts(st) {
		if s.m.match(t) < 0 {
			return t, true
		}
	}
	return "", false
}

// stepOf is the catalogue step the document's step runs (the first of
// its texts that one matches).
func (s *Server) stepOf(d *document, st stepRef) (Step, bool) {
	for _, t := range d.stepTexts(st) {
		if i := s.m.match(t); i >= 0 {
			return s.m.steps[i], true
		}
	}
	return Step{}, false
}

// tagsComment is a `# tags: EXPR` comment: a tag expression kept with a
// feature (for `run --tags`), checked like the flag.
var tagsComment = regexp.MustCompile(`^\s*#\s*tags:\s*(.*?)\s*$`)

// tagDiagnostics checks the `# tags:` comments: the expression parses
// (the message is Cucumber's, as `run --tags` prints it) and selects a
// scenario of features/.
func (s *Server) tagDiagnostics(d *document) []Diagnostic {
	var out []Diagnostic
	for _, c := range d.doc.Comments {
		m := tagsComment.FindStringSubmatch(c.Text)
		if m == nil {
			continue
		}
		line := int(c.Location.Line) - 1
		expr, err := tagexpr.Parse(m[1])
		if err != nil {
			out = append(out, Diagnostic{Range: d.lineRange(line), Severity: SeverityError, Code: CodeTagExpression, Source: Source, Message: err.Error()})
			continue
		}
		if n := s.countMatching(expr); n == 0 {
			out = append(out, Diagnostic{Range: d.lineRange(line), Severity: SeverityWarning, Code: CodeTagsMatchNone, Source: Source,
				Message: fmt.Sprintf("the tag expression %q matches no scenario in features/", m[1])})
		}
	}
	return out
}

// countMatching counts the scenarios (pickles) of every known feature
// file the expression selects.
func (s *Server) countMatching(expr tagexpr.Expr) int {
	n := 0
	for _, d := range s.allDocuments() {
		for _, p := range d.pickles {
			if expr.Match(pickleTags(p)) {
				n++
			}
		}
	}
	return n
}

func pickleTags(p *messages.Pickle) []string {
	out := make([]string, len(p.Tags))
	for i, t := range p.Tags {
		out[i] = t.Name
	}
	return out
}

// recordingDiagnostics warns of each scenario whose recording is
// missing or stale or whose golden is missing, with the command that
// fixes it.
func (s *Server) recordingDiagnostics(d *document) []Diagnostic {
	if s.opt.Recordings == nil || len(d.pickles) == 0 {
		return nil
	}
	states, err := s.opt.Recordings.Check(s.root, d.rel, d.path, []byte(d.text))
	if err != nil {
		return []Diagnostic{{Range: d.lineRange(0), Severity: SeverityWarning, Code: CodeObsoleteUnknown, Source: Source,
			Message: fmt.Sprintf("the recordings of this file cannot be checked: %v", err)}}
	}
	var out []Diagnostic
	for _, st := range states {
		if st.Problem == "" {
			continue
		}
		msg := st.Message
		if len(st.Command) > 0 {
			msg += "\nfix it with: " + harness.ShellJoin(st.Command)
		}
		out = append(out, Diagnostic{Range: d.lineRange(st.Line - 1), Severity: SeverityWarning, Code: st.Problem, Source: Source,
			Message: msg, Data: &DiagnosticData{Command: st.Command}})
	}
	return out
}

// Completion offers catalogue steps after a step keyword (the example
// as a snippet, its parameters as placeholders) and tags after "@".
func (s *Server) Completion(p TextDocumentPositionParams) CompletionList {
	list := CompletionList{Items: []CompletionItem{}}
	d := s.document(p.TextDocument.URI)
	if d == nil || p.Position.Line >= len(d.lines) {
		return list
	}
	lt := d.lines[p.Position.Line]
	cur := d.offset(p.Position)
	prefix := lt[:cur]
	if i := strings.LastIndexAny(prefix, " \t"); strings.HasPrefix(prefix[i+1:], "@") {
		return s.completeTags(d, p.Position.Line, i+1, cur)
	}
	indent := len(prefix) - len(strings.TrimLeft(prefix, " \t"))
	kw := ""
	for _, k := range s.stepKeywords(d) {
		if strings.HasPrefix(prefix[indent:], k) && len(k) > len(kw) {
			kw = k
		}
	}
	if kw == "" {
		return list
	}
	start := indent + len(kw)
	typed := prefix[start:]
	items := s.completeSteps(typed, lt[:indent])
	for i := range items {
		items[i].TextEdit.Range = d.rangeOf(p.Position.Line, start, cur)
	}
	list.Items = items
	list.IsIncomplete = true // the ranking depends on what is typed next
	return list
}

// CompletionItemsMax bounds the steps one completion offers.
const CompletionItemsMax = 100

// completeSteps ranks the catalogue against the typed text: examples it
// begins first, then those it begins with the parameters masked, then
// those with a word beginning with each typed word, then (when none of
// these) the closest.
func (s *Server) completeSteps(typed, indent string) []CompletionItem {
	t := strings.ToLower(strings.TrimLeft(typed, " "))
	words := strings.Fields(t)
	type ranked struct {
		i, rank int
	}
	var picked []ranked
	for i, st := range s.m.steps {
		ex := strings.ToLower(exampleText(st.Example))
		rank := -1
		switch {
		case strings.HasPrefix(ex, t):
			rank = 0
		case strings.HasPrefix(maskParams(ex), maskParams(t)):
			rank = 1
		case len(words) > 0 && wordPrefixes(strings.Fields(ex), words):
			rank = 2
		}
		if rank >= 0 {
			picked = append(picked, ranked{i, rank})
		}
	}
	if len(picked) == 0 && t != "" {
		index := map[string]int{}
		for i, st := range s.m.steps {
			index[st.Pattern] = i
		}
		for _, c := range s.opt.Vocabulary.Suggest(typed, 10) {
			if i, ok := index[c.Pattern]; ok {
				picked = append(picked, ranked{i, 3})
			}
		}
	}
	sort.SliceStable(picked, func(a, b int) bool {
		if picked[a].rank != picked[b].rank || picked[a].rank == 3 {
			return picked[a].rank < picked[b].rank // the closest keep their order
		}
		return len(s.m.steps[picked[a].i].Example) < len(s.m.steps[picked[b].i].Example)
	})
	if len(picked) > CompletionItemsMax {
		picked = picked[:CompletionItemsMax]
	}
	items := make([]CompletionItem, 0, len(picked))
	for n, r := range picked {
		st := s.m.steps[r.i]
		text := exampleText(st.Example)
		items = append(items, CompletionItem{
			Label:            text,
			Kind:             CompletionKindSnippet,
			Detail:           stepDetail(st),
			Documentation:    &MarkupContent{Kind: "markdown", Value: s.stepMarkdown(st)},
			SortText:         fmt.Sprintf("%d%04d", r.rank, n),
			FilterText:       text,
			InsertTextFormat: InsertSnippet,
			InsertTextMode:   InsertModeAsIs,
			TextEdit:         &TextEdit{NewText: snippet(text, st.Table, indent)},
		})
	}
	return items
}

// wordPrefixes reports whether each typed word begins a word of the
// example (quotes ignored): "open sim" finds `I open the sim page "…"`.
func wordPrefixes(exWords, typed []string) bool {
	for _, w := range typed {
		found := false
		for _, e := range exWords {
			if strings.HasPrefix(strings.TrimLeft(e, `"`), strings.TrimLeft(w, `"`)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

var (
	quotedParam = regexp.MustCompile(`"[^"]*"`)
	numberParam = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?\b`)
	// param is a quoted string or a number of an example.
	param = regexp.MustCompile(`"[^"]*"|\b[0-9]+(?:\.[0-9]+)?\b`)
)

// maskParams replaces quoted strings by "" and numbers by 0, as the
// closeness `run` ranks by does.
func maskParams(s string) string {
	s = quotedParam.ReplaceAllString(s, `""`)
	return numberParam.ReplaceAllString(s, "0")
}

// snippet is the example text as an LSP snippet: each quoted string's
// content and each number a placeholder (the example's value as its
// default), the data table on the lines below at the step's indentation
// plus two.
func snippet(text, table, indent string) string {
	var b strings.Builder
	n := 0
	last := 0
	for _, m := range param.FindAllStringIndex(text, -1) {
		b.WriteString(snippetEscape(text[last:m[0]]))
		v := text[m[0]:m[1]]
		n++
		if strings.HasPrefix(v, `"`) {
			fmt.Fprintf(&b, `"${%d:%s}"`, n, snippetEscape(v[1:len(v)-1]))
		} else {
			fmt.Fprintf(&b, "${%d:%s}", n, v)
		}
		last = m[1]
	}
	b.WriteString(snippetEscape(text[last:]))
	if table != "" {
		for row := range strings.SplitSeq(table, "\n") {
			b.WriteString("\n" + indent + "  " + snippetEscape(row))
		}
	}
	b.WriteString("$0")
	return b.String()
}

// snippetEscape escapes the characters a snippet gives meaning to.
func snippetEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `$`, `\$`, `}`, `\}`).Replace(s)
}

// stepKeywords are the step keywords of the document's language (with
// their trailing space), English when it does not parse.
func (s *Server) stepKeywords(d *document) []string {
	if d.dialect != nil {
		return d.dialect.StepKeywords()
	}
	return []string{"Given ", "When ", "Then ", "And ", "But ", "* "}
}

// completeTags offers the tags used in features/ (and the open
// documents), most used first, replacing the bytes [start, cur) of the
// line.
func (s *Server) completeTags(d *document, line, start, cur int) CompletionList {
	counts := s.tagCounts()
	tags := make([]string, 0, len(counts))
	for t := range counts {
		tags = append(tags, t)
	}
	sort.Slice(tags, func(i, j int) bool {
		if counts[tags[i]] != counts[tags[j]] {
			return counts[tags[i]] > counts[tags[j]]
		}
		return tags[i] < tags[j]
	})
	items := make([]CompletionItem, 0, len(tags))
	r := d.rangeOf(line, start, cur)
	for i, t := range tags {
		items = append(items, CompletionItem{
			Label:      t,
			Kind:       CompletionKindReference,
			Detail:     plural(counts[t], "scenario") + " in features/",
			SortText:   fmt.Sprintf("%05d", i),
			FilterText: t,
			TextEdit:   &TextEdit{Range: r, NewText: t},
		})
	}
	return CompletionList{Items: items}
}

// tagCounts counts, for each tag used in a known feature file, the
// scenarios (pickles) it applies to.
func (s *Server) tagCounts() map[string]int {
	counts := map[string]int{}
	for _, d := range s.allDocuments() {
		for _, p := range d.pickles {
			for _, t := range p.Tags {
				counts[t.Name]++
			}
		}
		if d.doc != nil && d.doc.Feature != nil { // tags of scenarios with no pickle yet
			for _, t := range d.doc.Feature.Tags {
				if _, ok := counts[t.Name]; !ok {
					counts[t.Name] = 0
				}
			}
		}
	}
	return counts
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// stepDetail is the one-line summary of a step: its group and marks.
func stepDetail(st Step) string {
	parts := []string{st.Group}
	switch st.Kind {
	case KindAction:
		parts = append(parts, "action")
	case KindResult:
		parts = append(parts, "result check")
	}
	if st.NeedsSim {
		parts = append(parts, "needs the sim")
	}
	return strings.Join(parts, " · ")
}

// stepMarkdown is what hover and completion show of a step.
func (s *Server) stepMarkdown(st Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n", strings.TrimSpace(st.Group))
	b.WriteString(st.Meaning + "\n")
	if st.Defaults != "" {
		fmt.Fprintf(&b, "\n*Defaults:* %s\n", st.Defaults)
	}
	switch st.Kind {
	case KindAction:
		b.WriteString("\n*Kind:* action: it keeps its result; a result check may follow (`the action ends with …`)\n")
	case KindResult:
		b.WriteString("\n*Kind:* result check of the last action\n")
	}
	if st.NeedsSim {
		b.WriteString("\n*Needs the sim:* it works on the built-in sim only and refuses on another site\n")
	}
	fmt.Fprintf(&b, "\n*Example:*\n```gherkin\n%s\n", st.Example)
	if st.Table != "" {
		for row := range strings.SplitSeq(st.Table, "\n") {
			b.WriteString("  " + row + "\n")
		}
	}
	b.WriteString("```\n")
	fmt.Fprintf(&b, "\n*Pattern:* `%s`", st.Pattern)
	if st.File != "" {
		fmt.Fprintf(&b, "  \n*Implemented by:* `%s:%d`", st.File, st.Line)
	}
	b.WriteString("\n")
	return b.String()
}

// Hover shows the catalogue step under the cursor: meaning, defaults,
// kind, "needs the sim", example, pattern and implementing function; on
// an undefined step, the closest steps; on a tag, how many scenarios
// carry it.
func (s *Server) Hover(p TextDocumentPositionParams) *Hover {
	d := s.document(p.TextDocument.URI)
	if d == nil {
		return nil
	}
	if st, ok := d.stepAt(p.Position.Line); ok {
		r := d.rangeOf(st.line, st.textStart, st.textEnd)
		if def, ok := s.stepOf(d, st); ok {
			return &Hover{Contents: MarkupContent{Kind: "markdown", Value: s.stepMarkdown(def)}, Range: &r}
		}
		text, _ := s.undefinedText(d, st)
		var b strings.Builder
		fmt.Fprintf(&b, "**Undefined step.** No step of the catalogue matches `%s`. The closest:\n", text)
		for _, c := range s.opt.Vocabulary.Suggest(text, SuggestCount) {
			fmt.Fprintf(&b, "\n- `%s`: %s", c.Example, c.Meaning)
		}
		return &Hover{Contents: MarkupContent{Kind: "markdown", Value: b.String() + "\n"}, Range: &r}
	}
	if p.Position.Line < len(d.lines) {
		lt := d.lines[p.Position.Line]
		if m := tagsComment.FindStringSubmatch(lt); m != nil {
			r := d.lineRange(p.Position.Line)
			expr, err := tagexpr.Parse(m[1])
			if err != nil {
				return &Hover{Contents: MarkupContent{Kind: "markdown", Value: err.Error()}, Range: &r}
			}
			run := harness.ShellJoin(append(append([]string(nil), s.opt.Command...), "--tags", m[1]))
			return &Hover{Contents: MarkupContent{Kind: "markdown", Value: fmt.Sprintf("`%s` selects %s in features/: `%s`", m[1], plural(s.countMatching(expr), "scenario"), run)}, Range: &r}
		}
		cur := d.offset(p.Position)
		a := strings.LastIndexAny(lt[:cur], " \t") + 1
		b := len(lt)
		if i := strings.IndexAny(lt[cur:], " \t"); i >= 0 {
			b = cur + i
		}
		if word := lt[a:b]; strings.HasPrefix(word, "@") && len(word) > 1 && strings.HasPrefix(strings.TrimSpace(lt), "@") {
			r := d.rangeOf(p.Position.Line, a, b)
			n := s.tagCounts()[word]
			return &Hover{Contents: MarkupContent{Kind: "markdown", Value: fmt.Sprintf("`%s`: %s in features/ (select them with `%s`)", word, plural(n, "scenario"), harness.ShellJoin(append(append([]string(nil), s.opt.Command...), "--tags", word)))}, Range: &r}
		}
	}
	return nil
}

// Definition is the Go function that implements the step under the
// cursor.
func (s *Server) Definition(p TextDocumentPositionParams) *Location {
	d := s.document(p.TextDocument.URI)
	if d == nil {
		return nil
	}
	st, ok := d.stepAt(p.Position.Line)
	if !ok {
		return nil
	}
	def, ok := s.stepOf(d, st)
	if !ok || def.File == "" {
		return nil
	}
	path := s.sourceFile(def.File)
	if path == "" {
		return nil
	}
	line := max(def.Line-1, 0)
	return &Location{URI: PathURI(path), Range: Range{Start: Position{Line: line}, End: Position{Line: line}}}
}

// sourceFile finds a step's Go file: absolute as it is, relative under
// the root, then under each SourceDirs.
func (s *Server) sourceFile(file string) string {
	f := filepath.FromSlash(file)
	if filepath.IsAbs(f) {
		if _, err := os.Stat(f); err == nil {
			return f
		}
		return ""
	}
	for _, dir := range append([]string{s.root}, s.opt.SourceDirs...) {
		p := filepath.Join(dir, f)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Symbols is the document's outline: the feature, its background,
// rules, scenarios and their examples.
func (s *Server) Symbols(uri string) []DocumentSymbol {
	d := s.document(uri)
	if d == nil || d.doc == nil || d.doc.Feature == nil {
		return []DocumentSymbol{}
	}
	f := d.doc.Feature
	last := len(d.lines) - 1
	for last > 0 && strings.TrimSpace(d.lines[last]) == "" {
		last--
	}
	root := DocumentSymbol{Name: f.Keyword + ": " + f.Name, Kind: SymbolModule, Detail: tagList(f.Tags),
		Range:          Range{Start: d.position(firstLine(f.Location, f.Tags)-1, 0), End: d.position(last, len(d.lines[last]))},
		SelectionRange: d.lineRange(int(f.Location.Line) - 1)}
	root.Children = s.childSymbols(d, f.Children, nil, last)
	return []DocumentSymbol{root}
}

// childSymbols are the symbols of a feature's or a rule's children, each
// spanning to the line before the next (end: the last line of the
// parent).
func (s *Server) childSymbols(d *document, fc []*messages.FeatureChild, rc []*messages.RuleChild, end int) []DocumentSymbol {
	type item struct {
		start int
		sym   func(end int) DocumentSymbol
	}
	var items []item
	addBackground := func(bg *messages.Background) {
		items = append(items, item{int(bg.Location.Line) - 1, func(end int) DocumentSymbol {
			return d.symbol(bg.Keyword+": "+bg.Name, "", SymbolNamespace, int(bg.Location.Line)-1, int(bg.Location.Line)-1, end)
		}})
	}
	addScenario := func(sc *messages.Scenario) {
		start := firstLine(sc.Location, sc.Tags) - 1
		items = append(items, item{start, func(end int) DocumentSymbol {
			sym := d.symbol(sc.Keyword+": "+sc.Name, tagList(sc.Tags), SymbolMethod, start, int(sc.Location.Line)-1, end)
			for i, ex := range sc.Examples {
				exStart := firstLine(ex.Location, ex.Tags) - 1
				exEnd := int(ex.Location.Line) - 1
				if ex.TableHeader != nil {
					exEnd = int(ex.TableHeader.Location.Line) - 1
				}
				for _, r := range ex.TableBody {
					exEnd = int(r.Location.Line) - 1
				}
				if i+1 < len(sc.Examples) {
					exEnd = min(exEnd, firstLine(sc.Examples[i+1].Location, sc.Examples[i+1].Tags)-2)
				}
				name := ex.Keyword + ":"
				if ex.Name != "" {
					name += " " + ex.Name
				}
				exSym := d.symbol(name, plural(len(ex.TableBody), "row")+tagSuffix(ex.Tags), SymbolArray, exStart, int(ex.Location.Line)-1, min(exEnd, end))
				sym.Children = append(sym.Children, exSym)
			}
			return sym
		}})
	}
	for _, ch := range fc {
		switch {
		case ch.Background != nil:
			addBackground(ch.Background)
		case ch.Scenario != nil:
			addScenario(ch.Scenario)
		case ch.Rule != nil:
			r := ch.Rule
			start := firstLine(r.Location, r.Tags) - 1
			items = append(items, item{start, func(end int) DocumentSymbol {
				sym := d.symbol(r.Keyword+": "+r.Name, tagList(r.Tags), SymbolClass, start, int(r.Location.Line)-1, end)
				sym.Children = s.childSymbols(d, nil, r.Children, end)
				return sym
			}})
		}
	}
	for _, ch := range rc {
		switch {
		case ch.Background != nil:
			addBackground(ch.Background)
		case ch.Scenario != nil:
			addScenario(ch.Scenario)
		}
	}
	out := make([]DocumentSymbol, 0, len(items))
	for i, it := range items {
		e := end
		if i+1 < len(items) {
			e = items[i+1].start - 1
		}
		out = append(out, it.sym(e))
	}
	return out
}

// symbol is a symbol from line start to line end (blank and comment lines
// at its end left out), named at line sel.
func (d *document) symbol(name, detail string, kind, start, sel, end int) DocumentSymbol {
	for end > sel && (strings.TrimSpace(d.lines[end]) == "" || strings.HasPrefix(strings.TrimSpace(d.lines[end]), "#")) {
		end--
	}
	end = max(end, sel)
	start = min(start, sel)
	return DocumentSymbol{Name: name, Detail: detail, Kind: kind,
		Range:          Range{Start: d.position(start, 0), End: d.position(end, len(d.lines[end]))},
		SelectionRange: d.lineRange(sel)}
}

func firstLine(loc *messages.Location, tags []*messages.Tag) int {
	l := int(loc.Line)
	for _, t := range tags {
		l = min(l, int(t.Location.Line))
	}
	return l
}

func tagList(tags []*messages.Tag) string {
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = t.Name
	}
	return strings.Join(names, " ")
}

func tagSuffix(tags []*messages.Tag) string {
	if len(tags) == 0 {
		return ""
	}
	return " " + tagList(tags)
}

// CodeActions offers, for the diagnostics in the range: replacing an
// undefined step by one of the closest, and running the command that
// records a scenario or creates its golden (once the file is saved: the
// command runs the file on disk, by its lines).
func (s *Server) CodeActions(p CodeActionParams) []CodeAction {
	out := []CodeAction{}
	d := s.document(p.TextDocument.URI)
	if d == nil {
		return out
	}
	saved := true // the command runs the file on disk: offer it once that is what the editor shows
	if d.path != "" {
		data, err := os.ReadFile(d.path)
		saved = err == nil && string(data) == d.text
	}
	diags := d.diags // as published for this version of the document
	if diags == nil {
		diags = s.Diagnostics(d)
	}
	for _, diag := range diags {
		if diag.Data == nil || !overlaps(diag.Range, p.Range) {
			continue
		}
		for i, r := range diag.Data.Replacements {
			out = append(out, CodeAction{Title: "Replace with: " + r, Kind: "quickfix", Diagnostics: []Diagnostic{diag}, IsPreferred: i == 0,
				Edit: &WorkspaceEdit{Changes: map[string][]TextEdit{d.uri: {{Range: diag.Range, NewText: r}}}}})
		}
		if len(diag.Data.Command) > 0 && saved {
			arg, _ := json.Marshal(diag.Data.Command)
			line := harness.ShellJoin(diag.Data.Command)
			out = append(out, CodeAction{Title: "Run: " + line, Kind: "quickfix", Diagnostics: []Diagnostic{diag},
				Command: &Command{Title: "Run: " + line, Command: CommandRun, Arguments: []json.RawMessage{arg}}})
		}
	}
	return out
}

// overlaps reports whether two ranges share a line (code action ranges
// are often just the cursor).
func overlaps(a, b Range) bool {
	return a.Start.Line <= b.End.Line && b.Start.Line <= a.End.Line
}

// commandWords checks a workspace/executeCommand: CommandRun with one
// argument, the words of a command line that starts with the harness's
// command (Options.Command).
func (s *Server) commandWords(p ExecuteCommandParams) ([]string, *ResponseError) {
	if p.Command != CommandRun {
		return nil, &ResponseError{Code: CodeInvalidParams, Message: "unknown command " + p.Command}
	}
	var words []string
	if len(p.Arguments) != 1 || json.Unmarshal(p.Arguments[0], &words) != nil || len(words) == 0 {
		return nil, &ResponseError{Code: CodeInvalidParams, Message: CommandRun + " takes one argument: the command's words"}
	}
	if !hasPrefix(words, s.opt.Command) {
		return nil, &ResponseError{Code: CodeInvalidParams, Message: fmt.Sprintf("%s runs the harness only (%s …), not %s", CommandRun, harness.ShellJoin(s.opt.Command), harness.ShellJoin(words))}
	}
	if s.opt.Exec == nil {
		return nil, &ResponseError{Code: CodeInvalidRequest, Message: "this server runs no commands; run it in a terminal: " + harness.ShellJoin(words)}
	}
	return words, nil
}

// executeCommand runs a fixing command the server offered, in the root,
// and waits for it (handlers called directly; Serve runs it in the
// background, startCommand).
func (s *Server) executeCommand(ctx context.Context, p ExecuteCommandParams) (any, *ResponseError) {
	words, rerr := s.commandWords(p)
	if rerr != nil {
		return nil, rerr
	}
	out, err := s.opt.Exec(ctx, s.root, words)
	s.commandDone(words, out, err)
	return nil, nil
}

// startCommand starts a fixing command in the background; the request
// is answered when it ends, and requests go on being answered meanwhile
// (a recording runs Chromium for seconds).
func (s *Server) startCommand(ctx context.Context, id json.RawMessage, p ExecuteCommandParams) *ResponseError {
	words, rerr := s.commandWords(p)
	if rerr != nil {
		return rerr
	}
	root := s.root
	go func() {
		out, err := s.opt.Exec(ctx, root, words)
		done := func() error {
			s.commandDone(words, out, err)
			return s.conn.reply(id, nil, nil)
		}
		select {
		case s.jobs <- done:
		case <-s.stop:
		}
	}()
	return nil
}

// commandDone tells the user how the command ended, reads features/ again
// and publishes the open documents' diagnostics (a recording may now be
// there).
func (s *Server) commandDone(words []string, out []byte, err error) {
	typ, msg := MessageInfo, harness.ShellJoin(words)+": done"
	if err != nil {
		typ, msg = MessageError, fmt.Sprintf("%s: %v\n%s", harness.ShellJoin(words), err, tail(string(out), 20))
	}
	if s.conn != nil {
		_ = s.conn.notify("window/showMessage", ShowMessageParams{Type: typ, Message: msg})
	}
	s.scan()
	for _, d := range s.docs {
		s.publish(d)
	}
}

func hasPrefix(words, prefix []string) bool {
	if len(words) < len(prefix) {
		return false
	}
	for i := range prefix {
		if words[i] != prefix[i] {
			return false
		}
	}
	return true
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
