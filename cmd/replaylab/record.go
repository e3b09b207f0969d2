package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
	"github.com/replaylab/replaylab/steps"
)

// recordLimits bound a manual recording.
type recordLimits struct {
	Captures int           // distinct captures at most
	Duration time.Duration // recording time at most
	Debounce time.Duration // quiet time that ends a burst of DOM changes
	BurstMax time.Duration // a burst is captured at least this often
}

// defaultRecordLimits: a burst is captured when it has been quiet for
// Debounce, and at least every BurstMax while it goes on, so a 1–2 s
// stream (DOM changes every 50–150 ms, never quiet) still yields several
// captures in the generating state (measured in TestRecordDebounce).
var defaultRecordLimits = recordLimits{Captures: 500, Duration: 10 * time.Minute, Debounce: 150 * time.Millisecond, BurstMax: 250 * time.Millisecond}

// SessionFile is the name of the session a `record` writes in its DIR.
const SessionFile = "session.json"

func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("record", stderr)
	url := fs.String("url", "", "the page to record (required unless --site: then the profile's chat page)")
	siteFile := fs.String("site", "", "a site profile: its adapter, controls and signals; --url defaults to its chat page")
	baseURL := fs.String("base-url", "", "with --site: the site's base URL instead of the profile's")
	var sends stringList
	fs.Var(&sends, "send", "scripted, headless: send this message through the profile's composer and send control, wait for the answer, record everything; repeatable (needs --site)")
	answerWait := fs.Duration("answer-timeout", 30*time.Second, "with --send: how long each answer may take")
	out := fs.String("out", "", "directory to write "+SessionFile+" into (required)")
	adapterName := fs.String("adapter", "auto", "adapter for the progress report: marker, heading, auto or an adapter file")
	visible := fs.Bool("visible", false, "open a visible window (needs a display) instead of headless")
	cdpURL := fs.String("cdp", "", "attach to a running Chromium at this CDP websocket URL")
	storagePath := storageFlag(fs)
	lim := defaultRecordLimits
	fs.IntVar(&lim.Captures, "max-captures", lim.Captures, "stop after this many distinct captures")
	fs.DurationVar(&lim.Duration, "duration", lim.Duration, "stop after this long (Ctrl-C stops earlier)")
	fs.DurationVar(&lim.Debounce, "debounce", lim.Debounce, "quiet time that ends a burst of DOM changes")
	fs.DurationVar(&lim.BurstMax, "burst-max", lim.BurstMax, "while DOM changes go on, capture at least this often")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	storage, err := loadStorage(*storagePath)
	if err != nil {
		return exitBadInput, err
	}
	var prof *site.Profile
	if *siteFile != "" {
		p, err := site.Load(*siteFile)
		if err != nil {
			return exitBadInput, badInput("--site: %v", err)
		}
		if *baseURL != "" {
			p = p.WithBase(*baseURL)
		}
		prof = p
		if *url == "" {
			*url = p.URL(p.ChatPath)
		}
	}
	switch {
	case len(pos) > 0:
		return exitBadInput, badInput("unexpected arguments %v", pos)
	case *url == "":
		return exitBadInput, badInput("--url is required (or --site)")
	case *out == "":
		return exitBadInput, badInput("--out is required")
	case lim.Captures < 1 || lim.Duration <= 0 || lim.Debounce <= 0 || lim.BurstMax <= 0:
		return exitBadInput, badInput("--max-captures, --duration, --debounce and --burst-max must be positive")
	case len(sends) > 0 && prof == nil:
		return exitBadInput, badInput("--send needs --site (the profile says where the composer and the send control are)")
	case *baseURL != "" && prof == nil:
		return exitBadInput, badInput("--base-url needs --site")
	case *visible && *cdpURL == "" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "":
		return exitBadInput, badInput("--visible needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set: record headless (drop --visible; --send scripts the sends), or run where a display exists")
	}
	var ad adapter.Adapter
	if prof != nil {
		ad = prof.Reader()
		if *adapterName != "auto" {
			a, _, err := pickAdapter(*adapterName)
			if err != nil {
				return exitBadInput, err
			}
			ad = a
		}
	} else {
		a, _, err := pickAdapter(*adapterName)
		if err != nil {
			return exitBadInput, err
		}
		ad = a
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return exitBadInput, badInput("--out %s: %v", *out, err)
	}
	b, err := startBrowser(ctx, browser.Options{Visible: *visible, RemoteURL: *cdpURL, StorageState: storage})
	if err != nil {
		if ctx.Err() != nil {
			return exitFailed, fmt.Errorf("record: interrupted while the browser started; nothing was recorded")
		}
		return exitFailed, err
	}
	defer b.Close()
	page, err := b.NewPage(context.WithoutCancel(ctx))
	if err != nil {
		return exitFailed, err
	}
	defer page.Close()
	scrub := replay.NewScrubber(replay.DefaultPatterns, append(replay.SecretsFromEnv(os.Getenv("REPLAYLAB_SECRETS")), storage.Secrets()...)...)
	hooks := replay.Hooks{Scrub: scrub}
	base := ""
	if prof != nil {
		// a site's recording stores its base URL canonically, as the
		// harness does, so it can be committed and replayed anywhere
		base = steps.SiteCanonicalBase
		hooks.Rewrite = replay.BaseRewriter(base, prof.BaseURL)
	}
	rec := replay.NewRecorder(page, base, hooks)
	work := context.WithoutCancel(ctx) // Ctrl-C stops the loop, not the writes
	if len(sends) > 0 {
		return recordSends(ctx, rec, scrub, prof, ad, *url, sends, *answerWait, filepath.Join(*out, SessionFile), stdout, stderr)
	}
	// the user's clicks, key presses and typed text become steps, taken
	// from the page (installed before the first document loads)
	if err := page.WatchUser(work, func(ev browser.UserEvent) { rec.User(ev.Kind, ev.Node, ev.Text, ev.Key) }); err != nil {
		return exitFailed, err
	}
	if err := rec.Navigate(work, *url); err != nil {
		return exitFailed, err
	}
	// A recording by hand keeps the page's load too: its loading states
	// are part of what the site does, and the validator knows them
	// (APP-4). Only a scripted send waits for the page to be ready
	// (APP-1, recordSends).
	fmt.Fprintf(stderr, "replaylab record: recording %s into %s (Ctrl-C or %s or %d captures stop it)\n", *url, *out, lim.Duration, lim.Captures)
	deadline := time.Now().Add(lim.Duration)
	captures := 0
	var last string
	for {
		c, err := rec.Capture(work)
		if err != nil {
			return exitFailed, err
		}
		if n := len(rec.Session().Captures); n != captures {
			captures = n
			line := fmt.Sprintf("capture %d", captures)
			if doc, err := observe.Parse(c); err == nil {
				r := ad.Groups(doc)
				line += fmt.Sprintf(": %d groups (%s)", len(r.Groups), r.Adapter)
				if n := len(r.Groups); n > 0 {
					line += fmt.Sprintf(", last %s %s", r.Groups[n-1].ID, r.Groups[n-1].State)
				}
			}
			if line != last {
				fmt.Fprintln(stderr, "  "+line)
				last = line
			}
		}
		if captures >= lim.Captures || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		if err := waitBurst(ctx, page, lim, time.Until(deadline)); err != nil {
			break // interrupted: write what we have
		}
	}
	return saveRecording(rec, scrub, filepath.Join(*out, SessionFile), stdout)
}

// startBrowser starts Chromium, giving up when ctx ends (a signal): the
// browser that comes up late is closed, and its temp dir with it.
func startBrowser(ctx context.Context, opt browser.Options) (*browser.Browser, error) {
	type started struct {
		b   *browser.Browser
		err error
	}
	ch := make(chan started, 1)
	go func() {
		b, err := browser.Start(context.WithoutCancel(ctx), opt)
		ch <- started{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.b != nil {
				_ = r.b.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// recordSends is the scripted mode: open url, send each message through
// the profile, wait for each answer with the profile's signals, and save
// every capture the engine read on the way (it polls while an answer
// streams, so the generating state is in the recording).
func recordSends(ctx context.Context, rec *replay.Recorder, scrub *replay.Scrubber, prof *site.Profile, ad adapter.Adapter, url string, sends []string, wait time.Duration, path string, stdout, stderr io.Writer) (int, error) {
	eng := engine.New(engine.Config{Adapter: ad, Ready: prof.Readiness(), Settle: prof.Settle})
	task := eng.Begin(ctx, "record")
	pg := task.Page("main", rec)
	status := exitOK
	var failure error
	if err := pg.Navigate(ctx, url); err != nil {
		return exitFailed, err
	}
	for i, text := range sends {
		if ctx.Err() != nil {
			failure = fmt.Errorf("interrupted before send %d", i+1)
			status = exitFailed
			break
		}
		if err := prof.SendMessage(ctx, pg, text, wait); err != nil {
			failure = fmt.Errorf("send %d (%q): %w", i+1, text, err)
			status = exitFailed
			break
		}
		r, err := pg.WaitAnswer(ctx, answer.Options{Timeout: wait})
		if err != nil {
			failure = fmt.Errorf("send %d: wait for the answer: %w", i+1, err)
			status = exitFailed
			break
		}
		fmt.Fprintf(stderr, "  send %d %q: %s in group %s, states %s\n", i+1, text, r.Status, r.GroupID, strings.Join(r.States, " → "))
	}
	if code, err := saveRecording(rec, scrub, path, stdout); err != nil {
		return code, err
	}
	return status, failure
}

// saveRecording writes what was recorded, scrubbed.
func saveRecording(rec *replay.Recorder, scrub *replay.Scrubber, path string, stdout io.Writer) (int, error) {
	s := rec.Session()
	if err := s.SaveChecked(path, scrub); err != nil {
		if errors.Is(err, replay.ErrSecretInRecording) {
			return exitFailed, fmt.Errorf("refusing to write the recording: %w", err)
		}
		return exitFailed, err
	}
	st, _ := os.Stat(path)
	size := int64(0)
	if st != nil {
		size = st.Size()
	}
	fmt.Fprintf(stdout, "replaylab record: %d captures, %d steps, %d bytes (%d bytes per capture) in %s\n",
		len(s.Captures), len(s.Steps), size, size/int64(max(1, len(s.Captures))), path)
	return exitOK, nil
}

// waitBurst waits for the next DOM change, then for the burst of changes
// to settle (no change for Debounce), but never longer than BurstMax once
// it started.
func waitBurst(ctx context.Context, p *browser.Page, lim recordLimits, left time.Duration) error {
	if left <= 0 {
		return nil
	}
	if err := p.Sleep(ctx, left); err != nil { // wakes on the first change
		return err
	}
	start := time.Now()
	for time.Since(start) < lim.BurstMax {
		before := time.Now()
		if err := p.Sleep(ctx, lim.Debounce); err != nil {
			return err
		}
		if time.Since(before) >= lim.Debounce {
			return nil // quiet for a whole debounce: the burst is over
		}
	}
	return nil
}
