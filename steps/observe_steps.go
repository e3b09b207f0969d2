package steps

import (
	"context"
	"fmt"
	"strings"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
)

// observeState is the per-scenario state of the observation steps.
type observeState struct {
	find   *observe.FindResult
	search *observe.TextResult
}

func observeSteps(r *table) {
	const g = "Observation"
	r.step(g, `^I open the sim page "([^"]*)"$`, "the engine navigates the current page to that path of the sim (see replaylab sim's index)",
		`When I open the sim page "/sidebar"`, openSimPage, isAction, needsSim, defaults(readyWait))
	r.step(g, `^I take a full snapshot$`, "the engine observes the page and returns the full bounded view (60 elements, 4,000 characters per frame)",
		"When I take a full snapshot", takeFullSnapshot)
	r.step(g, `^the snapshot is the (full|page) view$`, "the last snapshot says which view it is",
		"Then the snapshot is the page view", snapshotView)
	r.step(g, `^the snapshot is (complete|incomplete)$`, "complete: no limit bit and every frame was read",
		"Then the snapshot is incomplete", snapshotComplete)
	r.step(g, `^the snapshot returns (\d+) of (\d+) (elements|headings|tables)$`,
		"the last snapshot's count for that kind: returned and true total (truncated when they differ)",
		"And the snapshot returns 60 of 302 elements", snapshotCount)
	r.step(g, `^the snapshot text is cut at (\d+) of (\d+) characters$`, "the visible text returned and its true length",
		"And the snapshot text is cut at 1500 of 4000 characters", snapshotText)
	r.step(g, `^the snapshot's first elements are:$`, "the first elements of the last snapshot, in order, as a role | name table",
		"Then the snapshot's first elements are:", snapshotFirst,
		withTable("| textbox | Message |", "| button  | Send    |"))
	r.step(g, `^the snapshot lists the (\w+) "([^"]*)" in a child frame$`, "the element is in the last snapshot and records a frame other than main",
		`And the snapshot lists the button "Inner" in a child frame`, elementInChildFrame)
	r.step(g, `^the snapshot read (\d+) frames? and left (\d+) unread$`, "frames observed, and iframes whose document the capture does not hold",
		"And the snapshot read 3 frames and left 0 unread", snapshotFrames)
	r.step(g, `^table (\d+) has (\d+) of (\d+) rows and (\d+) of (\d+) columns$`, "the Nth table of the last snapshot: rows and columns returned and true totals",
		"Then table 1 has 3 of 3 rows and 3 of 3 columns", tableShape)
	r.step(g, `^table (\d+) is (whole|partial)$`, "partial: a row or column limit bit, so nothing may be totalled from it",
		"And table 3 is partial", tableWhole)
	r.step(g, `^table (\d+) row (\d+) reads "([^"]*)"$`, `the cells of that row joined by " | "`,
		`And table 1 row 2 reads "A-2 | none | 0"`, tableRow)
	r.step(g, `^table (\d+) is a "([^"]*)" named "([^"]*)" inside table (\d+)$`, "role, name and the enclosing table (0 for none)",
		`And table 2 is a "table" named "Lines of A-1" inside table 1`, tableInfo)

	r.step(g, `^I find role "([^"]*)" named "([^"]*)"$`, "a fresh find by role and exact name (default page of 20)",
		`When I find role "link" named "Docs"`, findRoleName)
	r.step(g, `^I find role "([^"]*)" named "([^"]*)" from offset (\d+)$`, "the same, from a later offset",
		`When I find role "link" named "Docs" from offset 40`, findRoleNameOffset)
	r.step(g, `^I find elements whose text contains "([^"]*)"$`, "a fresh find by a case-insensitive substring of name or value",
		`When I find elements whose text contains "help"`, findText)
	r.step(g, `^the selection is total (\d+), matched (\d+), offset (\d+), limit (\d+), hasMore (true|false)$`,
		"the selection facts of the last find", "Then the selection is total 48, matched 45, offset 0, limit 20, hasMore true", selectionIs)
	r.step(g, `^the find returned (\d+) items?$`, "items on the page the last find returned",
		"And the find returned 20 items", findItems)
	r.step(g, `^the find is (complete|incomplete)$`, "incomplete: part of the page was not read, so no match proves nothing",
		"And the find is incomplete", findComplete)
	r.step(g, `^these elements are found exactly once:$`, "a fresh find for each role | name row matches exactly one element",
		"Then these elements are found exactly once:", foundOnce,
		withTable("| button | Send      |", "| link   | Home      |"))

	r.step(g, `^I search the page text for "([^"]*)"$`, "a text search over every frame's visible text, with bounded snippets",
		`When I search the page text for "invoice number"`, searchText)
	r.step(g, `^the text search matched (\d+) times with (\d+) snippets?$`, "textMatched and the snippets returned",
		"Then the text search matched 25 times with 10 snippets", searchMatched)
	r.step(g, `^the text search is (truncated|not truncated)$`, "textTruncated: matches without a snippet",
		"And the text search is truncated", searchTruncated)
	r.step(g, `^the text search is (complete|incomplete)$`, "incomplete: a frame was not read",
		"And the text search is complete", searchComplete)
	r.step(g, `^every snippet holds "([^"]*)" in at most (\d+) characters$`, "each snippet contains the match and stays within its limit",
		`And every snippet holds "invoice number" in at most 160 characters`, snippetsHold)
}

func openSimPage(ctx context.Context, path string) error {
	w := worldOf(ctx)
	u := w.profile().URL(path)
	return act(ctx, func(p actPage) error { return w.navigate(ctx, p, u, false) })
}

func takeFullSnapshot(ctx context.Context) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	v, err := p.Snapshot(ctx, observe.ViewFull)
	if err != nil {
		return err
	}
	w.lastView = v
	return nil
}

func (w *world) needView() (*observe.Snapshot, error) {
	if w.lastView == nil {
		return nil, fmt.Errorf(`no snapshot taken; add "I take a full snapshot" or "I take a page snapshot" first`)
	}
	return w.lastView.Snapshot, nil
}

func snapshotView(ctx context.Context, view string) error {
	s, err := worldOf(ctx).needView()
	if err != nil {
		return err
	}
	if s.View != view {
		return fmt.Errorf("the snapshot is the %q view, want %q", s.View, view)
	}
	return nil
}

func snapshotComplete(ctx context.Context, want string) error {
	s, err := worldOf(ctx).needView()
	if err != nil {
		return err
	}
	if s.Complete != (want == "complete") {
		return fmt.Errorf("snapshot complete=%v (counts %+v, unread frames %d), want %s", s.Complete, s.Counts, s.Counts.FramesUnread, want)
	}
	return nil
}

func snapshotCount(ctx context.Context, returned, total int, kind string) error {
	s, err := worldOf(ctx).needView()
	if err != nil {
		return err
	}
	var c observe.Count
	switch kind {
	case "elements":
		c = s.Counts.Elements
	case "headings":
		c = s.Counts.Headings
	case "tables":
		c = s.Counts.Tables
	}
	want := observe.Count{Returned: returned, Total: total, Truncated: returned < total}
	if c != want {
		return fmt.Errorf("%s: got %+v, want %+v", kind, c, want)
	}
	return nil
}

func snapshotText(ctx context.Context, returned, total int) error {
	s, err := worldOf(ctx).needView()
	if err != nil {
		return err
	}
	want := observe.Count{Returned: returned, Total: total, Truncated: returned < total}
	if s.Counts.Text != want {
		return fmt.Errorf("text: got %+v, want %+v", s.Counts.Text, want)
	}
	return nil
}

func snapshotFirst(ctx context.Context, table *godog.Table) error {
	s, err := worldOf(ctx).needView()
	if err != nil {
		return err
	}
	for i, row := range table.Rows {
		if len(row.Cells) != 2 {
			return fmt.Errorf("row %d: want two cells, role | name", i+1)
		}
		role, name := row.Cells[0].Value, row.Cells[1].Value
		if i >= len(s.Elements) {
			return fmt.Errorf("the snapshot has only %d elements, want %s %q at %d", len(s.Elements), role, name, i+1)
		}
		if e := s.Elements[i]; e.Role != role || e.Name != name {
			return fmt.Errorf("element %d is %s %q, want %s %q", i+1, e.Role, e.Name, role, name)
		}
	}
	return nil
}

func elementInChildFrame(ctx context.Context, role, name string) error {
	s, err := worldOf(ctx).needView()
	if err != nil {
		return err
	}
	for _, e := range s.Elements {
		if e.Role == role && e.Name == name {
			if e.Frame == capture.MainFrame || e.Frame == "" {
				return fmt.Errorf("%s %q records frame %q, want a child frame", role, name, e.Frame)
			}
			return nil
		}
	}
	return fmt.Errorf("no %s %q in the snapshot", role, name)
}

func snapshotFrames(ctx context.Context, frames, unread int) error {
	s, err := worldOf(ctx).needView()
	if err != nil {
		return err
	}
	if s.Counts.Frames != frames || s.Counts.FramesUnread != unread {
		return fmt.Errorf("frames read %d, unread %d; want %d and %d", s.Counts.Frames, s.Counts.FramesUnread, frames, unread)
	}
	return nil
}

func (w *world) table(n int) (observe.Table, error) {
	s, err := w.needView()
	if err != nil {
		return observe.Table{}, err
	}
	if n < 1 || n > len(s.Tables) {
		return observe.Table{}, fmt.Errorf("the snapshot has %d tables, no table %d", len(s.Tables), n)
	}
	return s.Tables[n-1], nil
}

func tableShape(ctx context.Context, n, rows, rowTotal, cols, colTotal int) error {
	t, err := worldOf(ctx).table(n)
	if err != nil {
		return err
	}
	if t.RowCount.Returned != rows || t.RowCount.Total != rowTotal || t.ColCount.Returned != cols || t.ColCount.Total != colTotal {
		return fmt.Errorf("table %d has rows %+v, columns %+v; want %d of %d rows and %d of %d columns", n, t.RowCount, t.ColCount, rows, rowTotal, cols, colTotal)
	}
	return nil
}

func tableWhole(ctx context.Context, n int, want string) error {
	t, err := worldOf(ctx).table(n)
	if err != nil {
		return err
	}
	if t.Complete != (want == "whole") {
		return fmt.Errorf("table %d complete=%v, want %s", n, t.Complete, want)
	}
	return nil
}

func tableRow(ctx context.Context, n, row int, want string) error {
	t, err := worldOf(ctx).table(n)
	if err != nil {
		return err
	}
	if row < 1 || row > len(t.Rows) {
		return fmt.Errorf("table %d returned %d rows, no row %d", n, len(t.Rows), row)
	}
	got := strings.TrimSpace(strings.Join(t.Rows[row-1], " | "))
	if got != want {
		return fmt.Errorf("table %d row %d reads %q, want %q", n, row, got, want)
	}
	return nil
}

func tableInfo(ctx context.Context, n int, role, name string, parent int) error {
	t, err := worldOf(ctx).table(n)
	if err != nil {
		return err
	}
	if t.Role != role || t.Name != name || t.Parent != parent {
		return fmt.Errorf("table %d is a %q named %q inside %d, want %q named %q inside %d", n, t.Role, t.Name, t.Parent, role, name, parent)
	}
	return nil
}

func runFind(ctx context.Context, q observe.Query) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	r, err := p.Find(ctx, q)
	if err != nil {
		return err
	}
	stateOf[observeState](w).find = &r
	return nil
}

func findRoleName(ctx context.Context, role, name string) error {
	return runFind(ctx, observe.Query{Role: role, Name: name})
}

func findRoleNameOffset(ctx context.Context, role, name string, offset int) error {
	return runFind(ctx, observe.Query{Role: role, Name: name, Offset: offset})
}

func findText(ctx context.Context, text string) error {
	return runFind(ctx, observe.Query{Text: text})
}

func needFind(ctx context.Context) (*observe.FindResult, error) {
	r := stateOf[observeState](worldOf(ctx)).find
	if r == nil {
		return nil, fmt.Errorf(`no find ran; add "I find role … named …" first`)
	}
	return r, nil
}

func selectionIs(ctx context.Context, total, matched, offset, limit int, hasMore string) error {
	r, err := needFind(ctx)
	if err != nil {
		return err
	}
	want := observe.Selection{Total: total, Matched: matched, Offset: offset, Limit: limit, HasMore: hasMore == "true"}
	if r.Selection != want {
		return fmt.Errorf("selection %+v, want %+v", r.Selection, want)
	}
	return nil
}

func findItems(ctx context.Context, n int) error {
	r, err := needFind(ctx)
	if err != nil {
		return err
	}
	if len(r.Items) != n {
		return fmt.Errorf("the find returned %d items, want %d", len(r.Items), n)
	}
	return nil
}

func findComplete(ctx context.Context, want string) error {
	r, err := needFind(ctx)
	if err != nil {
		return err
	}
	if r.Complete != (want == "complete") {
		return fmt.Errorf("find complete=%v, want %s", r.Complete, want)
	}
	return nil
}

func foundOnce(ctx context.Context, table *godog.Table) error {
	_, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	var problems []string
	for _, row := range table.Rows {
		if len(row.Cells) != 2 {
			return fmt.Errorf("want two cells per row, role | name")
		}
		role, name := row.Cells[0].Value, row.Cells[1].Value
		r, err := p.Find(ctx, observe.Query{Role: role, Name: name})
		if err != nil {
			return err
		}
		if r.Selection.Matched != 1 {
			problems = append(problems, fmt.Sprintf("%s %q matched %d", role, name, r.Selection.Matched))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("not found exactly once: %s", strings.Join(problems, "; "))
	}
	return nil
}

func searchText(ctx context.Context, text string) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	r, err := p.SearchText(ctx, text)
	if err != nil {
		return err
	}
	stateOf[observeState](w).search = &r
	return nil
}

func needSearch(ctx context.Context) (*observe.TextResult, error) {
	r := stateOf[observeState](worldOf(ctx)).search
	if r == nil {
		return nil, fmt.Errorf(`no text search ran; add "I search the page text for …" first`)
	}
	return r, nil
}

func searchMatched(ctx context.Context, matched, snippets int) error {
	r, err := needSearch(ctx)
	if err != nil {
		return err
	}
	if r.TextMatched != matched || len(r.Snippets) != snippets {
		return fmt.Errorf("text search matched %d with %d snippets, want %d with %d", r.TextMatched, len(r.Snippets), matched, snippets)
	}
	return nil
}

func searchTruncated(ctx context.Context, want string) error {
	r, err := needSearch(ctx)
	if err != nil {
		return err
	}
	if r.TextTruncated != (want == "truncated") {
		return fmt.Errorf("textTruncated=%v, want %s", r.TextTruncated, want)
	}
	return nil
}

func searchComplete(ctx context.Context, want string) error {
	r, err := needSearch(ctx)
	if err != nil {
		return err
	}
	if r.Complete != (want == "complete") {
		return fmt.Errorf("text search complete=%v, want %s", r.Complete, want)
	}
	return nil
}

func snippetsHold(ctx context.Context, text string, width int) error {
	r, err := needSearch(ctx)
	if err != nil {
		return err
	}
	for _, s := range r.Snippets {
		if n := len([]rune(s.Text)); n > width || !strings.Contains(strings.ToLower(s.Text), strings.ToLower(text)) {
			return fmt.Errorf("snippet %q (%d characters) does not hold %q within %d", s.Text, n, text, width)
		}
	}
	return nil
}
