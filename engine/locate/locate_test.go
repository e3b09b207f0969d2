package locate

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/observe"
)

func observation(t testing.TB, id int, src string) *observe.Observation {
	t.Helper()
	doc, err := observe.ParseHTML("http://test/", src)
	if err != nil {
		t.Fatal(err)
	}
	return observe.Observe(doc, id, observe.Options{})
}

func TestResolve(t *testing.T) {
	t.Parallel()
	var links strings.Builder
	for i := 0; i < 25; i++ {
		fmt.Fprintf(&links, `<a href="/d/%d">Docs</a>`, i)
	}
	page := `<button>Send</button><button>Delete</button><button>Delete</button>
		<input aria-label="Comment" data-rl-value="a secret remark"><button style="display:none">Hidden</button>
		<a href="/a">Open</a><a href="/b">Open</a>` + links.String()
	o := observation(t, 1, page)
	tests := []struct {
		name  string
		loc   Locator
		code  errcode.Code // "" for a match
		count int
		want  string // name of the match
	}{
		{"exact", Locator{Role: "button", Name: "Send"}, "", 0, "Send"},
		{"whitespace normalised", Locator{Role: "button", Name: "  Send\n"}, "", 0, "Send"},
		{"href disambiguates", Locator{Role: "link", Name: "Open", Href: "/b"}, "", 0, "Open"},
		{"ambiguous", Locator{Role: "button", Name: "Delete"}, TargetAmbiguous, 2, ""},
		{"truncated", Locator{Role: "link", Name: "Docs"}, TargetQueryTruncated, 25, ""},
		{"not found, no fallback", Locator{Role: "button", Name: "Sen"}, TargetNotFound, 0, ""},
		{"wrong role", Locator{Role: "link", Name: "Send"}, TargetNotFound, 0, ""},
		{"hidden is absent", Locator{Role: "button", Name: "Hidden"}, TargetNotFound, 0, ""},
		{"no role", Locator{Name: "Send"}, InvalidLocator, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			el, err := Resolve(o, tt.loc)
			if tt.code == "" {
				if err != nil || el.Name != tt.want {
					t.Fatalf("got %+v, %v; want %q", el, err, tt.want)
				}
				return
			}
			var le *Error
			if !errors.As(err, &le) || !errors.Is(err, tt.code) || le.Count != tt.count {
				t.Fatalf("got %v, want %s with count %d", err, tt.code, tt.count)
			}
			if errcode.Of(err) != tt.code {
				t.Errorf("errcode.Of = %q", errcode.Of(err))
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error leaks a typed value: %v", err)
			}
		})
	}
}

func TestVerdictTruncatedWithOneVisibleMatch(t *testing.T) {
	t.Parallel()
	o := observation(t, 1, `<a href="/1">Docs</a><a href="/2">Docs</a>`)
	r, err := o.Find(observe.Query{Role: "link", Name: "Docs", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Items) != 1 || !r.Selection.HasMore {
		t.Fatalf("setup: %+v", r.Selection)
	}
	if _, err := Verdict(Locator{Role: "link", Name: "Docs"}, r); !errors.Is(err, TargetQueryTruncated) {
		t.Fatalf("got %v, want TARGET_QUERY_TRUNCATED", err)
	}
}

func TestVerdictIncompleteScope(t *testing.T) {
	t.Parallel()
	o := observation(t, 1, `<button>Back</button><iframe src="https://pay.example/"></iframe>`)
	_, err := Resolve(o, Locator{Role: "button", Name: "Pay"})
	if !errors.Is(err, TargetQueryTruncated) {
		t.Fatalf("no match with an unread frame: got %v, want TARGET_QUERY_TRUNCATED (absence not proven)", err)
	}
}

func TestByRefStale(t *testing.T) {
	t.Parallel()
	src := `<button>Archive</button>`
	old := observation(t, 1, src)
	fresh := observation(t, 2, src) // the same page, unchanged
	ref := old.All[0].Ref
	if _, err := ByRef(fresh, ref); !errors.Is(err, StaleRef) {
		t.Fatalf("ByRef(%s) on snapshot 2: %v, want STALE_REF", ref, err)
	}
	if el, err := ByRef(fresh, fresh.All[0].Ref); err != nil || el.Name != "Archive" {
		t.Fatalf("fresh ref: %+v, %v", el, err)
	}
	// refs never issued are INVALID_REF, not stale (AGT-4)
	for _, tc := range []struct{ name, ref string }{
		{"past the snapshot's elements", "s2e9"},
		{"a snapshot not taken yet", "s7e1"},
		{"not a ref", "e12"},
		{"made up", "button-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ByRef(fresh, tc.ref)
			if !errors.Is(err, InvalidRef) {
				t.Fatalf("ByRef(%s): %v, want INVALID_REF", tc.ref, err)
			}
			if strings.Contains(err.Error(), "snapshot -1") {
				t.Errorf("the refusal names a snapshot -1: %v", err)
			}
		})
	}
}

func ExampleResolve() {
	doc, _ := observe.ParseHTML("http://example/", `<textarea aria-label="Message"></textarea><button>Send</button><button>Send</button>`)
	o := observe.Observe(doc, 1, observe.Options{})
	el, err := Resolve(o, Locator{Role: "textbox", Name: "Message"})
	fmt.Println(el.Ref, el.Role, el.Name, err)
	_, err = Resolve(o, Locator{Role: "button", Name: "Send"})
	fmt.Println(errcode.Of(err))
	// Output:
	// s1e1 textbox Message <nil>
	// TARGET_AMBIGUOUS
}

func TestLookAlikesToldApart(t *testing.T) {
	t.Parallel()
	doc := `<main><h1>Files</h1><table><tr><th>Name</th><th>Size</th><th></th></tr>
<tr><td>report.pdf</td><td>12 KB</td><td><button>Delete</button></td></tr>
<tr><td>notes.txt</td><td>2 KB</td><td><button>Delete</button></td></tr></table>
<div><span>draft.doc</span> <button>Archive</button></div><div><span>old.doc</span> <button>Archive</button></div></main>`
	o := observation(t, 1, doc)
	_, err := Resolve(o, Locator{Role: "button", Name: "Delete"})
	var le *Error
	if !errors.As(err, &le) || le.Code != TargetAmbiguous || len(le.Candidates) != 2 {
		t.Fatalf("got %v, want TARGET_AMBIGUOUS with 2 candidates", err)
	}
	t.Logf("candidates: %q", le.Candidates)
	if le.Candidates[0] == le.Candidates[1] || !strings.Contains(le.Candidates[0], `row "report.pdf 12 KB"`) || !strings.Contains(le.Candidates[1], `row "notes.txt 2 KB"`) {
		t.Errorf("the candidates do not say what tells them apart: %q", le.Candidates)
	}
	refOf := func(l Locator) string {
		t.Helper()
		e, err := Resolve(o, l)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		return e.Context
	}
	for _, tc := range []struct {
		name string
		l    Locator
		want string // in the context of the one match
	}{
		{"within a row's text", Locator{Role: "button", Name: "Delete", Within: "notes.txt"}, "notes.txt"},
		{"within, case-insensitive", Locator{Role: "button", Name: "Delete", Within: "REPORT.PDF"}, "report.pdf"},
		{"near a text", Locator{Role: "button", Name: "Delete", Near: "notes.txt"}, "notes.txt"},
		{"nth in page order", Locator{Role: "button", Name: "Delete", Nth: 2}, "notes.txt"},
		{"div rows by their text", Locator{Role: "button", Name: "Archive", Within: "old.doc"}, `beside "old.doc"`},
		{"near in div rows", Locator{Role: "button", Name: "Archive", Near: "draft.doc"}, `beside "draft.doc"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refOf(tc.l); !strings.Contains(got, tc.want) {
				t.Errorf("got the element in %q, want the one in %q", got, tc.want)
			}
		})
	}
	// within a ref: the other controls of that row
	all, _ := o.Find(observe.Query{Role: "button", Name: "Delete"})
	e, err := Resolve(o, Locator{Role: "button", Within: all.Items[1].Ref})
	if err != nil || e.Ref != all.Items[1].Ref {
		t.Errorf("within the ref %s: got %v %v", all.Items[1].Ref, e.Ref, err)
	}
	for _, tc := range []struct {
		name string
		l    Locator
		code errcode.Code
	}{
		{"within no row", Locator{Role: "button", Name: "Delete", Within: "missing.txt"}, TargetNotFound},
		{"nth past the matches", Locator{Role: "button", Name: "Delete", Nth: 3}, TargetNotFound},
		{"near text in both", Locator{Role: "button", Name: "Delete", Near: "KB"}, TargetAmbiguous},
		{"negative nth", Locator{Role: "button", Name: "Delete", Nth: -1}, InvalidLocator},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Resolve(o, tc.l); !errors.Is(err, tc.code) {
				t.Errorf("got %v, want %s", err, tc.code)
			}
		})
	}
}
