package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
)

// recordLimits bound a manual recording.
type recordLimits struct {
	Captures int           // distinct captures at most
	Duration time.Duration // recording time at most
	Debounce time.Duration // quiet time that ends a burst of DOM changes
	BurstMax time.Duration // a burst is captured at least this often
}

var defaultRecordLimits = recordLimits{Captures: 500, Duration: 10 * time.Minute, Debounce: 300 * time.Millisecond, BurstMax: 2 * time.Second}

// SessionFile is the name of the session a `record` writes in its DIR.
const SessionFile = "session.json"

func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("record", stderr)
	url := fs.String("url", "", "the page to record (required)")
	out := fs.String("out", "", "directory to write "+SessionFile+" into (required)")
	adapterName := fs.String("adapter", "auto", "adapter for the progress report: marker, heading, auto or an adapter file")
	visible := fs.Bool("visible", false, "open a visible window (needs a display) instead of headless")
	cdpURL := fs.String("cdp", "", "attach to a running Chromium at this CDP websocket URL")
	lim := defaultRecordLimits
	fs.IntVar(&lim.Captures, "max-captures", lim.Captures, "stop after this many distinct captures")
	fs.DurationVar(&lim.Duration, "duration", lim.Duration, "stop after this long (Ctrl-C stops earlier)")
	fs.DurationVar(&lim.Debounce, "debounce", lim.Debounce, "quiet time that ends a burst of DOM changes")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	switch {
	case len(pos) > 0:
		return exitBadInput, badInput("unexpected arguments %v", pos)
	case *url == "":
		return exitBadInput, badInput("--url is required")
	case *out == "":
		return exitBadInput, badInput("--out is required")
	case lim.Captures < 1 || lim.Duration <= 0 || lim.Debounce <= 0:
		return exitBadInput, badInput("--max-captures, --duration and --debounce must be positive")
	}
	ad, _, err := pickAdapter(*adapterName)
	if err != nil {
		return exitBadInput, err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return exitBadInput, badInput("--out %s: %v", *out, err)
	}
	b, err := browser.Start(ctx, browser.Options{Visible: *visible, RemoteURL: *cdpURL})
	if err != nil {
		return exitFailed, err
	}
	defer b.Close()
	page, err := b.NewPage(context.WithoutCancel(ctx))
	if err != nil {
		return exitFailed, err
	}
	defer page.Close()
	scrub := replay.NewScrubber(replay.DefaultPatterns, replay.SecretsFromEnv(os.Getenv("REPLAYLAB_SECRETS"))...)
	rec := replay.NewRecorder(page, "", replay.Hooks{Scrub: scrub})
	work := context.WithoutCancel(ctx) // Ctrl-C stops the loop, not the writes
	if err := rec.Navigate(work, *url); err != nil {
		return exitFailed, err
	}
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
	s := rec.Session()
	path := filepath.Join(*out, SessionFile)
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
