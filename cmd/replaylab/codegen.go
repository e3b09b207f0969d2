package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/steps/vocabulary"
)

// codegenMediaWaitMS is how long a generated wait for an answer with a picture or
// a video waits (the answer steps' own bound).
const codegenMediaWaitMS = 10000

// cmdCodegen turns a recorded session (--from, or one a person records on
// URL in a visible browser, as record --visible) into a feature file written with
// catalogue steps only (AUTH-2, offline): the page it opened, each send
// (what was typed, sent through the composer and the send control or
// Enter) followed by a wait for the answer, and checks of what the
// session showed of that answer: its last status, the states it went
// through and its text. The steps are checked against the catalogue (the
// dry run's Checker) before anything is written.
func cmdCodegen(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("codegen", stderr)
	from := fs.String("from", "", "a recorded session (session.json from `replaylab record`, or a scenario's recordings/sessions/…json) to turn into a feature file (required)")
	siteFile := fs.String("site", "", "the site profile the session was recorded on, as the feature names it (a path from the project root): the feature begins with `Given the site \"FILE\"` and the session is read with its adapter; without it, the page is read with --adapter")
	adapterName := fs.String("adapter", "auto", "without --site: the adapter that reads the session (marker, heading, auto or an adapter file)")
	out := fs.String("out", "", "the feature file to write (default with --from: print it on stdout; required with a URL); an existing file is kept unless --force")
	force := fs.Bool("force", false, "overwrite --out when it exists")
	feature := fs.String("feature", "", "the feature's name (default: from the session file's name)")
	scenario := fs.String("scenario", "", "the scenario's name (default: from what it sends)")
	root := fs.String("root", "", "the project whose catalogue checks the steps and from which --site is named (default: the nearest directory at or above the current one with features/, else the current one)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	dir := *root
	if dir == "" {
		if found, ok := findRoot("."); ok {
			dir = found
		} else {
			dir = "."
		}
	}
	live := "" // codegen URL: record the person first
	switch {
	case len(pos) > 1:
		return exitBadInput, badInput("codegen takes one URL, got %d arguments", len(pos))
	case len(pos) == 1 && *from != "":
		return exitBadInput, badInput("give a URL (a person records in a visible browser) or --from SESSION.json, not both")
	case len(pos) == 1 && (*siteFile == "" || *out == ""):
		return exitBadInput, badInput("codegen URL needs --site FILE (the profile the page is read with) and --out FEATURE (the feature to write)")
	case len(pos) == 1:
		live = pos[0]
	case *from == "":
		return exitBadInput, badInput("--from SESSION.json is required (a session recorded by replaylab record --out DIR is DIR/%s), or give a URL to record in a visible browser", SessionFile)
	}
	if live != "" {
		if _, err := os.Stat(*out); err == nil && !*force {
			return exitBadInput, badInput("--out %s exists; choose another file or add --force to overwrite it", *out)
		}
		tmp, code, err := codegenRecord(ctx, live, dir, *siteFile, stdout, stderr)
		if tmp != "" {
			defer os.RemoveAll(tmp)
		}
		if err != nil {
			return code, err
		}
		*from = filepath.Join(tmp, SessionFile)
		// the recording ended with Ctrl-C: what follows must not
		ctx = context.WithoutCancel(ctx)
	}
	if _, err := os.Stat(*from); errors.Is(err, os.ErrNotExist) {
		return exitBadInput, badInput("--from %s: no such file", *from)
	}
	s, err := replay.Load(*from)
	if err != nil {
		return exitBadInput, badInput("--from %s: not a recorded session: %v", *from, err)
	}
	var ad adapter.Adapter
	opt := conformance.DefaultOptions
	if *siteFile != "" {
		p, err := site.LoadIn(*siteFile, dir)
		if err != nil {
			return exitBadInput, badInput("--site: %v", err)
		}
		opt = conformance.OptionsFor(p)
		ad = p.Reader()
	} else {
		a, _, err := pickAdapter(*adapterName)
		if err != nil {
			return exitBadInput, err
		}
		ad = a
	}
	text, err := codegenFeature(s, *from, ad, opt, codegenNames{site: *siteFile, feature: *feature, scenario: *scenario})
	if err != nil {
		return exitFailed, err
	}
	// only catalogue steps: the dry run's check of the text
	chk, err := harness.NewChecker(harness.QA(vocabulary.Catalogue()))
	if err != nil {
		return exitFailed, err
	}
	problems, err := chk.CheckFile(harness.Options{Root: dir}, []byte(text), "codegen.feature", "codegen.feature", false)
	if err != nil {
		return exitFailed, fmt.Errorf("codegen: the generated feature does not parse: %w", err)
	}
	if len(problems) > 0 {
		var b strings.Builder
		for _, p := range problems {
			fmt.Fprintf(&b, "\n  %s", p)
		}
		return exitFailed, fmt.Errorf("codegen: the generated feature does not pass the dry run:%s\n%s", b.String(), text)
	}
	if *out == "" {
		_, err := io.WriteString(stdout, text)
		return exitOK, err
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		return exitBadInput, badInput("--out %s exists; choose another file or add --force to overwrite it", *out)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return exitFailed, err
	}
	if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
		return exitFailed, err
	}
	if live == "" {
		fmt.Fprintf(stderr, "replaylab codegen: wrote %s\nrecord it once, live, to replay it from then on: %s\n", *out,
			harness.ShellJoin(append(invokedAs(), "--mode", "record-once", *out)))
		return exitOK, nil
	}
	// codegen URL: record the feature's session and golden live, then
	// replay it once to prove it passes
	fmt.Fprintf(stderr, "replaylab codegen: wrote %s; recording it live, then replaying it\n", *out)
	for _, args := range [][]string{
		{"--root", dir, "--mode", "record-once", *out},
		{"--root", dir, *out},
	} {
		code, err := cmdRun(ctx, args, stdout, stderr)
		if err != nil || code != exitOK {
			if err == nil {
				err = fmt.Errorf("exit %d", code)
			}
			return exitFailed, fmt.Errorf("codegen: %s does not pass (run %s): %w", *out, strings.Join(args, " "), err)
		}
	}
	fmt.Fprintf(stderr, "replaylab codegen: %s passes live and replayed\n", *out)
	return exitOK, nil
}

// codegenRecord records what a person does on url in a visible browser
// (record --visible with the profile, until Ctrl-C or the window
// closes) into a temporary directory (the caller removes it) and
// returns it.
func codegenRecord(ctx context.Context, url, root, siteFile string, stdout, stderr io.Writer) (string, int, error) {
	tmp, err := os.MkdirTemp("", "replaylab-codegen-")
	if err != nil {
		return "", exitFailed, err
	}
	profile := siteFile
	if !filepath.IsAbs(profile) {
		profile = filepath.Join(root, profile)
	}
	args := []string{"--visible", "--site", profile, "--url", url, "--out", tmp}
	if u, err := neturl.Parse(url); err == nil && u.Scheme != "" && u.Host != "" {
		args = append(args, "--base-url", u.Scheme+"://"+u.Host)
	}
	fmt.Fprintf(stderr, "replaylab codegen: use the page in the browser window; Ctrl-C (or closing the window) ends the recording\n")
	code, err := cmdRecord(ctx, args, stdout, stderr)
	if err != nil {
		return tmp, code, fmt.Errorf("codegen: %w", err)
	}
	return tmp, exitOK, nil
}

// codegenNames are the names a generated feature uses.
type codegenNames struct {
	site, feature, scenario string
	// clicks are the steps of the session's clicks that are no send, by
	// the index of the recorded step (codegenClicks)
	clicks map[int]string
	// decisionClicks are the Regenerate and Retry clicks that are click
	// steps (another answer's control), by the decision's step
	decisionClicks map[int]string
}

// codegenFeature writes the feature of session s (read from file) with
// adapter ad: one scenario of catalogue steps.
func codegenFeature(s *replay.Session, file string, ad adapter.Adapter, opt conformance.Options, n codegenNames) (string, error) {
	open := ""
	for _, st := range s.Steps {
		if st.Kind == replay.KindNavigate {
			open = pagePath(st.URL, s.Base)
			break
		}
	}
	if open == "" {
		return "", fmt.Errorf("codegen: %s opens no page", file)
	}
	rep := conformance.Check(file, s, ad, opt)
	clicks, decisions, err := codegenClicks(s, rep, ad, file)
	if err != nil {
		return "", err
	}
	n.clicks, n.decisionClicks = clicks, decisions
	return codegenText(rep, open, file, n)
}

// codegenText is the feature of the sends rep found in the session read
// from file, which opened the page open.
func codegenText(rep conformance.Session, open, file string, n codegenNames) (string, error) {
	var body []string
	var sent []string
	// the clicks that are no send, in the order they were made among the sends
	var clickAt []int
	for i := range n.clicks {
		clickAt = append(clickAt, i)
	}
	slices.Sort(clickAt)
	// an action after a check opens with When, after an action with And
	actionKw := func() string {
		if len(body) == 0 {
			return "And" // after When I open
		}
		last := body[len(body)-1]
		if strings.HasPrefix(last, "Then ") || strings.HasPrefix(last, "And the ") {
			return "When"
		}
		return "And"
	}
	clicksBefore := func(step int) {
		for len(clickAt) > 0 && clickAt[0] < step {
			body = append(body, actionKw()+" "+n.clicks[clickAt[0]])
			clickAt = clickAt[1:]
		}
	}
	for _, d := range rep.Decisions {
		clicksBefore(d.Step)
		kw := actionKw()
		switch action := strings.ToLower(d.Action); {
		case d.Typed == "" && n.decisionClicks[d.Step] != "":
			body = append(body, kw+" "+n.decisionClicks[d.Step])
		case d.Typed == "" && strings.Contains(action, "regenerate"):
			body = append(body, kw+" I regenerate the answer")
		case d.Typed == "" && (strings.Contains(action, "retry") || strings.Contains(action, "try again")):
			body = append(body, kw+" I retry the answer")
		case d.Typed == "":
			return "", fmt.Errorf("codegen: %s: the action at step %d (%s) sends nothing typed and is no Regenerate or Retry", file, d.Step, d.Action)
		case strings.Contains(d.Typed, `"`):
			return "", fmt.Errorf("codegen: %s: the text typed at step %d holds a double quote, which a step cannot quote: %q", file, d.Step, d.Typed)
		default:
			sent = append(sent, d.Typed)
			body = append(body, fmt.Sprintf("%s I send %q", kw, d.Typed))
		}
		if d.Group == "" {
			return "", fmt.Errorf("codegen: %s: no answer appeared after the send at step %d (%s); validate the session with this adapter: replaylab validate %s", file, d.Step, d.Action, validateArgs(n.site, file))
		}
		media := newGroupMedia(rep, d.Group)
		if media != "" {
			body = append(body, fmt.Sprintf("And I wait up to %d ms for the answer with %s %s", codegenMediaWaitMS, article(media), media))
		} else {
			body = append(body, "And I wait for the answer")
		}
		if len(d.States) > 0 {
			body = append(body, fmt.Sprintf("Then the answer status is %q", d.States[len(d.States)-1]))
		}
		states := d.States
		if i := slices.Index(states, "generating"); i > 0 && !slices.Contains(states[:i], "failed") {
			// an empty bubble before the first token reads complete to
			// the validator; the engine's wait never takes an empty group
			// for the answer, so its states start generating
			states = states[i:]
		}
		if len(states) > 1 {
			// a recorder captures on bursts of changes: a short answer may
			// be captured complete only, where the engine's wait sees it
			// generating first; only a transition the session caught is
			// checked
			body = append(body, fmt.Sprintf("And the states seen are %q", strings.Join(states, ", ")))
		}
		switch text := strings.TrimSpace(d.Text); {
		case text == "":
		case !strings.Contains(text, `"`) && !strings.Contains(text, "\n"):
			body = append(body, fmt.Sprintf("And the answer text is %q", text))
		default:
			if part := longestQuotable(text); part != "" {
				body = append(body, fmt.Sprintf("And the answer contains %q", part))
			}
		}
	}
	clicksBefore(math.MaxInt)
	if len(sent) == 0 && len(body) == 0 {
		return "", fmt.Errorf("codegen: %s holds no send (no click on the send control or Enter after typing); validate it: replaylab validate %s", file, validateArgs(n.site, file))
	}
	feature := n.feature
	if feature == "" {
		base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		if base == "session" {
			base = filepath.Base(filepath.Dir(file))
		}
		feature = "Recorded " + base
	}
	scenario := n.scenario
	if scenario == "" && len(sent) > 0 {
		scenario = "Sends " + strings.Join(quoteAll(sent), " and ")
	} else if scenario == "" {
		scenario = "Clicks on " + open
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by replaylab codegen from %s.\nFeature: %s\n\n  Scenario: %s\n", filepath.ToSlash(file), feature, scenario)
	if n.site != "" {
		fmt.Fprintf(&b, "    Given the site %q\n", filepath.ToSlash(n.site))
	}
	fmt.Fprintf(&b, "    When I open %q\n", open)
	for _, l := range body {
		b.WriteString("    " + l + "\n")
	}
	return b.String(), nil
}

// pagePath is the URL as the open step takes it: its path and query on
// the session's base, else the URL as it is.
func pagePath(u, base string) string {
	if base != "" && strings.HasPrefix(u, strings.TrimRight(base, "/")+"/") {
		return strings.TrimPrefix(u, strings.TrimRight(base, "/"))
	}
	if p, err := neturl.Parse(u); err == nil && p.Host != "" && (p.Hostname() == "127.0.0.1" || p.Hostname() == "localhost") {
		out := p.EscapedPath()
		if out == "" {
			out = "/"
		}
		if p.RawQuery != "" {
			out += "?" + p.RawQuery
		}
		return out
	}
	return u
}

// newGroupMedia is the kind of media ("image", "video") the new group
// holds in the session's last capture that shows it, "" for none.
func newGroupMedia(rep conformance.Session, group string) string {
	for i := len(rep.Captures) - 1; i >= 0; i-- {
		for _, g := range rep.Captures[i].Groups {
			if g.ID == group {
				for _, m := range g.Media {
					if m.Kind == "image" || m.Kind == "video" {
						return m.Kind
					}
				}
				return ""
			}
		}
	}
	return ""
}

func article(kind string) string {
	if strings.HasPrefix(kind, "i") {
		return "an"
	}
	return "a"
}

// longestQuotable is the longest line of text with no double quote.
func longestQuotable(text string) string {
	best := ""
	for line := range strings.SplitSeq(text, "\n") {
		for part := range strings.SplitSeq(line, `"`) {
			if p := strings.TrimSpace(part); len(p) > len(best) {
				best = p
			}
		}
	}
	return best
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// validateArgs are the arguments of the validate command for file.
func validateArgs(siteFile, file string) string {
	dir := filepath.Dir(file)
	if siteFile != "" {
		return harness.ShellJoin([]string{"--site", siteFile, dir})
	}
	return harness.ShellJoin([]string{"--adapter", "auto", dir})
}
