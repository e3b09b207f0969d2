package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/infer"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/steps"
)

// Exit codes of init beyond the common ones (0 written and validated, 2
// bad input).
const (
	exitInitUnreachable = 3 // the page did not open (network error or an HTTP error status)
	exitInitNoComposer  = 4 // the page shows nothing to type a message into
	exitInitNoInference = 5 // the session shows no user turn and answer to infer from
	exitInitInvalid     = 6 // validate found violations over init's own session
)

// initDefaultSend is the message init sends when --send is not given.
const initDefaultSend = "What is the capital of France?"

// initReport is the report file init writes beside the profile.
const initReport = "init-report.md"

// cmdInit brings a site in with one command (AUTH-1): it opens URL, finds
// the composer and the send control, sends one message, records the page
// until the answer is quiet, infers the profile and the adapter from the
// recording (engine/infer), writes them with the session and a report, and
// validates the adapter over its own session. --from SESSION.json infers
// from a session recorded before, offline.
func cmdInit(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("init", stderr)
	from := fs.String("from", "", "infer from this recorded session (one send and its answer) instead of opening a page: offline")
	send := fs.String("send", initDefaultSend, "the message to send")
	out := fs.String("out", "", "the directory to write the profile, the adapter, the session and the report into (default: the site's name)")
	force := fs.Bool("force", false, "write into --out even when it holds files")
	name := fs.String("name", "", "the site's name in the profile ([a-z0-9-]+; default from the URL)")
	baseURL := fs.String("base-url", "", "with --from: the site's live base URL for the profile (default the session's)")
	clockFlag := fs.String("clock", "", "the profile's clock, wall or page (default: page when the answer arrived over fetch, XHR or EventSource, else wall)")
	composerSel := fs.String("composer", "", "a CSS selector for the composer, when init does not find it")
	sendSel := fs.String("send-button", "", "a CSS selector for the send control, when init does not find it (\"enter\": send with Enter)")
	answerWait := fs.Duration("answer-timeout", 30*time.Second, "how long the answer may take")
	quiet := fs.Duration("quiet", 2500*time.Millisecond, "the answer is over when the page has not changed for this long")
	visible := fs.Bool("visible", false, "open a visible window (needs a display) instead of headless")
	storagePath := storageFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	switch {
	case len(pos) > 1:
		return exitBadInput, badInput("init takes one URL, got %d arguments", len(pos))
	case len(pos) == 1 && *from != "":
		return exitBadInput, badInput("give a URL (init opens it and sends) or --from SESSION.json (offline), not both")
	case len(pos) == 0 && *from == "":
		return exitBadInput, badInput("give the chat page's URL, e.g. replaylab init http://127.0.0.1:8088/chat (or --from SESSION.json)")
	case *clockFlag != "" && *clockFlag != site.ClockWall && *clockFlag != site.ClockPage:
		return exitBadInput, badInput("--clock must be wall or page, got %q", *clockFlag)
	case strings.TrimSpace(*send) == "":
		return exitBadInput, badInput("--send must not be empty")
	case *visible && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "":
		return exitBadInput, badInput("--visible needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set: drop --visible (init runs headless)")
	}
	opt := infer.Options{Name: *name, BaseURL: *baseURL, Clock: *clockFlag}
	if *clockFlag != "" {
		opt.ClockEvidence = "set with --clock"
	}
	if opt.Name != "" && !siteNameOK(opt.Name) {
		return exitBadInput, badInput("--name %q: want lower-case letters, digits and dashes", opt.Name)
	}
	var s *replay.Session
	if *from != "" {
		if _, err := os.Stat(*from); errors.Is(err, os.ErrNotExist) {
			return exitBadInput, badInput("--from %s: no such file", *from)
		}
		if s, err = replay.Load(*from); err != nil {
			return exitBadInput, badInput("--from %s: not a recorded session: %v", *from, err)
		}
	} else {
		u, err := neturl.Parse(pos[0])
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return exitBadInput, badInput("%q is not a page's URL: want http:// or https:// and a host, e.g. http://127.0.0.1:8088/chat", pos[0])
		}
		if opt.BaseURL == "" {
			opt.BaseURL = u.Scheme + "://" + u.Host
		}
	}
	if *out == "" {
		*out = opt.Name
		if *out == "" {
			*out = defaultInitName(s, pos)
		}
	}
	if ents, err := os.ReadDir(*out); err == nil && len(ents) > 0 && !*force {
		return exitBadInput, badInput("--out %s exists and holds files; choose another directory (--out DIR) or overwrite: add --force", *out)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return exitBadInput, badInput("--out %s: %v", *out, err)
	}
	sessionPath := filepath.Join(*out, SessionFile)
	if s == nil {
		storage, err := loadStorage(*storagePath)
		if err != nil {
			return exitBadInput, err
		}
		live := initLive{url: pos[0], send: *send, base: opt.BaseURL, composer: *composerSel, sendSel: *sendSel,
			wait: *answerWait, quiet: *quiet, visible: *visible, storage: storage, stderr: stderr}
		var code int
		s, code, err = live.run(ctx, sessionPath)
		if err != nil {
			return code, err
		}
		if opt.Clock == "" {
			opt.Clock, opt.ClockEvidence = live.clock, live.clockEvidence
		}
	} else if err := s.Save(sessionPath); err != nil {
		return exitFailed, err
	}
	res, err := infer.Infer(s, opt)
	if err != nil {
		return exitInitNoInference, fmt.Errorf("%w\nthe session is in %s; see what the page showed: replaylab observe --capture %d %s", err, sessionPath, len(s.Captures)-1, sessionPath)
	}
	profPath := filepath.Join(*out, res.Profile.Name+".json")
	adPath := filepath.Join(*out, res.Profile.Adapter)
	if err := writeJSON(adPath, res.Adapter); err != nil {
		return exitFailed, err
	}
	if err := writeJSON(profPath, res.Profile); err != nil {
		return exitFailed, err
	}
	prof, err := site.Load(profPath)
	if err != nil {
		return exitInitNoInference, fmt.Errorf("init: the inferred profile does not load: %w", err)
	}
	rep := conformance.Check(sessionPath, s, prof.Reader(), conformance.OptionsFor(prof))
	report := initReportText(res, rep, profPath, adPath, sessionPath)
	if err := os.WriteFile(filepath.Join(*out, initReport), []byte(report), 0o644); err != nil {
		return exitFailed, err
	}
	fmt.Fprint(stdout, report)
	if n := rep.Errors(); n > 0 {
		return exitInitInvalid, fmt.Errorf("validate found %d violations of the inferred adapter over its own session (listed above); set the fields the report names by hand, then check again: %s",
			n, harness.ShellJoin(append(replaylabCmd(), "validate", "--site", profPath, *out)))
	}
	fmt.Fprintf(stderr, "replaylab init: wrote %s, %s, %s and %s; validate: 0 violations\n", profPath, adPath, sessionPath, filepath.Join(*out, initReport))
	return exitOK, nil
}

// replaylabCmd is how hints spell the replaylab command itself.
func replaylabCmd() []string {
	a := invokedAs() // ends with the run command
	return a[:len(a)-1]
}

func siteNameOK(n string) bool {
	for _, c := range n {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return n != ""
}

// defaultInitName is the output directory's name when --out is not given.
func defaultInitName(s *replay.Session, pos []string) string {
	u := ""
	if len(pos) == 1 {
		u = pos[0]
	} else if s != nil {
		for _, st := range s.Steps {
			if st.Kind == replay.KindNavigate {
				u = st.URL
				break
			}
		}
	}
	if p, err := neturl.Parse(u); err == nil {
		seg := strings.Trim(p.Path, "/")
		if i := strings.LastIndex(seg, "/"); i >= 0 {
			seg = seg[i+1:]
		}
		var b strings.Builder
		for _, c := range strings.ToLower(seg) {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
				b.WriteRune(c)
			}
		}
		if b.Len() > 0 {
			return "site-" + b.String()
		}
	}
	return "site"
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// initLive is the live half of init: open, find, send, record.
type initLive struct {
	url, send, base   string
	composer, sendSel string
	wait, quiet       time.Duration
	visible           bool
	storage           *browser.StorageState
	stderr            io.Writer

	// clock is what the answer arrived over: "page" for fetch, XHR or
	// EventSource, "wall" otherwise, with its evidence.
	clock, clockEvidence string
}

func (l *initLive) run(ctx context.Context, sessionPath string) (*replay.Session, int, error) {
	b, err := startBrowser(ctx, browser.Options{Visible: l.visible, StorageState: l.storage})
	if err != nil {
		return nil, exitFailed, err
	}
	defer b.Close()
	page, err := b.NewPage(context.WithoutCancel(ctx))
	if err != nil {
		return nil, exitFailed, err
	}
	defer page.Close()
	scrub := replay.NewScrubber(replay.DefaultPatterns, append(replay.SecretsFromEnv(os.Getenv("REPLAYLAB_SECRETS")), l.storage.Secrets()...)...)
	rec := replay.NewRecorder(page, steps.SiteCanonicalBase, replay.Hooks{Scrub: scrub, Rewrite: replay.BaseRewriter(steps.SiteCanonicalBase, l.base)})
	if err := rec.Navigate(ctx, l.url); err != nil {
		return nil, exitInitUnreachable, fmt.Errorf("the page %s did not open: %w\nstart the site, then run init again: %s", l.url, err,
			harness.ShellJoin(append(replaylabCmd(), "init", l.url)))
	}
	if st := rec.NavigationStatus(); st >= 400 {
		return nil, exitInitUnreachable, fmt.Errorf("the page %s answered HTTP %d: give the chat page's URL (observe shows what a URL serves: %s)", l.url, st,
			harness.ShellJoin(append(replaylabCmd(), "observe", l.url)))
	}
	if busy, err := rec.WaitQuiet(ctx, 300*time.Millisecond, 10*time.Second); err != nil {
		return nil, exitFailed, err
	} else if busy != "" {
		fmt.Fprintf(l.stderr, "replaylab init: the page was still busy after 10 s (%s); going on\n", busy)
	}
	c, err := rec.Capture(ctx)
	if err != nil {
		return nil, exitFailed, err
	}
	doc, err := observe.Parse(c)
	if err != nil {
		return nil, exitFailed, err
	}
	comp, err := l.findComposer(doc)
	if err != nil {
		return nil, exitInitNoComposer, fmt.Errorf("%w\nsee what the page shows (%s), then name it: %s", err,
			harness.ShellJoin(append(replaylabCmd(), "observe", l.url)),
			harness.ShellJoin(append(replaylabCmd(), "init", "--composer", "CSS-SELECTOR", l.url)))
	}
	snd, err := l.findSend(doc, comp.Node)
	if err != nil {
		return nil, exitInitNoComposer, err
	}
	fmt.Fprintf(l.stderr, "replaylab init: composer %s (%s)\nreplaylab init: send %s (%s)\n", comp.Control, comp.Evidence, snd.Control, snd.Evidence)
	before, _ := page.Requests(ctx)
	if err := rec.Type(ctx, comp.Node, l.send); err != nil {
		return nil, exitFailed, fmt.Errorf("typing into the composer %s: %w", comp.Control, err)
	}
	if _, err := rec.Capture(ctx); err != nil {
		return nil, exitFailed, err
	}
	if snd.Control.By == "enter" {
		err = rec.Press(ctx, comp.Node, "Enter")
	} else {
		err = rec.Click(ctx, snd.Node)
	}
	if err != nil {
		return nil, exitFailed, fmt.Errorf("sending with %s: %w", snd.Control, err)
	}
	// record until the page has been quiet for l.quiet (the answer is
	// over), at most l.wait
	deadline := time.Now().Add(l.wait)
	lim := defaultRecordLimits
	for {
		if _, err := rec.Capture(ctx); err != nil {
			return nil, exitFailed, err
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		start := time.Now()
		if err := page.Sleep(ctx, min(l.quiet, time.Until(deadline))); err != nil {
			break
		}
		if time.Since(start) >= l.quiet {
			break // quiet: the answer is over
		}
		// a change: capture once the burst settles (as record does),
		// at most lim.BurstMax after it began
		for burst := time.Now(); time.Since(burst) < lim.BurstMax; {
			before := time.Now()
			if err := page.Sleep(ctx, lim.Debounce); err != nil || time.Since(before) >= lim.Debounce {
				break
			}
		}
	}
	after, _ := page.Requests(ctx)
	l.clock, l.clockEvidence = clockOf(before, after)
	s := rec.Session()
	if err := s.SaveChecked(sessionPath, scrub); err != nil {
		return nil, exitFailed, fmt.Errorf("refusing to write the recording: %w", err)
	}
	fmt.Fprintf(l.stderr, "replaylab init: recorded %d captures into %s\n", len(s.Captures), sessionPath)
	return s, exitOK, nil
}

func (l *initLive) findComposer(doc *observe.Document) (infer.Found, error) {
	if l.composer == "" {
		return infer.FindComposer(doc)
	}
	return infer.FindSelector(doc, l.composer)
}

func (l *initLive) findSend(doc *observe.Document, composer string) (infer.Found, error) {
	switch l.sendSel {
	case "":
		return infer.FindSend(doc, composer), nil
	case "enter":
		return infer.Found{Control: infer.Control{By: "enter"}, Evidence: "--send-button enter"}, nil
	}
	f, err := infer.FindSelector(doc, l.sendSel)
	f.Control.By = "click"
	return f, err
}

// clockOf reads what the answer arrived over from the requests the page
// made after the send: fetch, XHR or an EventSource ("other") means the
// page's own stream, which the page clock paces.
func clockOf(before, after []browser.Request) (clock, evidence string) {
	var kinds []string
	for _, r := range after[min(len(before), len(after)):] {
		switch r.Initiator {
		case "fetch", "xmlhttprequest", "other":
			kinds = append(kinds, r.Initiator+" "+r.URL)
		}
	}
	if len(kinds) == 0 {
		return site.ClockWall, "no fetch, XHR or EventSource request after the send: the answer is made in the page or over a connection opened before (a WebSocket is not seen: set \"page\" by hand for one)"
	}
	if len(kinds) > 3 {
		kinds = append(kinds[:3], "…")
	}
	return site.ClockPage, "the answer came over " + strings.Join(kinds, ", ") + ": the page clock paces what streams in"
}

// initReportText is the report: what was found, its evidence and
// confidence, what to set by hand, and validate's verdict.
func initReportText(res *infer.Result, rep conformance.Session, profPath, adPath, sessionPath string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# replaylab init: %s\n\n", res.Profile.Name)
	fmt.Fprintf(&b, "Profile `%s`, adapter `%s`, session `%s`.\n\n", filepath.Base(profPath), filepath.Base(adPath), filepath.Base(sessionPath))
	b.WriteString("| found | value | evidence | confidence |\n|---|---|---|---|\n")
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.Field, mdCell(f.Value), mdCell(f.Evidence), f.Confidence)
	}
	b.WriteString("\n## Set by hand\n\n")
	if len(res.ByHand) == 0 {
		b.WriteString("Nothing: every field was found.\n")
	}
	for _, h := range res.ByHand {
		fmt.Fprintf(&b, "- %s\n", h)
	}
	fmt.Fprintf(&b, "\n## Validate\n\n%d captures, %d sends, %d violations", len(rep.Captures), len(rep.Decisions), rep.Errors())
	warn := len(rep.Violations) - rep.Errors()
	if warn > 0 {
		fmt.Fprintf(&b, ", %d warnings", warn)
	}
	b.WriteString(".\n")
	for _, v := range rep.Violations {
		fmt.Fprintf(&b, "- %s [%s] capture %d: %s\n", strings.ToUpper(v.Severity), v.Check, v.Capture, v.Detail)
	}
	return b.String()
}

func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
