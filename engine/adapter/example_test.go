package adapter_test

import (
	"fmt"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/observe"
)

// A page without data markers: screen-reader-only speaker headings open
// the turns. Auto tries the marker style, finds no turns, and reads the
// page by its headings.
func Example() {
	doc, err := observe.ParseHTML("https://chat.test/", `<main>
<article><h3 class="sr-only">You said:</h3><p>What is 2+2?</p></article>
<article><h3 class="sr-only">Sim said:</h3><p>4.</p></article>
<article><h3 class="sr-only">You said:</h3><p>Draw a cat.</p></article>
<article><h3 class="sr-only">Sim said:</h3><p>Drawing…</p><button>Stop generating</button></article>
</main><form><textarea aria-label="Message"></textarea></form>`)
	if err != nil {
		panic(err)
	}
	a, err := adapter.ByName("auto")
	if err != nil {
		panic(err)
	}
	r := a.Groups(doc)
	fmt.Println(r.Adapter, "-", r.Note)
	for _, g := range r.Groups {
		fmt.Printf("%s %s %q (%s)\n", g.ID, g.State, g.Text, g.Evidence)
	}
	fmt.Println(r.Groups[1].Rule)
	// Output:
	// auto→heading - auto picked heading (4 turns, 2 answer groups); no turns by marker
	// heading:1 complete "4." (no generating signal)
	// heading:2 generating "Drawing…" (stop control "Stop generating")
	// heading: speaker label "Sim said:" (h3, sr-only) occurs 2×; id from assistant turn ordinal 2; wrapped in <article>
}
