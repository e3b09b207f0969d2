package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/replay"
)

func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("validate", stderr)
	adapterName := fs.String("adapter", "", "the adapter to validate: marker, heading, auto or an adapter file (required)")
	asJSON := fs.String("json", "", "also write the report as JSON to this file (- for stdout)")
	composerRole := fs.String("composer-role", conformance.DefaultOptions.Composer.Role, "role of the composer")
	composerName := fs.String("composer-name", "", "accessible name of the composer (empty: the page must have exactly one)")
	sendName := fs.String("send-name", conformance.DefaultOptions.Send.Name, "accessible name of the send button")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if *adapterName == "" {
		return exitBadInput, badInput("--adapter is required")
	}
	if len(pos) != 1 {
		return exitBadInput, badInput("want exactly one DIR of recorded sessions, got %d", len(pos))
	}
	ad, _, err := pickAdapter(*adapterName)
	if err != nil {
		return exitBadInput, err
	}
	files, err := sessionFiles(pos[0])
	if err != nil {
		return exitBadInput, err
	}
	opt := conformance.Options{
		Composer: locate.Locator{Role: *composerRole, Name: *composerName},
		Send:     locate.Locator{Role: "button", Name: *sendName},
	}
	var reps []conformance.Session
	violations := 0
	for _, f := range files {
		s, err := replay.Load(f)
		if err != nil {
			return exitBadInput, badInput("%v", err)
		}
		r := conformance.Check(f, s, ad, opt)
		violations += len(r.Violations)
		reps = append(reps, r)
	}
	fmt.Fprint(stdout, conformance.Text(reps))
	if *asJSON != "" {
		data, err := json.MarshalIndent(struct {
			Adapter    string                `json:"adapter"`
			Sessions   []conformance.Session `json:"sessions"`
			Violations int                   `json:"violations"`
		}{ad.Name(), reps, violations}, "", "  ")
		if err != nil {
			return exitFailed, err
		}
		if *asJSON == "-" {
			fmt.Fprintln(stdout, string(data))
		} else if err := os.WriteFile(*asJSON, append(data, '\n'), 0o644); err != nil {
			return exitBadInput, badInput("--json %s: %v", *asJSON, err)
		}
	}
	if violations > 0 {
		return exitFailed, fmt.Errorf("%d conformance violations", violations)
	}
	return exitOK, nil
}

// sessionFiles lists the recorded sessions under dir (every .json file).
func sessionFiles(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, badInput("cannot read %s: %v", dir, err)
	}
	if !st.IsDir() {
		return []string{dir}, nil
	}
	var out []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, badInput("cannot read %s: %v", dir, err)
	}
	if len(out) == 0 {
		return nil, badInput("%s holds no recorded sessions (*.json)", dir)
	}
	sort.Strings(out)
	return out, nil
}
