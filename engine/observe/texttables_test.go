package observe

import (
	"reflect"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/internal/chatpage"
)

// TestTextAndTablesIsTheViewsTextAndTables: TextAndTables gives the full
// view's text and tables, whatever the limits cut, on pages with tables,
// frames of text and many elements.
func TestTextAndTablesIsTheViewsTextAndTables(t *testing.T) {
	t.Parallel()
	var rows strings.Builder
	for i := range 40 {
		rows.WriteString("<tr><td>cell " + strings.Repeat("x", i) + "</td><td><button>Delete</button></td><td>c</td></tr>")
	}
	pages := map[string]string{
		"chat20":       chatpage.Render(chatpage.Options{Turns: 20, Seed: 1}),
		"chat200":      chatpage.Render(chatpage.Options{Turns: 200, Seed: 2}),
		"tables":       "<!doctype html><h1>Files</h1><table><caption>files</caption>" + rows.String() + "</table><table><tr><td><table><tr><td>nested</td></tr></table></td></tr></table><p>" + strings.Repeat("long text ", 900) + "</p>",
		"no text":      "<!doctype html><button>Only</button>",
		"empty tables": "<!doctype html><table></table><table><tr></tr></table>",
	}
	recent := DefaultLimits
	recent.Recent = true
	tight := Limits{ElementsMax: 2, TextCharsMax: 50, TablesMax: 1, TableRowsMax: 3, TableColsMax: 2, TableCellCharsMax: 4, HeadingsMax: 1,
		MergedElementsMax: 2, MergedTextCharsMax: 60, MergedTablesMax: 1, MergedHeadingsMax: 1}
	for name, src := range pages {
		for _, lc := range []struct {
			name string
			lim  Limits
		}{{"default", DefaultLimits}, {"page", PageLimits}, {"recent", recent}, {"tight", tight}} {
			t.Run(name+"/"+lc.name, func(t *testing.T) {
				doc, err := ParseHTML("http://t.test/", src)
				if err != nil {
					t.Fatal(err)
				}
				o := Observe(doc, 1, Options{})
				text, tables := o.TextAndTables(lc.lim)
				v := o.View(ViewFull, lc.lim)
				if text != v.Text {
					t.Errorf("text differs: %q vs the view's %q", clipText(text), clipText(v.Text))
				}
				if !reflect.DeepEqual(tables, v.Tables) {
					t.Errorf("tables differ: %+v vs the view's %+v", tables, v.Tables)
				}
			})
		}
	}
}

func clipText(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
