package ledger

// The sweeper (LED-14): Recover, run periodically and after the store
// comes back from an outage, by one process at a time. Several processes
// may share one database (PostgreSQL); each runs a sweeper, and a lease
// row (schema v3, table leases) elects the one that sweeps: it is taken
// when free or expired and renewed by its holder on every sweep, so a
// holder that dies is replaced once its lease runs out. Every decision of
// Recover is made again under the job's row lock on fresh reads, so even
// two sweeps at once would resolve each attempt once; the lease keeps
// them from asking the providers twice.

import (
	"context"
	"fmt"
	"time"
)

// SweepLease names the sweeper's lease row.
const SweepLease = "sweeper"

// Sweeper defaults (SweepOptions fields left zero).
const (
	DefaultSweepInterval = 5 * time.Second
	// DefaultSweepMinAge leaves attempts another live process has just
	// started or re-sent.
	DefaultSweepMinAge = 2 * time.Second
	// sweepRetryMin and sweepRetryMax bound the wait after a sweep that
	// failed (the store away): short, so the sweep after an outage runs
	// soon after the store is back.
	sweepRetryMin = 200 * time.Millisecond
	sweepRetryMax = 2 * time.Second
)

// SweepOptions configure Sweep and RunSweeper.
type SweepOptions struct {
	// Interval between sweeps; 0 is DefaultSweepInterval.
	Interval time.Duration
	// Lease is how long one sweep's lease lasts; 0 is three intervals.
	Lease time.Duration
	// Recover configures each sweep; a zero MinAge is
	// DefaultSweepMinAge (a negative one takes every attempt).
	Recover RecoverOptions
}

func (o SweepOptions) withDefaults() SweepOptions {
	if o.Interval <= 0 {
		o.Interval = DefaultSweepInterval
	}
	if o.Lease <= 0 {
		o.Lease = 3 * o.Interval
	}
	switch {
	case o.Recover.MinAge == 0:
		o.Recover.MinAge = DefaultSweepMinAge
	case o.Recover.MinAge < 0:
		o.Recover.MinAge = 0
	}
	return o
}

// Sweep takes (or renews) the sweeper's lease and, when this service holds
// it, runs Recover; held is false when another process holds the lease.
func (s *Service) Sweep(ctx context.Context, opts SweepOptions) (recs []Recovery, held bool, err error) {
	opts = opts.withDefaults()
	err = s.run(ctx, func(tx Tx, o *op) error {
		var err error
		held, err = tx.TakeLease(ctx, SweepLease, s.holder, o.now, o.now.Add(opts.Lease))
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("ledger: sweep lease: %w", err)
	}
	if !held {
		return nil, false, nil
	}
	recs, err = s.Recover(ctx, opts.Recover)
	return recs, true, err
}

// RunSweeper sweeps every opts.Interval until ctx ends; after a sweep that
// failed (the store away) it tries again sooner, backing off from 200 ms
// to 2 s, so that the first sweep after an outage runs right after it.
// report, if not nil, is told about every sweep that held the lease or
// failed. It returns when ctx ends.
func (s *Service) RunSweeper(ctx context.Context, opts SweepOptions, report func([]Recovery, error)) {
	opts = opts.withDefaults()
	wait := time.Duration(0)
	retry := sweepRetryMin
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		recs, held, err := s.Sweep(ctx, opts)
		if ctx.Err() != nil {
			return
		}
		if report != nil && (held || err != nil) {
			report(recs, err)
		}
		if err != nil {
			wait, retry = retry, min(2*retry, sweepRetryMax)
			continue
		}
		wait, retry = opts.Interval, sweepRetryMin
	}
}
