// Package explore is the lab's seeded explorer (SPEC §11 EXP-1, EXP-2),
// modelled on TigerBeetle's simulator: one seed drives every random
// choice, the seed is printed, and a failure replays exactly from it.
//
// # What runs
//
// Each seed draws a schedule (Generate: math/rand/v2's PCG seeded by the
// seed, nothing else drawn from) of steps over four logical jobs — j1
// (alice, k1), j2 (bob, k1), j3 (alice, k2), j4 (bob, k2) — and runs it
// (RunSchedule) against the real ledger service (engine/ledger) on a fresh
// SQLite file or a fresh PostgreSQL schema, with the sim's simulated
// providers (sim.Providers) as its dispatcher: every attempt is sent
// (MarkSent) and holds its success until a step delivers it. Steps are
// concurrent duplicate creates (a double click is 2 copies), a key reused
// with other input, provider timeouts after sending, definite failures,
// held successes delivered first, late (after a timeout, a supersession or
// a cancel) or again, duplicate callbacks several at once, retries without
// a reason, reviewer supersessions onto either provider, cancels, the
// global fallback switch (rollback), restarts of the store (the store is
// closed and the same database opened again, held results stay held, and
// the ledger's recovery runs as at a process start) and crashes between
// committing a new attempt and telling the provider (restart, then
// ledger.Service.Recover re-sends it; LED-13).
// Faults holds the probability of every kind; DefaultFaults documents the
// defaults.
//
// # Invariants
//
// After every step the explorer reads every job it created in one read
// transaction and checks (Invariant): one job per (owner, key); at most
// one winner, chosen by the version CAS (one job_completed event, one
// applied callback, versions never go back, winner and terminal states
// never change); no superseded or late result applied; every callback
// reconciled and explained (logged once per delivery with a known outcome
// and a reason, never lost); no sent attempt marked failed (a timeout
// leaves it unknown); every state explained by the log; every operation
// answered with a result or a documented refusal.
//
// # Reproduction and shrinking
//
// A step names jobs and attempts by their place in the schedule, never by
// ledger ids, and what a step prints is independent of goroutine order
// (concurrent results are tallied), so a seed prints the same schedule and
// outcome on every run and every store. A violating schedule is cut to the
// violating step and shrunk (Shrink: delta debugging, then fewer copies of
// concurrent steps) to the smallest schedule found that still breaks the
// same invariant; every sub-schedule is valid, since a step naming a job
// or attempt that does not exist is skipped.
//
// # Bounds
//
// StepsMax, SeedsMax, JobsMax, AttemptsMax, CopiesMax, ShrinkRunsMax and
// StepTimeout bound every loop and queue; Options.Budget bounds a run's
// wall time.
//
// # Proof that it can fail
//
// ledger.WithPlantedBug(ledger.PlantClaimWithoutCheck) builds the ledger
// with a defect (a success claims the winner without checking what the
// job's version says: a result after a cancel is applied);
// TestPlantedBugIsFoundAndShrunk shows the explorer finds it within a few
// seeds and shrinks it to three steps.
package explore
