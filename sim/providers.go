package sim

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/ledger"
)

// Behaviour is what a simulated provider does with one attempt. Every
// behaviour first tells the ledger the request went out (MarkSent), except
// when the job was cancelled before sending.
type Behaviour string

// Behaviours of a simulated provider.
const (
	// Succeed: after Latency, a success callback with Output.
	Succeed Behaviour = "succeed"
	// Fail: after Latency, a definite failure callback.
	Fail Behaviour = "fail"
	// TimeOut: after Latency the ledger is told the call timed out (the
	// attempt becomes unknown, LED-3); the provider's result is held until
	// the scenario releases it as a late callback (Providers.Release).
	TimeOut Behaviour = "timeout"
	// Hold: the result is held until the scenario releases it, so a
	// scenario chooses the completion order across attempts.
	Hold Behaviour = "hold"
	// Lost: the work never reaches the provider, as when the process dies
	// after the attempt was committed and before it was sent: nothing is
	// recorded, the attempt stays starting with no send record, and only
	// a restart's recovery (LED-13) resolves it.
	Lost Behaviour = "lost"
)

// Script is one attempt's scripted behaviour.
type Script struct {
	Behaviour Behaviour
	Latency   time.Duration
	// Status of the result a Hold or TimeOut attempt releases: "succeeded"
	// (default) or "failed".
	Status string
	// Output of the result; default "patch from PROVIDER (ATTEMPT)".
	Output string
}

// Faults is the seeded fault schedule for attempts that no script covers.
// One seed drives every random choice: each attempt draws from its own PCG
// stream seeded by (Seed, FNV-1a of the attempt id), so the schedule of an
// attempt does not depend on goroutine order, and a failing run is replayed
// from its seed alone (deterministic ids make the attempt ids repeat). With
// every probability zero, unscripted attempts succeed at once.
type Faults struct {
	Seed uint64
	// Probabilities of each behaviour; Succeed takes what is left.
	TimeoutProb float64
	FailProb    float64
	HoldProb    float64
	// DuplicateProb: a success callback is delivered twice (the ledger
	// must reconcile the second as a duplicate).
	DuplicateProb float64
	// LateProb: the held result of a timed-out attempt is delivered by the
	// provider itself after another drawn latency (a late callback).
	LateProb float64
	// LatencyMax bounds every drawn latency (uniform in [0, LatencyMax]).
	LatencyMax time.Duration
}

// Enabled reports whether any fault has a non-zero probability or latency.
func (f Faults) Enabled() bool {
	return f.TimeoutProb > 0 || f.FailProb > 0 || f.HoldProb > 0 || f.DuplicateProb > 0 || f.LateProb > 0 || f.LatencyMax > 0
}

// Bounds of the simulated providers; every queue and loop has one.
const (
	// InFlightMax bounds attempts whose provider work is running; a
	// dispatch beyond it is not sent (the attempt stays starting and the
	// journal says why).
	InFlightMax = 256
	// HeldMax bounds results held for release.
	HeldMax = 1024
	// ScriptsMax bounds the scripted attempts queued per provider.
	ScriptsMax = 1024
	// JournalMax bounds the provider journal (oldest entries drop first).
	JournalMax = 4096
	// SubmittedMax bounds the attempt ids remembered for idempotent submit.
	SubmittedMax = 65536
)

// DefaultProviders are the provider names a new sim knows: the ledger's
// default first provider and one fallback.
var DefaultProviders = []string{ledger.DefaultProvider, "fallback"}

// Errors of the simulated providers.
var (
	// ErrNotHeld: no result is held for that attempt (never dispatched
	// with Hold or TimeOut, or already released).
	ErrNotHeld = errors.New("sim: no held result for attempt")
	// ErrBound: a fixed bound was reached.
	ErrBound = errors.New("sim: bound reached")
	// ErrClosed: the providers were stopped.
	ErrClosed = errors.New("sim: providers closed")
)

// Decision is one journal entry: what a provider did with an attempt.
type Decision struct {
	AttemptID string
	Provider  string
	Behaviour Behaviour
	Latency   time.Duration
	Source    string // "script", "faults" or "default"
	Note      string // e.g. "not sent: job cancelled", "duplicate callback"
}

// held is a result waiting for release; ready closes once the provider's
// automatic part (sent, timeout) is recorded.
type held struct {
	status, output string
	secret         string // the attempt's callback secret, to sign the release
	ready          chan struct{}
	err            error // set before ready closes when sending failed
}

// Providers are the sim's simulated providers; they implement
// ledger.Dispatcher. Scripts are queued per provider name and consumed one
// per attempt; attempts without a script follow the Faults schedule.
//
// Their latencies, timeouts and late callbacks wait on the providers'
// clock (SetClock; the sim's Options.Clock): on a lab clock (CLK-1) a
// provider's work waits for lab time, not wall time, so a 30 s provider
// answer costs no wall time and happens at exactly 30 s of lab time. A
// provider waiting for lab time is not running: the lab moves on when the
// engine sleeps, or when Settle advances it to the providers' next
// instant; after the lab fires a provider's timer, the sim's gate
// (Server.Settle) waits until that provider's next part is recorded.
type Providers struct {
	faults Faults
	stop   chan struct{}
	wg     sync.WaitGroup
	clk    clock.Clock

	mu      sync.Mutex
	svc     *ledger.Service
	names   []string
	scripts map[string][]Script
	held    map[string]*held
	// inflight counts the attempts whose provider work has not ended;
	// running those of them not waiting for lab time.
	inflight int
	running  int
	changed  chan struct{} // closed and replaced when running drops
	journal  []Decision
	closed   bool
	// submitted is every attempt id this provider took: a second Dispatch
	// of one attempt (a recovery's re-send) is not sent twice, as a real
	// provider's submit keyed by the attempt id would not be. Bounded by
	// SubmittedMax (oldest forgotten first).
	submitted      map[string]bool
	submittedOrder []string
	// records is what the provider knows of each attempt it took, for
	// AttemptStatus (LED-14): pending until it has a result, then the
	// result. Bounded with submitted.
	records map[string]ledger.ProviderStatus
}

// NewProviders returns providers following f for unscripted attempts. They
// report to the ledger service bound with Bind.
func NewProviders(f Faults) *Providers {
	return &Providers{faults: f, stop: make(chan struct{}), names: slices.Clone(DefaultProviders), clk: clock.Wall,
		scripts: map[string][]Script{}, held: map[string]*held{}, submitted: map[string]bool{}, changed: make(chan struct{}),
		records: map[string]ledger.ProviderStatus{}}
}

// SetClock makes the providers wait on c (nil: wall time); call it before
// the first Dispatch.
func (p *Providers) SetClock(c clock.Clock) {
	if c == nil {
		c = clock.Wall
	}
	p.mu.Lock()
	p.clk = c
	p.mu.Unlock()
}

// signalLocked wakes the waiters on running; p.mu is held.
func (p *Providers) signalLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Bind sets the service the providers report to (MarkSent, Timeout,
// Callback). The sim binds its own ledger.
func (p *Providers) Bind(svc *ledger.Service) {
	p.mu.Lock()
	p.svc = svc
	p.mu.Unlock()
}

// Faults returns the fault schedule (print its Seed to replay a run).
func (p *Providers) Faults() Faults { return p.faults }

// Names lists the known provider names: the defaults, then every scripted
// one, in first-use order.
func (p *Providers) Names() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.names)
}

// Script queues behaviours for the provider's next attempts, one each.
func (p *Providers) Script(provider string, s ...Script) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.scripts[provider])+len(s) > ScriptsMax {
		return fmt.Errorf("%w: more than %d scripted attempts for provider %q", ErrBound, ScriptsMax, provider)
	}
	for _, sc := range s {
		switch sc.Behaviour {
		case Succeed, Fail, TimeOut, Hold, Lost:
		default:
			return fmt.Errorf("sim: provider %q: unknown behaviour %q", provider, sc.Behaviour)
		}
	}
	if !slices.Contains(p.names, provider) {
		p.names = append(p.names, provider)
	}
	p.scripts[provider] = append(p.scripts[provider], s...)
	return nil
}

// Journal returns what the providers did, oldest first (at most
// JournalMax entries).
func (p *Providers) Journal() []Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.journal)
}

func (p *Providers) note(d Decision) {
	if len(p.journal) >= JournalMax {
		p.journal = slices.Delete(p.journal, 0, 1)
	}
	p.journal = append(p.journal, d)
}

// next picks the attempt's behaviour: the provider's next script, else a
// draw from the fault schedule, else an immediate success.
func (p *Providers) next(a ledger.Attempt) (Script, Decision, *rand.Rand) {
	d := Decision{AttemptID: a.ID, Provider: a.Provider}
	if q := p.scripts[a.Provider]; len(q) > 0 {
		p.scripts[a.Provider] = q[1:]
		d.Source = "script"
		return q[0], d, nil
	}
	if !p.faults.Enabled() {
		d.Source = "default"
		return Script{Behaviour: Succeed}, d, nil
	}
	d.Source = "faults"
	h := fnv.New64a()
	_, _ = h.Write([]byte(a.ID))
	r := rand.New(rand.NewPCG(p.faults.Seed, h.Sum64()))
	f := p.faults
	s := Script{Behaviour: Succeed}
	switch u := r.Float64(); {
	case u < f.TimeoutProb:
		s.Behaviour = TimeOut
	case u < f.TimeoutProb+f.FailProb:
		s.Behaviour = Fail
	case u < f.TimeoutProb+f.FailProb+f.HoldProb:
		s.Behaviour = Hold
	}
	if f.LatencyMax > 0 {
		s.Latency = time.Duration(r.Int64N(int64(f.LatencyMax) + 1))
	}
	return s, d, r
}

// Dispatch implements ledger.Dispatcher: it starts the attempt's provider
// work on its own goroutine and returns at once.
func (p *Providers) Dispatch(_ context.Context, _ ledger.Job, a ledger.Attempt) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.submitted[a.ID] {
		p.note(Decision{AttemptID: a.ID, Provider: a.Provider, Source: "submit", Note: "already submitted: idempotent by attempt id, not sent again"})
		return
	}
	if len(p.submittedOrder) >= SubmittedMax {
		delete(p.submitted, p.submittedOrder[0])
		delete(p.records, p.submittedOrder[0])
		p.submittedOrder = p.submittedOrder[1:]
	}
	p.submitted[a.ID] = true
	p.submittedOrder = append(p.submittedOrder, a.ID)
	s, d, r := p.next(a)
	d.Behaviour, d.Latency = s.Behaviour, s.Latency
	switch {
	case p.closed:
		d.Note = "not sent: providers closed"
		p.note(d)
		return
	case p.svc == nil:
		d.Note = "not sent: no ledger bound"
		p.note(d)
		return
	case p.inflight >= InFlightMax:
		d.Note = fmt.Sprintf("not sent: %d attempts in flight (InFlightMax)", InFlightMax)
		p.note(d)
		return
	}
	if s.Behaviour == Lost {
		d.Note = "lost: never sent (as if the process died before sending)"
		p.note(d)
		return
	}
	if s.Output == "" {
		s.Output = fmt.Sprintf("patch from %s (%s)", a.Provider, a.ID)
	}
	var h *held
	if s.Behaviour == Hold || s.Behaviour == TimeOut {
		if len(p.held) >= HeldMax {
			d.Note = fmt.Sprintf("not sent: %d results held (HeldMax)", HeldMax)
			p.note(d)
			return
		}
		status := s.Status
		if status == "" {
			status = ledger.StatusSucceeded
		}
		h = &held{status: status, output: s.Output, secret: a.CallbackSecret, ready: make(chan struct{})}
		p.held[a.ID] = h
	}
	dup, late := false, time.Duration(-1)
	if r != nil {
		dup = s.Behaviour == Succeed && r.Float64() < p.faults.DuplicateProb
		if s.Behaviour == TimeOut && r.Float64() < p.faults.LateProb {
			late = time.Duration(r.Int64N(int64(p.faults.LatencyMax) + 1))
		}
	}
	if dup {
		d.Note = "duplicate callback"
	}
	if late >= 0 {
		d.Note = "late callback after " + late.String()
	}
	p.note(d)
	p.records[a.ID] = ledger.ProviderStatus{State: ledger.ProviderPending}
	p.inflight++
	p.running++
	p.wg.Add(1)
	go p.work(p.svc, a, s, h, dup, late)
}

// AttemptStatus implements ledger.StatusChecker: what this provider knows
// of the attempt, asked by its id, as a real provider's "retrieve by id"
// answers it (LED-14). An attempt it never took, lost (Lost), or took in
// an earlier process (the sim's providers live in its process, so their
// work ends with it) is ProviderNoRecord; one whose result is held, or
// still on its way, is ProviderPending; one it answered is its result,
// whether or not the callback reached the ledger.
func (p *Providers) AttemptStatus(ctx context.Context, _ ledger.Job, a ledger.Attempt) (ledger.ProviderStatus, error) {
	if err := ctx.Err(); err != nil {
		return ledger.ProviderStatus{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ledger.ProviderStatus{}, ErrClosed
	}
	st, ok := p.records[a.ID]
	if !ok {
		return ledger.ProviderStatus{State: ledger.ProviderNoRecord}, nil
	}
	return st, nil
}

// record sets what the provider knows of an attempt it took.
func (p *Providers) record(id string, st ledger.ProviderStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.submitted[id] {
		p.records[id] = st
	}
}

// forget drops an attempt the provider could not send, so that its
// recovery's re-send is sent.
func (p *Providers) forget(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.records, id)
	delete(p.submitted, id)
}

// Provider retries of ledger calls refused while the store is busy or
// away (STORE_BUSY, OUTCOME_UNCERTAIN): a few, spaced; what still fails
// is left to the ledger's recovery, which asks AttemptStatus.
const (
	providerRetriesMax = 3
	providerRetryWait  = 250 * time.Millisecond
)

// retry runs f until it succeeds, fails for another reason than a busy
// store, or providerRetriesMax runs have failed.
func (p *Providers) retry(f func() error) error {
	var err error
	for i := range providerRetriesMax {
		if err = f(); err == nil {
			return nil
		}
		if c := ledger.ProblemCode(err); c != ledger.CodeBusy && c != ledger.CodeUncertain {
			return err
		}
		if i+1 < providerRetriesMax && !p.sleepWall(providerRetryWait) {
			return err
		}
	}
	return err
}

// sleepWall waits d of wall time or until the providers stop.
func (p *Providers) sleepWall(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.stop:
		return false
	}
}

// sleep waits d on the providers' clock or until the providers stop;
// false means stopped. On a lab clock the worker is not running while it
// waits: the lab's timer marks it running again before it wakes it, so
// the sim's gate holds the lab until the worker's next part is recorded.
func (p *Providers) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	p.mu.Lock()
	lab, _ := p.clk.(*clock.Lab)
	p.mu.Unlock()
	if lab != nil {
		woke := make(chan struct{})
		// the timer is pending before the worker stops counting as
		// running, so whoever sees nothing running finds it (Lab.Next);
		// its f takes p.mu after this unlock
		p.mu.Lock()
		lab.AfterFunc(d, func() {
			p.mu.Lock()
			p.running++
			p.mu.Unlock()
			close(woke)
		})
		p.running--
		p.signalLocked()
		p.mu.Unlock()
		select {
		case <-woke:
			return true
		case <-p.stop:
			select {
			case <-woke: // the timer ran and counted this worker again
			default:
				p.mu.Lock()
				p.running++ // balanced by work's exit
				p.mu.Unlock()
			}
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.stop:
		return false
	}
}

func (p *Providers) work(svc *ledger.Service, a ledger.Attempt, s Script, h *held, dup bool, late time.Duration) {
	defer p.wg.Done()
	ctx := context.Background()
	var err error
	defer func() {
		if h != nil {
			h.err = err
			close(h.ready)
		}
		p.mu.Lock()
		p.inflight--
		p.running--
		p.signalLocked()
		if err != nil {
			p.note(Decision{AttemptID: a.ID, Provider: a.Provider, Behaviour: s.Behaviour, Note: err.Error()})
		}
		p.mu.Unlock()
	}()
	if err = p.retry(func() error { _, e := svc.MarkSent(ctx, a.ID); return e }); err != nil {
		p.forget(a.ID)
		err = fmt.Errorf("sim: provider %s did not send %s: %w", a.Provider, a.ID, err)
		return
	}
	if !p.sleep(s.Latency) {
		err = ErrClosed
		return
	}
	answer := func(status, output string) error {
		st := ledger.ProviderStatus{State: ledger.ProviderSucceeded, Output: output}
		if status == ledger.StatusFailed {
			st.State = ledger.ProviderFailed
		}
		p.record(a.ID, st) // the provider has its result, whether or not the callback gets through
		return p.retry(func() error { _, e := signedCallback(ctx, svc, a.ID, a.CallbackSecret, status, output); return e })
	}
	switch s.Behaviour {
	case Succeed:
		if err = answer(ledger.StatusSucceeded, s.Output); err == nil && dup {
			err = answer(ledger.StatusSucceeded, s.Output)
		}
	case Fail:
		err = answer(ledger.StatusFailed, s.Output)
	case TimeOut:
		if err = p.retry(func() error { _, e := svc.Timeout(ctx, a.ID); return e }); err == nil && late >= 0 && p.sleep(late) {
			p.mu.Lock()
			delete(p.held, a.ID)
			p.mu.Unlock()
			err = answer(h.status, h.output)
		}
	case Hold:
	}
}

// Settle waits until no provider work is in flight: every dispatched
// attempt was sent and its latency, timeout or callback is recorded (held
// results stay held). Steps call it before reading state, so what they see
// does not depend on goroutine timing. On a lab clock the providers' waits
// are lab time: Settle moves the lab (Lab.Sleep) to each instant a
// provider waits for, until none is left, costing no wall time.
func (p *Providers) Settle(ctx context.Context) error {
	for range clock.TimersMax {
		if err := p.settleRunning(ctx); err != nil {
			return err
		}
		p.mu.Lock()
		n := p.inflight
		lab, _ := p.clk.(*clock.Lab)
		p.mu.Unlock()
		if n == 0 {
			return nil
		}
		if lab == nil {
			continue // settleRunning returned with work running again: never on a wall clock
		}
		// every worker left waits for lab time: move the lab to the next
		// instant anything waits for (its timers run on this goroutine)
		if _, ok := lab.Next(); !ok {
			return fmt.Errorf("sim: %d provider calls in flight wait for nothing on the lab clock", n)
		}
		if err := lab.Sleep(ctx, providersSleepMax); err != nil {
			return fmt.Errorf("sim: settle the providers: %w", err)
		}
	}
	return fmt.Errorf("%w: the providers did not settle in %d moves of the lab", ErrBound, clock.TimersMax)
}

// providersSleepMax bounds one move of the lab in Settle; the lab stops
// earlier, at its next timer.
const providersSleepMax = 24 * time.Hour

// settleRunning waits until no provider work is running: on a wall clock
// until none is in flight, on a lab clock until every worker in flight
// waits for lab time (clock.Gate of the sim, through Server.Settle).
func (p *Providers) settleRunning(ctx context.Context) error {
	for {
		p.mu.Lock()
		n, ch := p.running, p.changed
		if _, lab := p.clk.(*clock.Lab); !lab {
			n = p.inflight
		}
		p.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sim: %d provider calls still in flight: %w", n, ctx.Err())
		case <-ch:
		}
	}
}

// Held lists the attempt ids whose results are held, sorted.
func (p *Providers) Held() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]string, 0, len(p.held))
	for id := range p.held {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Release delivers the held result of the attempt as a provider callback,
// once the provider's automatic part (sent, timeout) is recorded, and
// returns how the ledger reconciled it. A result is released once.
func (p *Providers) Release(ctx context.Context, attemptID string) (ledger.Reconciliation, error) {
	p.mu.Lock()
	h, ok := p.held[attemptID]
	svc := p.svc
	if ok {
		delete(p.held, attemptID)
	}
	p.mu.Unlock()
	if !ok {
		return ledger.Reconciliation{}, fmt.Errorf("%w %s", ErrNotHeld, attemptID)
	}
	select {
	case <-h.ready:
	case <-ctx.Done():
		return ledger.Reconciliation{}, fmt.Errorf("sim: release %s: %w", attemptID, ctx.Err())
	}
	if h.err != nil {
		return ledger.Reconciliation{}, fmt.Errorf("sim: release %s: %w", attemptID, h.err)
	}
	st := ledger.ProviderStatus{State: ledger.ProviderSucceeded, Output: h.output}
	if h.status == ledger.StatusFailed {
		st.State = ledger.ProviderFailed
	}
	p.record(attemptID, st)
	return signedCallback(ctx, svc, attemptID, h.secret, h.status, h.output)
}

// ReleaseLost lets the provider answer the held attempt, as Release does,
// but the callback is lost on its way (a network fault, a ledger that was
// away): the provider knows its answer and says it when asked by attempt
// id (AttemptStatus), and the ledger learns it only from its recovery
// (LED-14).
func (p *Providers) ReleaseLost(ctx context.Context, attemptID string) error {
	p.mu.Lock()
	h, ok := p.held[attemptID]
	if ok {
		delete(p.held, attemptID)
	}
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w %s", ErrNotHeld, attemptID)
	}
	select {
	case <-h.ready:
	case <-ctx.Done():
		return fmt.Errorf("sim: release %s: %w", attemptID, ctx.Err())
	}
	if h.err != nil {
		return fmt.Errorf("sim: release %s: %w", attemptID, h.err)
	}
	st := ledger.ProviderStatus{State: ledger.ProviderSucceeded, Output: h.output}
	if h.status == ledger.StatusFailed {
		st.State = ledger.ProviderFailed
	}
	p.record(attemptID, st)
	p.mu.Lock()
	p.note(Decision{AttemptID: attemptID, Source: "release", Note: "answered; the callback was lost on its way"})
	p.mu.Unlock()
	return nil
}

// signedCallback is how a simulated provider answers: the callback body
// signed with the secret the attempt came with, checked by the ledger
// exactly as POST /api/providers/callback checks it (LED-11).
func signedCallback(ctx context.Context, svc *ledger.Service, attemptID, secret, status, output string) (ledger.Reconciliation, error) {
	body, sig := ledger.NewSignedCallback(attemptID, secret, status, output, svc.Now())
	return svc.VerifiedCallback(ctx, sig, body)
}

// close stops every provider goroutine and waits for them.
func (p *Providers) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.stop)
	p.mu.Unlock()
	p.wg.Wait()
}
