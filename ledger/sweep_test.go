package ledger_test

// LED-14 on both stores: recovery of attempts already sent, by asking the
// provider by attempt id, and the sweeper's lease.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/ledger/ledgertest"
)

// statusProvider answers AttemptStatus from a table and counts
// dispatches; block makes it hang until the question's deadline.
type statusProvider struct {
	mu         sync.Mutex
	status     map[string]ledger.ProviderStatus
	block      bool
	dispatched []string
}

func (p *statusProvider) Dispatch(_ context.Context, _ ledger.Job, a ledger.Attempt) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dispatched = append(p.dispatched, a.ID)
}

func (p *statusProvider) AttemptStatus(ctx context.Context, _ ledger.Job, a ledger.Attempt) (ledger.ProviderStatus, error) {
	p.mu.Lock()
	block, st, ok := p.block, p.status[a.ID], false
	_, ok = p.status[a.ID]
	p.mu.Unlock()
	if block {
		<-ctx.Done()
		return ledger.ProviderStatus{}, ctx.Err()
	}
	if !ok {
		return ledger.ProviderStatus{State: ledger.ProviderNoRecord}, nil
	}
	return st, nil
}

func (p *statusProvider) set(id string, st ledger.ProviderState, out string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.status == nil {
		p.status = map[string]ledger.ProviderStatus{}
	}
	p.status[id] = ledger.ProviderStatus{State: st, Output: out}
}

// movingClock is a clock a test moves.
type movingClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *movingClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *movingClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestRecoverSentAttempts(t *testing.T) {
	const deadline = time.Minute
	type setup func(t *testing.T, p *statusProvider, svc *ledger.Service, clk *movingClock, attempt string)
	sent := func(t *testing.T, svc *ledger.Service, id string) {
		t.Helper()
		if _, err := svc.MarkSent(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name      string
		setup     setup
		actions   string // recoveries of two Recover calls, comma-separated
		job       ledger.JobState
		attempt   ledger.AttemptState
		retry     int // the owner's retry afterwards: 201, or 409 (REVIEW_REQUIRED/INVALID_TRANSITION)
		retryCode errcode.Code
	}{
		{name: "provider answered, callback lost", setup: func(t *testing.T, p *statusProvider, svc *ledger.Service, _ *movingClock, a string) {
			sent(t, svc, a)
			p.set(a, ledger.ProviderSucceeded, "patch")
		}, actions: "reconciled", job: ledger.JobCompleted, attempt: ledger.AttemptSucceeded, retryCode: ledger.CodeInvalidTransition},
		{name: "provider failed, callback lost", setup: func(t *testing.T, p *statusProvider, svc *ledger.Service, _ *movingClock, a string) {
			sent(t, svc, a)
			p.set(a, ledger.ProviderFailed, "no")
		}, actions: "reconciled", job: ledger.JobNeedsReview, attempt: ledger.AttemptFailed, retry: 201},
		{name: "provider lost it with the process", setup: func(t *testing.T, p *statusProvider, svc *ledger.Service, _ *movingClock, a string) {
			sent(t, svc, a)
		}, actions: "resent,no_record", job: ledger.JobNeedsReview, attempt: ledger.AttemptFailed, retry: 201},
		{name: "provider still working, within the deadline", setup: func(t *testing.T, p *statusProvider, svc *ledger.Service, clk *movingClock, a string) {
			sent(t, svc, a)
			p.set(a, ledger.ProviderPending, "")
			clk.add(deadline / 2)
		}, actions: "", job: ledger.JobRunning, attempt: ledger.AttemptStarting, retryCode: ledger.CodeReviewRequired},
		{name: "provider still working past the deadline", setup: func(t *testing.T, p *statusProvider, svc *ledger.Service, clk *movingClock, a string) {
			sent(t, svc, a)
			p.set(a, ledger.ProviderPending, "")
			clk.add(deadline + time.Second)
		}, actions: "unknown", job: ledger.JobNeedsReview, attempt: ledger.AttemptUnknown, retryCode: ledger.CodeReviewRequired},
		{name: "provider cannot say, past the deadline", setup: func(t *testing.T, p *statusProvider, svc *ledger.Service, clk *movingClock, a string) {
			sent(t, svc, a)
			p.block = true
			clk.add(deadline + time.Second)
		}, actions: "unknown", job: ledger.JobNeedsReview, attempt: ledger.AttemptUnknown, retryCode: ledger.CodeReviewRequired},
		{name: "timed out, then answered while nobody listened", setup: func(t *testing.T, p *statusProvider, svc *ledger.Service, _ *movingClock, a string) {
			sent(t, svc, a)
			if _, err := svc.Timeout(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			p.set(a, ledger.ProviderSucceeded, "late")
		}, actions: "reconciled", job: ledger.JobCompleted, attempt: ledger.AttemptSucceeded, retryCode: ledger.CodeInvalidTransition},
		{name: "never sent, provider has it", setup: func(t *testing.T, p *statusProvider, svc *ledger.Service, _ *movingClock, a string) {
			p.set(a, ledger.ProviderPending, "")
		}, actions: "sent", job: ledger.JobRunning, attempt: ledger.AttemptStarting, retryCode: ledger.CodeReviewRequired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachStore(t, func(t *testing.T, dsn string) {
				ctx := context.Background()
				store := openStore(t, dsn)
				defer store.Close()
				p := &statusProvider{}
				clk := &movingClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
				svc := ledger.New(store, ledger.WithDispatcher(p), ledger.WithClock(clk))
				j, _, err := svc.Create(ctx, ledgertest.Alice, "k", json.RawMessage(`{"p":1}`), "")
				if err != nil {
					t.Fatal(err)
				}
				a := j.Attempts[0].ID
				tc.setup(t, p, svc, clk, a)
				opts := ledger.RecoverOptions{AttemptDeadline: deadline, StatusTimeout: 200 * time.Millisecond}
				var actions []string
				for range 2 {
					// a status call that hangs is cut by StatusTimeout:
					// without it Recover would not return at all; the
					// guard below only ends such a hang
					type recovered struct {
						recs []ledger.Recovery
						err  error
					}
					done := make(chan recovered, 1)
					go func() {
						recs, err := svc.Recover(ctx, opts)
						done <- recovered{recs, err}
					}()
					var recs []ledger.Recovery
					select {
					case r := <-done:
						if r.err != nil {
							t.Fatal(r.err)
						}
						recs = r.recs
					case <-time.After(2 * time.Minute):
						t.Fatal("recover did not return in 2 minutes: the status timeout does not bound it")
					}
					for _, r := range recs {
						actions = append(actions, r.Action)
						if r.Reason == "" {
							t.Errorf("recovery %s without a reason", r.Action)
						}
					}
				}
				if got := strings.Join(actions, ","); got != tc.actions {
					t.Errorf("recoveries %q, want %q", got, tc.actions)
				}
				got, err := svc.Get(ctx, ledgertest.Alice, j.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.State != tc.job || got.Attempts[0].State != tc.attempt {
					t.Errorf("job %s, attempt %s; want %s, %s", got.State, got.Attempts[0].State, tc.job, tc.attempt)
				}
				_, err = svc.AddAttempt(ctx, ledgertest.Alice, j.ID, "", "")
				switch {
				case tc.retry == 201 && err != nil:
					t.Errorf("owner's retry: %v, want a new attempt", err)
				case tc.retry != 201 && !errors.Is(err, tc.retryCode):
					t.Errorf("owner's retry: %v, want %s", err, tc.retryCode)
				}
				ledgertest.CheckInvariants(t, svc, j.ID)
			})
		})
	}
}

// TestSweepLease: of two services sharing a database one sweeps; the
// other takes over once the first one's lease has run out.
func TestSweepLease(t *testing.T) {
	eachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		clk := &movingClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		sa, sb := openStore(t, dsn), openStore(t, dsn)
		defer sa.Close()
		defer sb.Close()
		a := ledger.New(sa, ledger.WithClock(clk))
		b := ledger.New(sb, ledger.WithClock(clk))
		opts := ledger.SweepOptions{Interval: time.Second, Lease: 3 * time.Second}
		held := func(s *ledger.Service) bool {
			t.Helper()
			_, h, err := s.Sweep(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		if !held(a) || held(b) || !held(a) {
			t.Fatal("a should hold the lease and b not")
		}
		clk.add(2 * time.Second)
		if held(b) {
			t.Fatal("b took a lease a renewed 2 s ago (3 s lease)")
		}
		clk.add(4 * time.Second)
		if !held(b) || held(a) {
			t.Fatal("b should take the expired lease, and a then not have it")
		}
	})
}
