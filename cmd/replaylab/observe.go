package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
)

// loadSource turns SOURCE into a capture: an http(s) URL is opened in the
// browser driver and captured once the page is ready (ready: the site
// profile's readiness, or the default: no request in flight and the DOM
// quiet; APP-1); a file holding a capture (JSON with a version) is loaded;
// any other file is read as HTML. Malformed HTML is not bad input.
func loadSource(ctx context.Context, src, cdpURL string, ready engine.Readiness, st *browser.StorageState) (*capture.Capture, error) {
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		b, err := browser.Start(ctx, browser.Options{RemoteURL: cdpURL, StorageState: st})
		if err != nil {
			return nil, err
		}
		defer b.Close()
		p, err := b.NewPage(ctx)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		if err := p.Navigate(ctx, src); err != nil {
			return nil, err
		}
		if p.NavigationStatus() < 400 {
			if err := engine.AwaitReady(ctx, p, ready); err != nil {
				return nil, err
			}
		}
		c, err := p.Capture(ctx)
		return scrubCapture(c, st), err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, badInput("cannot read %s: %v", src, errors.Unwrap(err))
	}
	trimmed := strings.TrimSpace(string(data))
	if strings.HasPrefix(trimmed, "{") && strings.Contains(trimmed, `"version"`) {
		c, err := capture.Decode(data)
		if err != nil {
			return nil, badInput("%s: %v", src, err)
		}
		return c, nil
	}
	return capture.New("file://"+src, string(data)), nil
}

// pickAdapter resolves --adapter: marker, heading, auto or an adapter
// file. A bad file is bad input (exit 2) with the field and the reason.
func pickAdapter(name string) (adapter.Adapter, string, error) {
	ad, err := adapter.ByName(name)
	if err != nil {
		return nil, "", badInput("--adapter: %v", err)
	}
	return ad, "", nil
}

// observation is the JSON of `observe --json` (SPEC §9).
type observation struct {
	*observe.Snapshot
	Adapter string          `json:"adapter"`
	Note    string          `json:"adapterNote,omitempty"`
	Groups  []adapter.Group `json:"groups"`
	// GroupCount says how many groups the page has and whether --groups
	// left any out or a text was cut.
	GroupCount observe.Count `json:"groupCount"`
}

func cmdObserve(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("observe", stderr)
	adapterName := fs.String("adapter", "marker", "marker, heading, auto or an adapter file (JSON)")
	view := fs.String("view", observe.ViewFull, "full (the bounded full view) or page (the page API's shorter view)")
	asJSON := fs.Bool("json", false, "print JSON (compact; --indent to indent it)")
	indent := fs.Bool("indent", false, "with --json: indent the JSON")
	groupsFlag := fs.String("groups", "", "answer groups to print: the last N, or all (default: as the view: 20 for full, 5 for page)")
	cdpURL := fs.String("cdp", "", "for an http(s) SOURCE: attach to a running Chromium at this CDP websocket URL")
	captureN := fs.Int("capture", -1, "SOURCE is a recorded session: observe its capture N (0-based, as validate numbers them)")
	siteFile := fs.String("site", "", "read groups with a site profile's adapter and page-level signals (instead of --adapter)")
	storagePath := storageFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	storage, err := loadStorage(*storagePath)
	if err != nil {
		return exitBadInput, err
	}
	if len(pos) != 1 {
		return exitBadInput, badInput("want exactly one SOURCE (.html file, capture file or http(s) URL), got %d", len(pos))
	}
	lim, glim := observe.DefaultLimits, engine.DefaultFullGroups
	switch *view {
	case observe.ViewFull:
	case observe.ViewPage:
		lim, glim = observe.PageLimits, engine.DefaultPageGroups
	default:
		return exitBadInput, badInput("--view must be full or page, got %q", *view)
	}
	switch g := *groupsFlag; {
	case g == "":
	case g == "all":
		glim.GroupsMax = math.MaxInt
	default:
		n, err := strconv.Atoi(g)
		if err != nil || n < 0 {
			return exitBadInput, badInput("--groups must be a number of groups (0 or more) or all, got %q", g)
		}
		glim.GroupsMax = n
	}
	ad, note, err := pickAdapter(*adapterName)
	if err != nil {
		return exitBadInput, err
	}
	var ready engine.Readiness
	if *siteFile != "" {
		p, err := site.Load(*siteFile)
		if err != nil {
			return exitBadInput, badInput("--site: %v", err)
		}
		ad = p.Reader()
		ready = p.Readiness()
	}
	var c *capture.Capture
	if *captureN >= 0 {
		c, err = sessionCapture(pos[0], *captureN)
	} else {
		c, err = loadSource(ctx, pos[0], *cdpURL, ready, storage)
	}
	if errcode.Of(err) == engine.PageNotReady {
		return exitFailed, fmt.Errorf("observe: %s: %w", pos[0], err)
	}
	if err != nil {
		return exitBadInput, err
	}
	out, structure, err := observeCapture(c, ad, note, *view, lim, glim)
	if err != nil {
		return exitFailed, err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		if *indent {
			enc.SetIndent("", "  ")
		}
		return exitOK, enc.Encode(out)
	}
	printObservation(stdout, out, structure)
	return exitOK, nil
}

// sessionCapture is capture n of a recorded session, numbered as validate
// numbers them: the n-th capture step.
func sessionCapture(path string, n int) (*capture.Capture, error) {
	s, err := replay.Load(path)
	if err != nil {
		return nil, badInput("--capture: %v", err)
	}
	i := 0
	for _, st := range s.Steps {
		if st.Kind != replay.KindCapture {
			continue
		}
		if i == n {
			return s.Captures[*st.Capture], nil
		}
		i++
	}
	return nil, badInput("--capture %d: %s has captures 0…%d", n, path, i-1)
}

// observeCapture is observe's work on one capture: parse, answer groups,
// observation, the bounded view and the last groups (BenchmarkObserveCLI
// measures it).
func observeCapture(c *capture.Capture, ad adapter.Adapter, note, view string, lim observe.Limits, glim engine.GroupLimits) (observation, bool, error) {
	doc, err := observe.Parse(c)
	if err != nil {
		return observation{}, false, err
	}
	// every group is found; only those printed are read
	groups := adapter.Lazy(ad, doc)
	o := observe.Observe(doc, 1, observe.Options{GroupOf: groups.GroupOf(), GroupRoots: groups.GroupRoots()})
	if note == "" {
		// auto says which style it picked and why (or that none fitted)
		note = groups.Note
	}
	out := observation{Snapshot: o.View(view, lim), Adapter: groups.Adapter, Note: note}
	out.Groups, out.GroupCount = engine.BoundGroups(groups.Groups, glim)
	if out.GroupCount.Truncated {
		out.Complete = false
	}
	return out, groups.Structure, nil
}

func printObservation(w io.Writer, o observation, structure bool) {
	s := o.Snapshot
	fmt.Fprintf(w, "view %s of %s (complete: %v)\n", s.View, s.URL, s.Complete)
	fmt.Fprintf(w, "elements %d/%d%s  text %d/%d chars%s  headings %d/%d%s  tables %d/%d%s  frames %d (unread %d)\n",
		s.Counts.Elements.Returned, s.Counts.Elements.Total, trunc(s.Counts.Elements.Truncated),
		s.Counts.Text.Returned, s.Counts.Text.Total, trunc(s.Counts.Text.Truncated),
		s.Counts.Headings.Returned, s.Counts.Headings.Total, trunc(s.Counts.Headings.Truncated),
		s.Counts.Tables.Returned, s.Counts.Tables.Total, trunc(s.Counts.Tables.Truncated), s.Counts.Frames, s.Counts.FramesUnread)
	for _, u := range s.Unread {
		fmt.Fprintf(w, "  unread frame in %s (iframe %s %s): %s\n", u.Frame, u.Node, u.Src, u.Reason)
	}
	for _, r := range s.ClosedRoots {
		fmt.Fprintf(w, "  closed shadow root in %s on <%s> %s: its content is the page's own, not read\n", r.Frame, r.Tag, r.Node)
	}
	for _, f := range s.Frames {
		if f.Repaired != "" {
			fmt.Fprintf(w, "  frame %s: %s\n", f.ID, f.Repaired)
		}
	}
	for _, e := range s.Elements {
		line := fmt.Sprintf("  %-7s %-9s %q", e.Ref, e.Role, e.Name)
		if e.Frame != capture.MainFrame {
			line += " frame=" + e.Frame
		}
		if e.Href != "" {
			line += " href=" + e.Href
		}
		if e.Value != "" {
			line += fmt.Sprintf(" value=%q", e.Value)
		}
		if e.Group != "" {
			line += " group=" + e.Group
		}
		fmt.Fprintln(w, line)
	}
	for _, h := range s.Headings {
		fmt.Fprintf(w, "  h%d %q frame=%s\n", h.Level, h.Text, h.Frame)
	}
	for _, t := range s.Tables {
		fmt.Fprintf(w, "table %d (%s %q, frame %s) rows %d/%d cols %d/%d%s\n", t.Index, t.Role, t.Name, t.Frame,
			t.RowCount.Returned, t.RowCount.Total, t.ColCount.Returned, t.ColCount.Total, trunc(!t.Complete))
		for _, r := range t.Rows {
			fmt.Fprintf(w, "  | %s |\n", strings.Join(r, " | "))
		}
	}
	if o.Note != "" {
		fmt.Fprintln(w, "adapter: "+o.Note)
	}
	if !structure {
		fmt.Fprintf(w, "groups: none — the %s adapter found no turn structure (STRUCTURE_UNKNOWN)\n", o.Adapter)
	}
	if o.GroupCount.Returned < o.GroupCount.Total {
		fmt.Fprintf(w, "groups: the last %d of %d (--groups N or all for more)\n", o.GroupCount.Returned, o.GroupCount.Total)
	}
	for _, g := range o.Groups {
		text := g.Text
		if len([]rune(text)) > 80 {
			text = string([]rune(text)[:80]) + "…"
		}
		fmt.Fprintf(w, "group %s [%s] %q\n  rule: %s\n  evidence: %s\n", g.ID, g.State, text, g.Rule, g.Evidence)
		for _, m := range g.Media {
			fmt.Fprintf(w, "  media %s ready=%v (%s)\n", m.Kind, m.Ready, m.Evidence)
		}
	}
}

func trunc(b bool) string {
	if b {
		return " (truncated)"
	}
	return ""
}

func cmdFind(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("find", stderr)
	role := fs.String("role", "", "role to match exactly")
	name := fs.String("name", "", "accessible name to match exactly (whitespace-normalised)")
	href := fs.String("href", "", "href to match exactly")
	text := fs.String("text", "", "case-insensitive substring of the name")
	offset := fs.Int("offset", 0, "matches to skip")
	limit := fs.Int("limit", observe.DefaultFindLimit, fmt.Sprintf("matches per page (1..%d)", observe.MaxFindLimit))
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if *role == "" && *name == "" && *text == "" {
		fs.Usage()
		return exitBadInput, badInput("--role is required unless --name or --text is given: an unrestricted find would list every candidate")
	}
	if len(pos) != 1 {
		return exitBadInput, badInput("want exactly one SOURCE, got %d", len(pos))
	}
	if *offset < 0 || *limit < 1 || *limit > observe.MaxFindLimit {
		return exitBadInput, badInput("--offset must be ≥ 0 and --limit within 1..%d", observe.MaxFindLimit)
	}
	c, err := loadSource(ctx, pos[0], "", engine.Readiness{}, nil)
	if err != nil {
		return exitBadInput, err
	}
	doc, err := observe.Parse(c)
	if err != nil {
		return exitFailed, err
	}
	groups := adapter.DefaultMarker.Groups(doc)
	o := observe.Observe(doc, 1, observe.Options{GroupOf: groups.GroupOf(), GroupRoots: groups.GroupRoots()})
	q := observe.Query{Role: *role, Name: *name, Href: *href, Text: *text, Offset: *offset, Limit: *limit}
	r, err := o.Find(q)
	if err != nil {
		return exitBadInput, badInput("%v", err)
	}
	loc := locate.Locator{Role: *role, Name: *name, Href: *href}
	type verdict struct {
		Status string `json:"status"`
		Ref    string `json:"ref,omitempty"`
		Count  int    `json:"count,omitempty"`
	}
	v := verdict{Status: "ok"}
	// The verdict is getByRole's: a fresh find by role, name and href (the
	// text filter is not part of a locator).
	rr, err := o.Find(observe.Query{Role: *role, Name: *name, Href: *href, Limit: locate.ResolveLimit})
	if err != nil {
		return exitFailed, err
	}
	if el, err := locate.Verdict(loc, rr); err != nil {
		v.Status = string(errcode.Of(err))
		var le *locate.Error
		if errors.As(err, &le) {
			v.Count = le.Count
		}
	} else {
		v.Ref = el.Ref
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return exitOK, enc.Encode(struct {
			Selection observe.Selection `json:"selection"`
			Items     []observe.Element `json:"items"`
			Complete  bool              `json:"complete"`
			Resolve   verdict           `json:"resolve"`
		}{r.Selection, r.Items, r.Complete, v})
	}
	s := r.Selection
	fmt.Fprintf(stdout, "selection: total=%d matched=%d offset=%d limit=%d hasMore=%v\n", s.Total, s.Matched, s.Offset, s.Limit, s.HasMore)
	for _, e := range r.Items {
		fmt.Fprintf(stdout, "  %-7s %-9s %q frame=%s\n", e.Ref, e.Role, e.Name, e.Frame)
	}
	fmt.Fprintf(stdout, "resolve: %s", v.Status)
	if v.Ref != "" {
		fmt.Fprintf(stdout, " ref=%s", v.Ref)
	}
	if v.Count > 0 {
		fmt.Fprintf(stdout, " count=%d", v.Count)
	}
	fmt.Fprintln(stdout)
	return exitOK, nil
}
