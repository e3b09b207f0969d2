package explore_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/replaylab/replaylab/explore"
)

// A schedule drawn from a seed, run on the real ledger in a fresh SQLite
// file: the same lines on every run.
func ExampleRunSchedule() {
	opt := explore.DefaultOptions
	s := explore.Generate(42, 6, opt.Faults)
	out, err := explore.RunSchedule(context.Background(), opt, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range out.Lines {
		fmt.Println(strings.Join(strings.Fields(l), " "))
	}
	// Output:
	// 1. restart store closed and opened again
	// 2. create j1 x2 created 1, same job 1 | j1 running v2 [starting]
	// 3. release j1#1 applied | j1 completed v3 [succeeded*]
	// 4. release j1#1 nothing held (already delivered) | j1 completed v3 [succeeded*]
	// 5. cancel j1 INVALID_TRANSITION | j1 completed v3 [succeeded*]
	// 6. fail j1#1 conflicting | j1 completed v3 [succeeded*]
}
