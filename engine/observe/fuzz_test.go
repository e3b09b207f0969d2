package observe

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// FuzzObserve feeds arbitrary HTML through Parse, Observe, both views, Find
// and SearchText: nothing panics, no view exceeds a limit, and every total
// is the true count (seeds that found bugs live in testdata/fuzz).
func FuzzObserve(f *testing.F) {
	for _, s := range []string{
		"",
		"<button>Send</button>",
		sidebarPage(5),
		`<table><tr><td><table><tr><td>x</td></tr></table></td></tr></table>`,
		`<iframe srcdoc="<iframe srcdoc='&lt;button&gt;x&lt;/button&gt;'></iframe>"></iframe>`,
		`<label for=a>L</label><input id=a><label>W<input></label><div aria-labelledby="a b" id=b role=button>x</div>`,
		`<style>.x::before{content:"a" / "b"} .y > span{display:none}</style><a class="x y" href=#><span>s</span>t</a>`,
		strings.Repeat("<div>", 600) + "<a href=#>deep</a>",
		`<details><summary>s</summary><button>b</button></details><select><option selected>o</select>`,
	} {
		f.Add(s, "Send")
	}
	f.Fuzz(func(t *testing.T, src, name string) {
		if len(src) > 1<<16 {
			return
		}
		if os.Getenv("FUZZ_WATCHDOG") != "" {
			tm := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("slow input %q name %q", src, name)) })
			defer tm.Stop()
		}
		doc, err := ParseHTML("http://fuzz/", src)
		if err != nil {
			t.Fatalf("ParseHTML: %v", err)
		}
		o := Observe(doc, 1, Options{})
		for _, lim := range []Limits{DefaultLimits, PageLimits} {
			checkBounded(t, o, o.View(ViewFull, lim), lim)
		}
		for i, e := range o.All {
			if e2, ok := o.ByRef(e.Ref); !ok || e2.Ref != e.Ref || i > 0 && e.Ref == o.All[i-1].Ref {
				t.Fatalf("ref %q does not name its element", e.Ref)
			}
		}
		r, err := o.Find(Query{Name: name, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		for _, e := range o.All {
			if e.Name == Normalize(name) || name == "" {
				matched++
			}
		}
		if r.Selection.Total != len(o.All) || r.Selection.Matched != matched || len(r.Items) > 3 ||
			r.Selection.HasMore != (matched > len(r.Items)) {
			t.Fatalf("selection %+v with %d items, %d true matches of %d", r.Selection, len(r.Items), matched, len(o.All))
		}
		tr := o.SearchText(TextQuery{Text: name}, DefaultLimits)
		if len(tr.Snippets) > DefaultLimits.SnippetsMax || tr.TextTruncated != (tr.TextMatched > len(tr.Snippets)) {
			t.Fatalf("search %+v", tr)
		}
		for _, s := range tr.Snippets {
			if runeCount(s.Text) > DefaultLimits.SnippetCharsMax {
				t.Fatalf("snippet of %d chars", runeCount(s.Text))
			}
		}
	})
}
