package harness

import (
	"testing"
)

// TestStateOfTheRepository: the fingerprint Select computes is the one the
// recordings were made with, so no session of the repository is stale,
// and every recorded scenario has its golden.
func TestStateOfTheRepository(t *testing.T) {
	sel, err := Select(Selection{Root: "..", Dir: ".."})
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, sc := range sel {
		st, err := State("..", sc)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Stale) > 0 {
			t.Errorf("%s: stale sessions %v (fingerprint %s)", sc.ID(), st.Stale, sc.Fingerprint)
		}
		if st.Recorded() {
			recorded++
			if st.Golden == "" {
				t.Errorf("%s: recorded, but no golden", sc.ID())
			}
		}
	}
	if recorded < len(sel)/2 {
		t.Fatalf("only %d of %d scenarios recorded", recorded, len(sel))
	}
}
