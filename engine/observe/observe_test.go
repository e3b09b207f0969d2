package observe

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/capture"
)

func observeHTML(t testing.TB, src string) *Observation {
	t.Helper()
	doc, err := ParseHTML("http://test/", src)
	if err != nil {
		t.Fatalf("ParseHTML: %v", err)
	}
	return Observe(doc, 1, Options{})
}

func names(els []Element) []string {
	var out []string
	for _, e := range els {
		out = append(out, e.Role+":"+e.Name)
	}
	return out
}

func TestCandidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		html string
		want []string
	}{
		{"kinds", `<a href="/x">Link</a><a>no href</a><button>B</button><input aria-label="T"><textarea aria-label="A"></textarea>
			<div contenteditable="true" aria-label="Ed"><p>x</p></div><select aria-label="S"><option>o</option></select>
			<input type="checkbox" aria-label="C"><input type="radio" aria-label="R"><div role="switch" aria-label="Sw"></div>
			<div role="tab">Tab</div><div role="menuitem">M</div><ul role="listbox" aria-label="L"><li role="option">O</li></ul>`,
			[]string{"textbox:T", "textbox:A", "textbox:Ed", "combobox:S", "checkbox:C", "radio:R", "switch:Sw", "listbox:L", "option:O",
				"link:Link", "button:B", "tab:Tab", "menuitem:M"}},
		{"hidden excluded", `<button hidden>h1</button><div style="display:none"><button>h2</button></div>
			<button style="visibility:hidden">h3</button><div aria-hidden="true"><button>h4</button></div>
			<div inert><button>h5</button></div><input type="hidden" value="h6"><template><button>h7</button></template>
			<details><summary>Sum</summary><button>h8</button></details><button>shown</button>
			<div style="visibility:hidden"><button style="visibility:visible">back</button></div>`,
			[]string{"button:Sum", "button:shown", "button:back"}},
		{"style block hides", `<style>.gone{display:none}</style><div class="gone"><a href="#">x</a></div><a href="#">y</a>`,
			[]string{"link:y"}},
		{"live hidden attr", `<html data-rl-node="1"><body><button data-rl-hidden="display">a</button><button data-rl-hidden="visibility">b</button><button>c</button></body></html>`,
			[]string{"button:c"}},
		{"unknown roles fall back", `<div role="frobnicate button">x</div><span role="bogus">y</span>`, []string{"button:x"}},
		{"presentation ignored on focusable", `<button role="presentation">Go</button>`, []string{"button:Go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := observeHTML(t, tt.html)
			if got := names(o.All); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("candidates\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func sidebarPage(links int) string {
	var b strings.Builder
	b.WriteString(`<nav aria-label="Chats">`)
	for i := 0; i < links; i++ {
		fmt.Fprintf(&b, `<a href="/c/%d">Chat %d</a>`, i, i)
	}
	b.WriteString(`</nav><main><form><textarea aria-label="Message"></textarea><button>Send</button></form></main>`)
	return b.String()
}

func TestPriority(t *testing.T) {
	t.Parallel()
	o := observeHTML(t, sidebarPage(300))
	s := o.View(ViewFull, DefaultLimits)
	if got := names(s.Elements[:2]); strings.Join(got, "|") != "textbox:Message|button:Send" {
		t.Errorf("first elements %q, want the composer and its send button first", got)
	}
	want := Count{Returned: 60, Total: 302, Truncated: true}
	if s.Counts.Elements != want {
		t.Errorf("elements count %+v, want %+v", s.Counts.Elements, want)
	}
	if s.Complete {
		t.Error("a truncated view says complete")
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "<h2>Heading %d</h2><p>%s</p>", i, strings.Repeat("word ", 30))
	}
	o := observeHTML(t, b.String())
	tests := []struct {
		name     string
		view     string
		lim      Limits
		headings Count
		textRet  int
	}{
		{"full", ViewFull, DefaultLimits, Count{30, 50, true}, 4000},
		{"page", ViewPage, PageLimits, Count{10, 50, true}, 1500},
		{"wide", ViewFull, Limits{HeadingsMax: 100, MergedHeadingsMax: 100, TextCharsMax: 1 << 20, MergedTextCharsMax: 1 << 20}, Count{50, 50, false}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := o.View(tt.view, tt.lim)
			if s.View != tt.view {
				t.Errorf("view %q, want %q", s.View, tt.view)
			}
			if s.Counts.Headings != tt.headings {
				t.Errorf("headings %+v, want %+v", s.Counts.Headings, tt.headings)
			}
			if tt.textRet >= 0 && (s.Counts.Text.Returned != tt.textRet || !s.Counts.Text.Truncated) {
				t.Errorf("text %+v, want %d returned and truncated", s.Counts.Text, tt.textRet)
			}
			if tt.textRet < 0 && (s.Counts.Text.Truncated || s.Counts.Text.Returned != s.Counts.Text.Total) {
				t.Errorf("text %+v, want whole", s.Counts.Text)
			}
			if got := runeCount(s.Text); got > tt.lim.MergedTextCharsMax+len(o.texts) {
				t.Errorf("text has %d chars, over the limit", got)
			}
		})
	}
}

// TestRecentView: a Recent view (the page view) keeps the same counts as
// a first-items view, the composer first, and the newest of everything a
// limit cuts.
func TestRecentView(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`<nav>`)
	for i := range 40 {
		fmt.Fprintf(&b, `<a href="/c/%d">Chat %d</a>`, i, i)
	}
	b.WriteString(`</nav><main>`)
	for i := range 20 {
		fmt.Fprintf(&b, `<h3>Turn %d</h3><p>Text of turn %d.</p><button>Copy %d</button><table><tr><td>t%d</td></tr></table>`, i, i, i, i)
	}
	b.WriteString(`<textarea aria-label="Message"></textarea><button>Send</button></main>`)
	o := observeHTML(t, b.String())
	lim := DefaultLimits
	lim.ElementsMax, lim.MergedElementsMax = 5, 5
	lim.HeadingsMax, lim.MergedHeadingsMax = 3, 3
	lim.TablesMax, lim.MergedTablesMax = 2, 2
	lim.TextCharsMax, lim.MergedTextCharsMax = 30, 30
	first := o.View(ViewFull, lim)
	lim.Recent = true
	recent := o.View(ViewPage, lim)
	if first.Counts != recent.Counts || !slices.Equal(first.Frames, recent.Frames) {
		t.Errorf("counts differ: first %+v, recent %+v", first.Counts, recent.Counts)
	}
	if !recent.Recent || first.Recent {
		t.Errorf("recent flags: first %v, recent %v", first.Recent, recent.Recent)
	}
	var names []string
	for _, e := range recent.Elements {
		names = append(names, e.Name)
	}
	if want := []string{"Message", "Copy 17", "Copy 18", "Copy 19", "Send"}; !slices.Equal(names, want) {
		t.Errorf("recent elements %q, want %q", names, want)
	}
	var heads []string
	for _, h := range recent.Headings {
		heads = append(heads, h.Text)
	}
	if want := []string{"Turn 17", "Turn 18", "Turn 19"}; !slices.Equal(heads, want) {
		t.Errorf("recent headings %q, want %q", heads, want)
	}
	if len(recent.Tables) != 2 || recent.Tables[1].Rows[0][0] != "t19" || recent.Tables[1].Index != 20 {
		t.Errorf("recent tables %+v, want the last two", recent.Tables)
	}
	if !strings.HasSuffix(recent.Text, "turn 19.\nCopy 19\nt19\nSend") || runeCount(recent.Text) != 30 {
		t.Errorf("recent text %q, want the last 30 characters", recent.Text)
	}
	if !strings.HasPrefix(first.Text, "Chat 0") {
		t.Errorf("first text %q, want the page's start", first.Text)
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 45; i++ {
		fmt.Fprintf(&b, `<a href="/doc/%d">Docs</a>`, i)
	}
	b.WriteString(`<button>Send</button><button>Send</button><input aria-label="Secret" type="password" data-rl-value="hunter2">`)
	o := observeHTML(t, b.String())
	tests := []struct {
		name  string
		q     Query
		want  Selection
		items int
	}{
		{"page one", Query{Role: "link", Name: "Docs"}, Selection{Total: 48, Matched: 45, Offset: 0, Limit: 20, HasMore: true}, 20},
		{"last page", Query{Role: "link", Name: "Docs", Offset: 40}, Selection{Total: 48, Matched: 45, Offset: 40, Limit: 20, HasMore: false}, 5},
		{"href narrows", Query{Role: "link", Href: "/doc/7"}, Selection{Total: 48, Matched: 1, Limit: 20}, 1},
		{"two buttons", Query{Role: "button", Name: "  Send "}, Selection{Total: 48, Matched: 2, Limit: 20}, 2},
		{"text never reads secrets", Query{Text: "hunter"}, Selection{Total: 48, Matched: 0, Limit: 20}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := o.Find(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if r.Selection != tt.want || len(r.Items) != tt.items {
				t.Errorf("got %+v with %d items, want %+v with %d", r.Selection, len(r.Items), tt.want, tt.items)
			}
			if !r.Complete {
				t.Error("complete is false on a page read whole")
			}
		})
	}
	for _, q := range []Query{{Offset: -1}, {Limit: MaxFindLimit + 1}} {
		if _, err := o.Find(q); err == nil {
			t.Errorf("Find(%+v) accepted bad arguments", q)
		}
	}
}

func TestSearchText(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 25; i++ {
		fmt.Fprintf(&b, "<p>%s invoice number %d is due %s</p>", strings.Repeat("filler ", 40), i, strings.Repeat("later ", 40))
	}
	b.WriteString(`<p hidden>invoice hidden</p>`)
	o := observeHTML(t, b.String())
	r := o.SearchText(TextQuery{Text: "Invoice  NUMBER"}, DefaultLimits)
	if r.TextMatched != 25 || len(r.Snippets) != DefaultLimits.SnippetsMax || !r.TextTruncated || !r.Complete {
		t.Fatalf("got matched=%d snippets=%d truncated=%v complete=%v", r.TextMatched, len(r.Snippets), r.TextTruncated, r.Complete)
	}
	for _, s := range r.Snippets {
		if runeCount(s.Text) > DefaultLimits.SnippetCharsMax || !strings.Contains(strings.ToLower(s.Text), "invoice number") {
			t.Errorf("snippet %q: over the limit or without the match", s.Text)
		}
	}
	if r := o.SearchText(TextQuery{Text: "absent words"}, DefaultLimits); r.TextMatched != 0 || r.TextTruncated {
		t.Errorf("absent: %+v", r)
	}
}

func TestTables(t *testing.T) {
	t.Parallel()
	page := `<table><caption>Outer</caption>
		<tr><th>Item</th><th>Detail</th></tr>
		<tr><td>A</td><td>cell <table><tr><td>inner1</td></tr><tr><td>inner2</td></tr></table></td></tr>
		<tr><td>B</td><td>b</td></tr></table>
		<div role="grid" aria-label="G"><div role="row"><div role="gridcell">g1</div><div role="gridcell">g2</div></div></div>
		<table role="presentation"><tr><td>layout</td></tr></table>`
	var big strings.Builder
	big.WriteString(`<table aria-label="Big">`)
	for r := 0; r < 30; r++ {
		big.WriteString("<tr>")
		for c := 0; c < 12; c++ {
			fmt.Fprintf(&big, "<td>%d.%d</td>", r, c)
		}
		big.WriteString("</tr>")
	}
	big.WriteString("</table>")
	tests := []struct {
		name string
		html string
		want []string // per table: name rows×cols (returned/total) complete
	}{
		{"nested and roles", page, []string{"Outer 3/3x2/2 true [Item Detail|A cell|B b] parent=0", " 2/2x1/1 true [inner1|inner2] parent=1", "G 1/1x2/2 true [g1 g2] parent=0"}},
		{"over the limits", big.String(), []string{"Big 20/30x8/12 false [0.0 0.1 0.2 0.3 0.4 0.5 0.6 0.7|1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7] parent=0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := observeHTML(t, tt.html).View(ViewFull, DefaultLimits)
			var got []string
			for _, tb := range s.Tables {
				var rows []string
				for i, r := range tb.Rows {
					if i < 3 && (len(tt.want) != 1 || i < 2) {
						rows = append(rows, strings.Join(r, " "))
					}
				}
				got = append(got, fmt.Sprintf("%s %d/%dx%d/%d %v [%s] parent=%d", tb.Name, tb.RowCount.Returned, tb.RowCount.Total,
					tb.ColCount.Returned, tb.ColCount.Total, tb.Complete, strings.Join(rows, "|"), tb.Parent))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("tables\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestFrames(t *testing.T) {
	t.Parallel()
	t.Run("srcdoc in a plain file", func(t *testing.T) {
		o := observeHTML(t, `<button>Top</button><iframe srcdoc="<button>Inner</button><h1>In frame</h1>"></iframe>`)
		if got := names(o.All); strings.Join(got, "|") != "button:Top|button:Inner" {
			t.Fatalf("candidates %q", got)
		}
		if o.All[1].Frame != "main.srcdoc1" || o.All[0].Frame != capture.MainFrame {
			t.Errorf("frames %q %q", o.All[0].Frame, o.All[1].Frame)
		}
		s := o.View(ViewFull, DefaultLimits)
		if !s.Complete || s.Counts.Frames != 2 || len(s.Frames) != 2 || s.Frames[1].Elements.Total != 1 {
			t.Errorf("view %+v frames %+v", s.Counts, s.Frames)
		}
	})
	t.Run("capture frames and unread frames", func(t *testing.T) {
		c := &capture.Capture{Version: capture.FormatVersion, URL: "http://a/", Frames: []capture.Frame{
			{ID: "main", URL: "http://a/", HTML: `<html data-rl-node="1"><body><iframe data-rl-node="5" data-rl-frame="f1"></iframe><iframe data-rl-node="6" src="http://b/"></iframe></body></html>`},
			{ID: "f1", Parent: "main", Owner: "5", URL: "http://a/in", HTML: `<html data-rl-node="10"><body><a href="/x" data-rl-node="11">X</a></body></html>`},
		}}
		doc, err := Parse(c)
		if err != nil {
			t.Fatal(err)
		}
		o := Observe(doc, 3, Options{})
		if len(o.All) != 1 || o.All[0].Frame != "f1" || o.All[0].Node != "11" || o.All[0].Ref != "s3e1" {
			t.Fatalf("candidates %+v", o.All)
		}
		if len(doc.Unread) != 1 || doc.Unread[0].Node != "6" {
			t.Fatalf("unread %+v", doc.Unread)
		}
		r, _ := o.Find(Query{Role: "button", Name: "Pay"})
		if r.Complete || r.Selection.Matched != 0 {
			t.Errorf("find over an unread frame: %+v complete=%v, want complete=false", r.Selection, r.Complete)
		}
		if s := o.View(ViewFull, DefaultLimits); s.Complete || s.Counts.FramesUnread != 1 {
			t.Errorf("view complete=%v unread=%d", s.Complete, s.Counts.FramesUnread)
		}
	})
	t.Run("merged limits", func(t *testing.T) {
		var b strings.Builder
		for i := 0; i < 3; i++ {
			b.WriteString(`<iframe srcdoc="`)
			for k := 0; k < 20; k++ {
				fmt.Fprintf(&b, "&lt;h2&gt;F%d H%d&lt;/h2&gt;", i, k)
			}
			b.WriteString(`"></iframe>`)
		}
		s := observeHTML(t, b.String()).View(ViewFull, DefaultLimits)
		if s.Counts.Headings != (Count{40, 60, true}) {
			t.Errorf("merged headings %+v, want 40 of 60", s.Counts.Headings)
		}
		for _, f := range s.Frames[1:] {
			if f.Headings != (Count{20, 20, false}) {
				t.Errorf("frame %s headings %+v", f.ID, f.Headings)
			}
		}
	})
}

func TestRefs(t *testing.T) {
	t.Parallel()
	o := observeHTML(t, `<button>A</button><button>B</button>`)
	if e, ok := o.ByRef("s1e2"); !ok || e.Name != "B" {
		t.Errorf("ByRef(s1e2) = %+v, %v", e, ok)
	}
	for _, ref := range []string{"s0e1", "s1e9", "x", "s1e", "s1e0"} {
		if _, ok := o.ByRef(ref); ok {
			t.Errorf("ByRef(%q) found an element", ref)
		}
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		html string
	}{
		{"deep divs", strings.Repeat("<div>", 100000) + "<button>deep</button>"},
		{"deep spans", strings.Repeat("<span role=button>", 100000) + "x"},
		{"huge attribute", `<button aria-label="` + strings.Repeat("x", 1<<20) + `">b</button><a href="` + strings.Repeat("/y", 1<<19) + `">l</a>`},
		{"malformed", `<table><tr><td><a href=x>1<td><button>2</table></a></b></i><select><option>3</p>`},
		{"unknown roles", `<div role="  ">a</div><div role="link button">b</div><x-el role="textbox">c</x-el>`},
		{"self labelledby", `<button id="b" aria-labelledby="b c"><span id="c" aria-labelledby="b">x</span></button>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := observeHTML(t, tt.html)
			s := o.View(ViewFull, DefaultLimits)
			checkBounded(t, o, s, DefaultLimits)
			for _, e := range o.All {
				if runeCount(e.Name) > NameCharsMax {
					t.Errorf("name of %d chars", runeCount(e.Name))
				}
			}
		})
	}
}

// checkBounded checks a view against its limits and its observation.
func checkBounded(t testing.TB, o *Observation, s *Snapshot, lim Limits) {
	t.Helper()
	if len(s.Elements) > lim.MergedElementsMax || s.Counts.Elements.Total != len(o.All) || s.Counts.Elements.Returned != len(s.Elements) {
		t.Errorf("elements %+v with %d returned of %d", s.Counts.Elements, len(s.Elements), len(o.All))
	}
	if s.Counts.Elements.Truncated != (s.Counts.Elements.Returned < s.Counts.Elements.Total) {
		t.Errorf("elements flag %+v", s.Counts.Elements)
	}
	if s.Counts.Text.Returned > lim.MergedTextCharsMax {
		t.Errorf("text %+v over %d", s.Counts.Text, lim.MergedTextCharsMax)
	}
	if len(s.Headings) > lim.MergedHeadingsMax || s.Counts.Headings.Total != len(o.headings) {
		t.Errorf("headings %+v of %d", s.Counts.Headings, len(o.headings))
	}
	if len(s.Tables) > lim.MergedTablesMax || s.Counts.Tables.Total != len(o.tables) {
		t.Errorf("tables %+v of %d", s.Counts.Tables, len(o.tables))
	}
	for _, tb := range s.Tables {
		if len(tb.Rows) > lim.TableRowsMax || tb.RowCount.Total != len(o.tables[0].rows) && false {
			t.Errorf("table rows %d", len(tb.Rows))
		}
		for _, r := range tb.Rows {
			if len(r) > lim.TableColsMax {
				t.Errorf("table cols %d", len(r))
			}
		}
	}
	for _, f := range s.Frames {
		if f.Elements.Returned > lim.ElementsMax || f.Headings.Returned > lim.HeadingsMax || f.Tables.Returned > lim.TablesMax || f.Text.Returned > lim.TextCharsMax {
			t.Errorf("frame %s over its limits: %+v", f.ID, f)
		}
	}
}

// TestGroupRootsFallBack: roots that nest, repeat under two ids or are
// not elements make Observe ask GroupOf, whose nearest-ancestor answer
// then stands.
func TestGroupRootsFallBack(t *testing.T) {
	t.Parallel()
	doc, err := ParseHTML("http://x/", `<div id="a"><button>One</button><div id="b"><button>Two</button></div></div><p><button>Three</button></p>`)
	if err != nil {
		t.Fatal(err)
	}
	var a, b, p *html.Node
	WalkElements(doc.Frames[0].Root, func(n *html.Node) bool {
		switch {
		case Attr(n, "id") == "a":
			a = n
		case Attr(n, "id") == "b":
			b = n
		case n.Data == "p":
			p = n
		}
		return true
	})
	groupOf := func(roots map[*html.Node]string) func(*html.Node) string {
		return func(n *html.Node) string {
			for c := n; c != nil; c = c.Parent {
				if id, ok := roots[c]; ok {
					return id
				}
			}
			return ""
		}
	}
	tests := []struct {
		name  string
		roots []GroupRoot
		want  []string // groups of One, Two, Three
	}{
		{"apart", []GroupRoot{{Node: b, ID: "gb"}, {Node: p, ID: "gp"}}, []string{"", "gb", "gp"}},
		{"nested", []GroupRoot{{Node: a, ID: "ga"}, {Node: b, ID: "gb"}}, []string{"ga", "gb", ""}},
		{"twice", []GroupRoot{{Node: p, ID: "g1"}, {Node: p, ID: "g2"}}, []string{"", "", "g2"}},
		{"not an element", []GroupRoot{{Node: doc.Frames[0].Root, ID: "gd"}}, []string{"gd", "gd", "gd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := map[*html.Node]string{}
			for _, r := range tt.roots {
				m[r.Node] = r.ID
			}
			o := Observe(doc, 1, Options{GroupOf: groupOf(m), GroupRoots: tt.roots})
			got := map[string]string{}
			for _, e := range o.All {
				got[e.Name] = e.Group
			}
			for i, name := range []string{"One", "Two", "Three"} {
				if got[name] != tt.want[i] {
					t.Errorf("%s: group %q, want %q", name, got[name], tt.want[i])
				}
			}
		})
	}
}
