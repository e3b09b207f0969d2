package observe_test

import (
	"fmt"

	"github.com/replaylab/replaylab/engine/observe"
)

func Example() {
	doc, err := observe.ParseHTML("http://example/", `<nav><a href="/1">One</a><a href="/2">Two</a></nav>
		<label for="m">Message</label><textarea id="m"></textarea><button>Send</button>
		<p>Invoice 7 is due.</p><button hidden>Send</button>`)
	if err != nil {
		panic(err)
	}
	o := observe.Observe(doc, 1, observe.Options{})
	s := o.View(observe.ViewPage, observe.PageLimits)
	for _, e := range s.Elements {
		fmt.Println(e.Ref, e.Role, e.Name)
	}
	fmt.Printf("elements %+v complete=%v\n", s.Counts.Elements, s.Complete)
	r, _ := o.Find(observe.Query{Role: "button", Name: "Send"})
	fmt.Printf("find %+v\n", r.Selection)
	t := o.SearchText(observe.TextQuery{Text: "invoice"}, observe.DefaultLimits)
	fmt.Println("text matched", t.TextMatched, "complete", t.Complete)
	// Output:
	// s1e1 textbox Message
	// s1e2 button Send
	// s1e3 link One
	// s1e4 link Two
	// elements {Returned:4 Total:4 Truncated:false} complete=true
	// find {Total:4 Matched:1 Offset:0 Limit:20 HasMore:false}
	// text matched 1 complete true
}
