package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
)

func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("validate", stderr)
	adapterName := fs.String("adapter", "", "the adapter to validate: marker, heading, auto or an adapter file (this or --site)")
	siteFile := fs.String("site", "", "a site profile: validate its adapter, controls (Stop may replace Send while streaming) and page-level signals")
	quiet := fs.Bool("quiet", false, "print only each session's totals and its violations, one line per kind")
	asJSON := fs.String("json", "", "also write the report as JSON to this file (- for stdout: then stdout holds only the JSON)")
	composerRole := fs.String("composer-role", conformance.DefaultOptions.Composer.Role, "role of the composer")
	composerName := fs.String("composer-name", "", "accessible name of the composer (empty: the page must have exactly one)")
	sendName := fs.String("send-name", conformance.DefaultOptions.Send.Name, "accessible name of the send button")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if *adapterName == "" && *siteFile == "" {
		return exitBadInput, badInput("--adapter or --site is required")
	}
	if len(pos) != 1 {
		return exitBadInput, badInput("want exactly one DIR of recorded sessions, got %d", len(pos))
	}
	builtin := &builtinFiles{stderr: stderr, cmd: "validate"}
	defer builtin.Close()
	for _, p := range []*string{siteFile, adapterName, &pos[0]} {
		if *p, err = builtin.path(*p); err != nil {
			return exitFailed, err
		}
	}
	opt := conformance.Options{
		Composer: locate.Locator{Role: *composerRole, Name: *composerName},
		Send:     locate.Locator{Role: "button", Name: *sendName},
	}
	var ad adapter.Adapter
	if *siteFile != "" {
		p, err := site.Load(*siteFile)
		if err != nil {
			return exitBadInput, badInput("--site: %v", err)
		}
		if *adapterName != "" {
			// --adapter replaces the profile's adapter (try a fix)
			a, _, err := pickAdapter(*adapterName)
			if err != nil {
				return exitBadInput, err
			}
			p.Adapter = a
		}
		opt.Profile = p
		ad = p.Reader()
	} else {
		a, _, err := pickAdapter(*adapterName)
		if err != nil {
			return exitBadInput, err
		}
		ad = a
	}
	files, err := sessionFiles(pos[0])
	if err != nil {
		return exitBadInput, err
	}
	var reps []conformance.Session
	violations := 0
	for _, f := range files {
		s, err := replay.Load(f)
		if err != nil {
			if len(files) > 1 && (errors.Is(err, replay.ErrMalformed) || errors.Is(err, replay.ErrVersion)) && !looksLikeSession(f) {
				fmt.Fprintf(stderr, "replaylab validate: skipping %s: not a recorded session\n", builtin.show(f))
				continue
			}
			return exitBadInput, badInput("%v", err)
		}
		r := conformance.Check(builtin.show(f), s, ad, opt)
		violations += r.Errors()
		reps = append(reps, r)
	}
	if len(reps) == 0 {
		return exitBadInput, badInput("%s holds no recorded sessions (only other JSON files)", pos[0])
	}
	switch {
	case *asJSON == "-": // stdout holds the JSON only
	case *quiet:
		fmt.Fprint(stdout, conformance.Quiet(reps))
	default:
		fmt.Fprint(stdout, conformance.Text(reps))
	}
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

// looksLikeSession reports whether a JSON file has a session's shape (a
// version and steps), so a broken session is an error, not skipped.
func looksLikeSession(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, steps := probe["steps"]
	_, caps := probe["captures"]
	return steps && caps
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
