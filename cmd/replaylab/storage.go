package main

import (
	"flag"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/replay"
)

// storageFlag adds --storage-state to fs (APP-5).
func storageFlag(fs *flag.FlagSet) *string {
	return fs.String("storage-state", "", "a signed-in session to start every page with: cookies and local storage in Playwright's storageState JSON; its values are scrubbed from everything written")
}

// loadStorage reads --storage-state ("" is none); a bad file is bad input.
func loadStorage(path string) (*browser.StorageState, error) {
	if path == "" {
		return nil, nil
	}
	st, err := browser.LoadStorageState(path)
	if err != nil {
		return nil, badInput("--storage-state: %v", err)
	}
	return st, nil
}

// scrubCapture replaces the storage state's values in c (a capture
// printed, not recorded) with the scrubber's placeholders.
func scrubCapture(c *capture.Capture, st *browser.StorageState) *capture.Capture {
	secrets := st.Secrets()
	if len(secrets) == 0 || c == nil {
		return c
	}
	sc := replay.NewScrubber(nil, secrets...)
	out := *c
	out.URL = sc.Scrub(c.URL)
	out.Title = sc.Scrub(c.Title)
	out.Frames = append(out.Frames[:0:0], c.Frames...)
	for i := range out.Frames {
		out.Frames[i].HTML = sc.Scrub(out.Frames[i].HTML)
	}
	return &out
}
