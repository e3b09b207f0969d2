package ledgersteps

import (
	"context"
	"fmt"
)

// The patch page's Generate patch, clicked many times at once (LED-4):
// one job per click burst.
func patchSteps(r *table) {
	const g = "Ledger and job API (sim)"
	r.step(g, `^([a-z]+) opens a new patch page and triple-clicks "Generate patch"$`,
		`the same as the double click, with the three POST /patch/api/jobs a triple click sends at once`,
		`When alice opens a new patch page and triple-clicks "Generate patch"`, ledTripleClickGenerate)
	r.step(g, `^([a-z]+) opens a new patch page and clicks "Generate patch" (\d+) times? at once$`,
		`the N POST /patch/api/jobs that N clicks on one page load's Generate patch send, all at once (the same idempotency key)`,
		`When bob opens a new patch page and clicks "Generate patch" 8 times at once`, ledClickGenerateTimes)
}

func ledTripleClickGenerate(ctx context.Context, actor string) error {
	return ledClickGenerate(ctx, actor, 3, "triple-click Generate patch")
}

func ledClickGenerateTimes(ctx context.Context, actor string, n int) error {
	if n < 1 {
		return fmt.Errorf("ledger steps: %d clicks; want at least 1", n)
	}
	return ledClickGenerate(ctx, actor, n, fmt.Sprintf("%d clicks on Generate patch", n))
}
