package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/sim"
)

// tokenFlags is the repeatable --token TOKEN=NAME:ROLE flag. Given at least
// once, it replaces the demo tokens.
type tokenFlags map[string]ledger.Principal

func (t tokenFlags) String() string {
	var out []string
	for tok, p := range t {
		out = append(out, fmt.Sprintf("%s=%s:%s", tok, p.Name, p.Role))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// Set parses one TOKEN=NAME:ROLE; ROLE is owner or reviewer.
func (t tokenFlags) Set(v string) error {
	tok, rest, ok := strings.Cut(v, "=")
	name, role, ok2 := strings.Cut(rest, ":")
	tok, name, role = strings.TrimSpace(tok), strings.TrimSpace(name), strings.TrimSpace(role)
	switch {
	case !ok || !ok2:
		return fmt.Errorf("%q: want TOKEN=NAME:ROLE, e.g. carol-token=carol:owner", v)
	case tok == "" || name == "":
		return fmt.Errorf("%q: token and name must not be empty", v)
	case strings.ContainsAny(tok, " \t") || strings.ContainsAny(name, " \t"):
		return fmt.Errorf("%q: token and name must not contain spaces", v)
	case ledger.Role(role) != ledger.RoleOwner && ledger.Role(role) != ledger.RoleReviewer:
		return fmt.Errorf("%q: role %q: want %s or %s", v, role, ledger.RoleOwner, ledger.RoleReviewer)
	}
	if _, dup := t[tok]; dup {
		return fmt.Errorf("%q: token %q given twice", v, tok)
	}
	t[tok] = ledger.Principal{Name: name, Role: ledger.Role(role)}
	return nil
}

func cmdSim(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("sim", stderr)
	addr := fs.String("addr", "127.0.0.1:8088", "listen address (loopback only; port 0 picks a free one)")
	seed := fs.Int64("seed", 0, "seed of every generated text and of the providers' fault schedule")
	style := fs.String("style", sim.StyleMarker, "markup of the chat page /chat: marker (data attributes), heading (speaker headings) or list (list items; read by docs/examples/listchat.json)")
	db := fs.String("db", "", "ledger database: a SQLite file path or a postgres:// URL (default: a temp SQLite file removed on exit)")
	tokens := tokenFlags{}
	fs.Var(tokens, "token", "bearer token TOKEN=NAME:ROLE (ROLE owner or reviewer); repeatable; replaces the demo tokens alice-token, bob-token, rita-token")
	faults := sim.Faults{}
	fs.Float64Var(&faults.TimeoutProb, "fault-timeout", 0, "probability that a provider call times out after it was sent (attempt unknown)")
	fs.Float64Var(&faults.FailProb, "fault-fail", 0, "probability that a provider fails definitely")
	fs.Float64Var(&faults.HoldProb, "fault-hold", 0, "probability that a provider holds its result until released")
	fs.Float64Var(&faults.DuplicateProb, "fault-duplicate", 0, "probability that a success callback is delivered twice")
	fs.Float64Var(&faults.LateProb, "fault-late", 0, "probability that a timed-out provider delivers its result late")
	fs.DurationVar(&faults.LatencyMax, "fault-latency", 0, "upper bound of every drawn provider latency")
	to := sim.DefaultTimeouts
	fs.DurationVar(&to.ReadHeader, "read-header-timeout", to.ReadHeader, "bound on reading a request line and headers")
	fs.DurationVar(&to.ReadBody, "read-body-timeout", to.ReadBody, "bound on reading a job API or patch page request body (408 BODY_TIMEOUT)")
	fs.DurationVar(&to.Write, "write-timeout", to.Write, "bound on writing a job API or patch page response")
	fs.DurationVar(&to.Idle, "idle-timeout", to.Idle, "bound on a keep-alive connection waiting for its next request")
	sweep := ledger.SweepOptions{}
	fs.DurationVar(&sweep.Interval, "sweep-interval", ledger.DefaultSweepInterval, "how often the ledger's sweeper resolves attempts nobody waits on any more (LED-14)")
	fs.DurationVar(&sweep.Recover.AttemptDeadline, "attempt-deadline", ledger.DefaultAttemptDeadline, "how long a sent attempt may go unanswered before recovery makes it unknown")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if len(pos) > 0 {
		return exitBadInput, badInput("unexpected arguments %v", pos)
	}
	for name, p := range map[string]float64{"fault-timeout": faults.TimeoutProb, "fault-fail": faults.FailProb, "fault-hold": faults.HoldProb,
		"fault-duplicate": faults.DuplicateProb, "fault-late": faults.LateProb} {
		if p < 0 || p > 1 {
			return exitBadInput, badInput("--%s must be a probability in [0, 1], got %v", name, p)
		}
	}
	if faults.TimeoutProb+faults.FailProb+faults.HoldProb > 1 {
		return exitBadInput, badInput("--fault-timeout + --fault-fail + --fault-hold must not exceed 1")
	}
	if faults.LatencyMax < 0 {
		return exitBadInput, badInput("--fault-latency must not be negative")
	}
	for name, d := range map[string]time.Duration{"read-header-timeout": to.ReadHeader, "read-body-timeout": to.ReadBody,
		"write-timeout": to.Write, "idle-timeout": to.Idle, "sweep-interval": sweep.Interval, "attempt-deadline": sweep.Recover.AttemptDeadline} {
		if d <= 0 {
			return exitBadInput, badInput("--%s must be positive, got %v", name, d)
		}
	}
	faults.Seed = uint64(*seed) // one seed drives every fault: a run is reproduced by its seed
	opts := sim.Options{Addr: *addr, Seed: *seed, DB: *db, Faults: faults, Timeouts: to, Sweep: &sweep}
	if len(tokens) > 0 {
		opts.Tokens = tokens
	}
	if !slices.Contains(sim.Styles, *style) {
		return exitBadInput, badInput("--style must be one of %s, got %q", strings.Join(sim.Styles, ", "), *style)
	}
	srv, err := sim.NewServer(opts)
	if err != nil {
		return exitBadInput, badInput("%v", err)
	}
	chat := sim.DefaultChat()
	chat.Style, chat.Seed = *style, *seed
	srv.SetChat(chat)
	where := "a temp SQLite file"
	if *db != "" {
		where = *db
		if u, err := url.Parse(*db); err == nil && u.User != nil {
			where = u.Redacted()
		}
	}
	fmt.Fprintf(stdout, "replaylab sim: serving %s (seed %d); index at %s/, job API at %s/api/, patch page at %s/patch; ledger in %s — Ctrl-C stops\n",
		srv.URL, *seed, srv.URL, srv.URL, srv.URL, where)
	if recs := srv.Recoveries(); len(recs) > 0 {
		resent := 0
		for _, r := range recs {
			if r.Action == ledger.RecoveryResent {
				resent++
			}
		}
		fmt.Fprintf(stdout, "replaylab sim: recovered %d attempts in flight after a crash: %d re-sent, %d resolved otherwise (each recorded as an attempt_recovered event)\n",
			len(recs), resent, len(recs)-resent)
	}
	if faults.Enabled() {
		fmt.Fprintf(stdout, "replaylab sim: provider faults %+v (replay this schedule with --seed %d and the same flags)\n", faults, *seed)
	}
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return exitFailed, err
	}
	fmt.Fprintln(stdout, "replaylab sim: stopped")
	return exitOK, nil
}
