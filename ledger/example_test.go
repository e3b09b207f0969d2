package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
)

// The full call sequence: create (idempotent), send, time out, a reviewer
// falls back to another provider, the new provider answers, the old one
// answers late, the output is read.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "ledger-example")
	defer os.RemoveAll(dir)
	store, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	clock := ledger.ClockFunc(func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) })
	svc := ledger.New(store, ledger.WithClock(clock), ledger.WithIDs(ledger.SequentialIDs()))
	alice := ledger.Principal{Name: "alice", Role: ledger.RoleOwner}
	rita := ledger.Principal{Name: "rita", Role: ledger.RoleReviewer}

	job, created, _ := svc.Create(ctx, alice, "patch-42", json.RawMessage(`{"repo":"x","task":"fix"}`), "alpha")
	fmt.Println(job.ID, job.State, created)
	again, created, _ := svc.Create(ctx, alice, "patch-42", json.RawMessage(`{"task":"fix","repo":"x"}`), "alpha")
	fmt.Println(again.ID, created)

	first := job.Attempts[0]
	_, _ = svc.MarkSent(ctx, first.ID)
	a, _ := svc.Timeout(ctx, first.ID)
	fmt.Println(a.ID, a.State)

	_, err = svc.AddAttempt(ctx, alice, job.ID, "beta", "")
	fmt.Println(string(errcode.Of(err)))
	second, _ := svc.AddAttempt(ctx, rita, job.ID, "beta", "alpha silent")
	fmt.Println(second.ID, second.State)

	r, _ := svc.Callback(ctx, second.ID, "succeeded", "patch from beta")
	fmt.Println(r.Outcome, r.Job.State, r.Job.WinningAttemptID)
	r, _ = svc.Callback(ctx, first.ID, "succeeded", "patch from alpha")
	fmt.Println(r.Outcome, r.Attempt.State, r.Attempt.Applied)

	out, _ := svc.Output(ctx, alice, job.ID)
	fmt.Println(out.Output)
	// Output:
	// job_0001 accepted true
	// job_0001 false
	// att_0001 unknown
	// REVIEW_REQUIRED
	// att_0002 starting
	// applied completed att_0002
	// late_after_supersession superseded false
	// patch from beta
}
