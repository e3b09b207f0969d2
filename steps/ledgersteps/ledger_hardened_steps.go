package ledgersteps

// Steps of the hardened ledger (SPEC §17: LED-14 nothing stranded, LED-15
// keys that outlive the process, LED-16 bounded everywhere, LED-17 a
// sign-in that resists). The drills themselves live in the sim and the
// ledger (sim.Trickle, sim.PatchSignInFrom, ledger.LockWrites,
// Server.Sweep); these steps only call them and put what they saw in the
// trace, with no time in it.

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/ledger/ledgerlab"
	"github.com/replaylab/replaylab/sim"
)

// hardenedState is what the hardened steps keep beside the ledger state.
type hardenedState struct {
	release    func() error // of the write lock, while held
	readLimit  time.Duration
	trickled   int           // status of the last trickled request
	closedIn   time.Duration // when its connection closed
	oldCookies map[string]*http.Cookie
	guesses    []int // statuses of the last guesses, in order
	guessRA    bool  // every 429 of them carried Retry-After
}

func ledgerHardenedSteps(r *table) {
	const g = "Ledger and job API (sim)"
	r.step(g, `^the sim bounds reads of headers and bodies at (\d+) ms$`,
		"the scenario's sim answers a request whose headers, or whose body, do not arrive within N ms with 408 and closes the connection (LED-16); must come before any other ledger step",
		"Given the sim bounds reads of headers and bodies at 300 ms", ledGivenReadLimit, defaults("ms"))
	r.step(g, `^the ledger's store waits at most (\d+) ms$`,
		"one ledger operation waits at most N ms for its store, then answers 503 STORE_BUSY with Retry-After (LED-16); must come before any other ledger step",
		"Given the ledger's store waits at most 1000 ms", ledGivenStoreWait, defaults("ms"))
	r.step(g, `^the provider answers attempt (\d+) but its callback is lost$`,
		"the provider holding the job's attempt N answers it, and the callback never reaches the ledger: only asking the provider by attempt id tells",
		"When the provider answers attempt 1 but its callback is lost", ledReleaseLost)
	r.step(g, `^the sweeper runs$`,
		"one sweep of the ledger's sweeper (LED-14): it takes the sweeper's lease and resolves every attempt nobody waits on any more, asking the providers by attempt id; its recoveries go into the trace",
		"When the sweeper runs", ledSweep)
	r.step(g, `^the patch page keys so far are all different$`,
		"every Generate patch of the scenario, across restarts, carried a key no earlier page had (LED-15)",
		"Then the patch page keys so far are all different", ledKeysDistinct)
	r.step(g, `^another connection holds the ledger's write lock$`,
		"a connection of its own takes the database's write lock and keeps it (SQLite BEGIN IMMEDIATE; PostgreSQL LOCK TABLE … IN EXCLUSIVE MODE), as a long writer in another process would",
		"When another connection holds the ledger's write lock", ledLockWrites)
	r.step(g, `^the write lock is released$`,
		"the connection holding the write lock lets it go",
		"When the write lock is released", ledUnlockWrites)
	r.step(g, `^the response says when to retry$`,
		"the last response carries a Retry-After header of whole seconds",
		"Then the response says when to retry", ledRetryAfter)
	r.step(g, `^a client trickles (its headers|a body) to "([^"]*)" one byte every (\d+) ms$`,
		"a raw connection sends the request line (and the headers, for a body) and then one byte every N ms, as a slowloris does",
		`When a client trickles its headers to "/chat" one byte every 100 ms`, ledTrickle)
	r.step(g, `^the server answered (\d+) and closed the connection within its limit$`,
		"the trickled request got that status and its connection was closed within the read limit (plus a second of grace)",
		"Then the server answered 408 and closed the connection within its limit", ledTrickled)
	r.step(g, `^a client at ([0-9.]+) guesses (\d+) wrong tokens(?: for "([a-z]+)")?$`,
		"N sign-ins with wrong tokens from that loopback address (127.0.0.N are clients of their own), optionally naming the user they guess at; the statuses go into the trace",
		`When a client at 127.0.0.2 guesses 8 wrong tokens`, ledGuess)
	r.step(g, `^the first (\d+) guesses were refused 401 and the rest 429 with Retry-After$`,
		"the last guesses: N answers 401 (the client's free failures), then only 429 SIGN_IN_RATE_LIMITED, each with Retry-After",
		"Then the first 5 guesses were refused 401 and the rest 429 with Retry-After", ledGuessesLimited)
	r.step(g, `^([a-z]+) signs in to the patch page (\d+) times$`,
		"that user signs in N times in a row, each a new session; the statuses go into the trace",
		"When bob signs in to the patch page 40 times", ledSignInTimes)
	r.step(g, `^([a-z]+) signs in to the patch page from ([0-9.]+)$`,
		"that user types the token into the sign-in form from that loopback address and keeps the session",
		"When alice signs in to the patch page from 127.0.0.3", ledSignInFrom)
	r.step(g, `^([a-z]+)'s patch page still shows (?:him|her|them) signed in$`,
		"the patch page, with the session that user signed in with, says who is signed in",
		"Then alice's patch page still shows her signed in", ledStillSignedIn)
	r.step(g, `^([a-z]+) signs out of the patch page$`,
		"the Sign out link's form, with the session's CSRF token (POST /patch/session/end)",
		"When alice signs out of the patch page", ledSignOut)
	r.step(g, `^([a-z]+)'s old session signs nobody in$`,
		"the cookie of the session that user ended opens the sign-in form, not the patch page",
		"Then alice's old session signs nobody in", ledOldSession)
	r.step(g, `^a page that rebinds "([^"]*)" to the sim opens "([^"]*)"$`,
		"a request to the sim whose Host (and Origin) name another site, as DNS rebinding sends it",
		`When a page that rebinds "evil.example" to the sim opens "/patch"`, ledRebind)
	r.step(g, `^"([^"]*)" forbids framing$`,
		"that page's response carries X-Frame-Options: DENY and Content-Security-Policy frame-ancestors 'none'",
		`Then "/patch" forbids framing`, ledForbidsFraming)
}

func (w *world) hardState() *hardenedState { return stateOf[hardenedState](w) }

// ledTune changes how the scenario's sim starts; it must come first.
func ledTune(ctx context.Context, f func(*sim.Options)) error {
	st := worldOf(ctx).ledState()
	if st.lab != nil {
		return fmt.Errorf("ledger steps: a step that sets how the sim starts must come before the other ledger steps")
	}
	st.tunes = append(st.tunes, f)
	return nil
}

func ledGivenReadLimit(ctx context.Context, ms int) error {
	d := time.Duration(ms) * time.Millisecond
	worldOf(ctx).hardState().readLimit = d
	return ledTune(ctx, func(o *sim.Options) {
		o.Timeouts.ReadHeader, o.Timeouts.ReadBody, o.Timeouts.Write, o.Timeouts.Idle = d, d, time.Second, 2*time.Second
	})
}

func ledGivenStoreWait(ctx context.Context, ms int) error {
	return ledTune(ctx, func(o *sim.Options) { o.StoreWaitMax = time.Duration(ms) * time.Millisecond })
}

func ledReleaseLost(ctx context.Context, n int) error {
	w := worldOf(ctx)
	id, err := w.ledAttemptID(ctx, n)
	if err != nil {
		return err
	}
	st := w.ledState()
	if err := st.lab.Server().Providers().ReleaseLost(ctx, id); err != nil {
		return err
	}
	w.ledEmit("provider", trace.A("attempt", id), trace.A("answered", true), trace.A("callback", "lost"))
	return nil
}

func ledSweep(ctx context.Context) error {
	w := worldOf(ctx)
	st, err := w.ledSettled(ctx)
	if err != nil {
		return err
	}
	recs, held, err := st.lab.Server().Sweep(ctx)
	if err != nil {
		return err
	}
	st.recoveries = recs
	w.ledEmit("sweep", trace.A("lease", held), trace.A("recoveries", len(recs)))
	for _, r := range recs {
		w.ledEmit("recovery", trace.A("job", r.JobID), trace.A("attempt", r.AttemptID), trace.A("action", r.Action), trace.A("reason", r.Reason))
	}
	return st.settle(ctx)
}

func ledKeysDistinct(ctx context.Context) error {
	w := worldOf(ctx)
	keys := w.ledState().keys
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			return fmt.Errorf("the patch page handed out key %s twice (keys %v)", k, keys)
		}
		seen[k] = true
	}
	if len(keys) < 2 {
		return fmt.Errorf("ledger steps: %d patch pages so far, want at least 2 to compare", len(keys))
	}
	w.ledEmit("keys", trace.A("keys", strings.Join(keys, ",")))
	return nil
}

func ledLockWrites(ctx context.Context) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	hs := w.hardState()
	if hs.release != nil {
		return fmt.Errorf("ledger steps: the write lock is already held")
	}
	release, err := ledger.LockWrites(ctx, st.lab.Options().DB)
	if err != nil {
		return err
	}
	hs.release = release
	w.OnFinish(func() {
		if hs.release != nil {
			_ = hs.release()
			hs.release = nil
		}
	})
	w.ledEmit("write-lock", trace.A("held", true))
	return nil
}

func ledUnlockWrites(ctx context.Context) error {
	w := worldOf(ctx)
	hs := w.hardState()
	if hs.release == nil {
		return fmt.Errorf("ledger steps: no write lock is held")
	}
	err := hs.release()
	hs.release = nil
	w.ledEmit("write-lock", trace.A("held", false))
	return err
}

func ledRetryAfter(ctx context.Context) error {
	w := worldOf(ctx)
	r := w.ledState().last
	var secs int
	if _, err := fmt.Sscan(r.RetryAfter, &secs); err != nil || secs <= 0 {
		return fmt.Errorf("the response (%d) has Retry-After %q, want whole seconds", r.Status, r.RetryAfter)
	}
	w.ledEmit("retry-after", trace.A("seconds", secs))
	return nil
}

func ledTrickle(ctx context.Context, what, path string, gapMS int) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	hs := w.hardState()
	if hs.readLimit == 0 {
		return fmt.Errorf(`ledger steps: give "the sim bounds reads of headers and bodies at N ms" first`)
	}
	head, rest := "GET "+path+" HTTP/1.1\r\nHost: 127.0.0.1\r\n", strings.Repeat("X-Slow: 1\r\n", 200)
	if what == "a body" {
		head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-token\r\nIdempotency-Key: slow\r\nContent-Length: 2000\r\n\r\n"
		rest = strings.Repeat("x", 2000)
	}
	status, took, err := sim.Trickle(ctx, st.lab.URL(), head, rest, time.Duration(gapMS)*time.Millisecond, hs.readLimit+10*time.Second)
	if err != nil {
		return err
	}
	hs.trickled, hs.closedIn = status, took
	w.ledEmit("trickle", trace.A("what", what), trace.A("path", path), trace.A("status", status),
		trace.A("closed_within_limit", true)) // Trickle's nil error: the server ended it by its own bound
	return nil
}

func ledTrickled(ctx context.Context, want int) error {
	hs := worldOf(ctx).hardState()
	// The client trickles without end (sim.Trickle), so the connection
	// closed by the server's bound, however late a loaded machine ran it.
	if hs.trickled != want {
		return fmt.Errorf("the trickled request got %d and its connection closed after %s; want %d", hs.trickled, hs.closedIn.Round(time.Millisecond), want)
	}
	return nil
}

// ledStatusSummary counts statuses as "401×5, 429×3", in status order.
func ledStatusSummary(statuses []int) string {
	n := map[int]int{}
	for _, s := range statuses {
		n[s]++
	}
	keys := make([]int, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%d×%d", k, n[k]))
	}
	return strings.Join(out, ", ")
}

func ledGuess(ctx context.Context, from string, n int, name string) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	var statuses []int
	retryAfter, codes := true, map[string]bool{}
	for i := range n {
		r, err := sim.PatchSignInFrom(ctx, st.lab.URL(), from, name, fmt.Sprintf("guess-%d", i))
		if err != nil {
			return err
		}
		statuses = append(statuses, r.Status)
		if r.Status == http.StatusTooManyRequests {
			retryAfter = retryAfter && r.RetryAfter != ""
			codes[r.Code] = true
		}
	}
	var cs []string
	for c := range codes {
		cs = append(cs, c)
	}
	sort.Strings(cs)
	hs := w.hardState()
	hs.guesses, hs.guessRA = statuses, retryAfter
	w.ledEmit("guesses", trace.A("from", from), trace.A("name", name), trace.A("statuses", ledStatusSummary(statuses)),
		trace.A("codes", strings.Join(cs, ",")), trace.A("retry_after", retryAfter))
	return nil
}

func ledGuessesLimited(ctx context.Context, free int) error {
	hs := worldOf(ctx).hardState()
	for i, st := range hs.guesses {
		want := http.StatusTooManyRequests
		if i < free {
			want = http.StatusUnauthorized
		}
		if st != want {
			return fmt.Errorf("guess %d was answered %d, want %d (statuses %v)", i+1, st, want, hs.guesses)
		}
	}
	if len(hs.guesses) <= free || !hs.guessRA {
		return fmt.Errorf("%d guesses, Retry-After on every 429 %v; want more than %d guesses and Retry-After", len(hs.guesses), hs.guessRA, free)
	}
	return nil
}

func ledSignInTimes(ctx context.Context, actor string, n int) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	tok, err := ledgerlab.Token(actor)
	if err != nil {
		return err
	}
	seen := map[int]bool{}
	for range n {
		r, err := sim.PatchSignInFrom(ctx, st.lab.URL(), "", "", tok)
		if err != nil {
			return err
		}
		seen[r.Status] = true
	}
	// which statuses, not how many of each: the name's bucket refills with
	// time, so the count depends on the machine's speed
	var sts []string
	for _, c := range []int{http.StatusSeeOther, http.StatusTooManyRequests} {
		if seen[c] {
			sts = append(sts, fmt.Sprint(c))
			delete(seen, c)
		}
	}
	for c := range seen {
		return fmt.Errorf("%s's sign-ins were answered %d, want 303 or 429", actor, c)
	}
	w.ledEmit("sign-ins", trace.A("actor", actor), trace.A("count", n), trace.A("statuses", strings.Join(sts, ",")))
	return nil
}

func ledSignInFrom(ctx context.Context, actor, from string) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	tok, err := ledgerlab.Token(actor)
	if err != nil {
		return err
	}
	r, err := sim.PatchSignInFrom(ctx, st.lab.URL(), from, "", tok)
	if err != nil {
		return err
	}
	w.ledEmit("sign-in", trace.A("actor", actor), trace.A("from", from), trace.A("status", r.Status))
	if r.Cookie == nil {
		return fmt.Errorf("%s signing in from %s got %d %s, no session", actor, from, r.Status, r.Code)
	}
	st.lab.SetSession(actor, r.Cookie)
	st.lastCookie = r.Cookie
	return nil
}

func ledStillSignedIn(ctx context.Context, actor string) error {
	w := worldOf(ctx)
	st := w.ledState()
	c := st.lab.SessionOf(actor)
	if c == nil {
		return fmt.Errorf("ledger steps: %s has not signed in", actor)
	}
	in, err := st.lab.SignsIn(ctx, actor, c)
	if err != nil {
		return err
	}
	w.ledEmit("session", trace.A("actor", actor), trace.A("signed_in", in))
	if !in {
		return fmt.Errorf("%s's session no longer signs %s in", actor, actor)
	}
	return nil
}

func ledSignOut(ctx context.Context, actor string) error {
	w := worldOf(ctx)
	st := w.ledState()
	c := st.lab.DropSession(actor)
	if c == nil {
		return fmt.Errorf("ledger steps: %s has not signed in", actor)
	}
	hs := w.hardState()
	if hs.oldCookies == nil {
		hs.oldCookies = map[string]*http.Cookie{}
	}
	hs.oldCookies[actor] = c
	status, err := sim.PatchSignOut(ctx, st.lab.URL(), c)
	if err != nil {
		return err
	}
	w.ledEmit("sign-out", trace.A("actor", actor), trace.A("status", status))
	return nil
}

func ledOldSession(ctx context.Context, actor string) error {
	w := worldOf(ctx)
	st := w.ledState()
	c := w.hardState().oldCookies[actor]
	if c == nil {
		return fmt.Errorf("ledger steps: %s has not signed out", actor)
	}
	in, err := st.lab.SignsIn(ctx, actor, c)
	if err != nil {
		return err
	}
	w.ledEmit("session", trace.A("actor", actor), trace.A("signed_in", in))
	if in {
		return fmt.Errorf("%s's ended session still signs %s in", actor, actor)
	}
	return nil
}

func ledRebind(ctx context.Context, host, path string) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	r, err := st.lab.Rebound(ctx, host, path)
	if err != nil {
		return err
	}
	st.last = r
	w.ledEmit("http", trace.A("op", "rebound page"), trace.A("host", host), trace.A("path", path), trace.A("status", r.Status), trace.A("code", string(r.Code)))
	return nil
}

func ledForbidsFraming(ctx context.Context, path string) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	res, err := http.Get(st.lab.URL() + path)
	if err != nil {
		return err
	}
	res.Body.Close()
	xfo, csp := res.Header.Get("X-Frame-Options"), res.Header.Get("Content-Security-Policy")
	ok := xfo == "DENY" && strings.Contains(csp, "frame-ancestors 'none'")
	w.ledEmit("framing", trace.A("path", path), trace.A("x_frame_options", xfo), trace.A("csp", csp))
	if !ok {
		return fmt.Errorf("%s: X-Frame-Options %q, Content-Security-Policy %q; want DENY and frame-ancestors 'none'", path, xfo, csp)
	}
	return nil
}
