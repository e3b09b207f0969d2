package ledgersteps

// Steps of the ledger's trust boundary (SPEC §13: LED-11 signed callbacks,
// LED-12 no credentials in pages, LED-13 recovery after a crash). Like the
// other ledger steps they talk HTTP to the scenario's sim, so their trace
// is the same under both drivers and on both stores.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/ledger/ledgerlab"
	"github.com/replaylab/replaylab/sim"
)

func ledgerTrustSteps(r *table) {
	const g = "Ledger and job API (sim)"
	r.step(g, `^([a-z]+) posts a callback for attempt (\d+) with (?:his|her|their) bearer token$`,
		`POST /api/providers/callback for the job's attempt N with status "succeeded", output "from ACTOR" and the actor's bearer token, no signature (LED-11: refused)`,
		"When bob posts a callback for attempt 1 with his bearer token", ledBearerCallback)
	r.step(g, `^a callback for attempt (\d+) arrives (unsigned|signed with a wrong secret|signed (\d+) minutes ago)$`,
		`POST /api/providers/callback for the job's attempt N (status "succeeded", output "forged") with no signature, one made with another secret, or one made with the attempt's secret N minutes ago (beyond the tolerance)`,
		"When a callback for attempt 1 arrives signed with a wrong secret", ledBadCallback)
	r.step(g, `^a callback for an attempt that does not exist arrives signed with attempt (\d+)'s secret$`,
		"POST /api/providers/callback for the id att_9999, signed with the secret of the job's attempt N",
		"When a callback for an attempt that does not exist arrives signed with attempt 1's secret", ledMissingAttemptCallback)
	r.step(g, `^the last two refusals are the same answer$`,
		"the bodies of the last two refused requests are byte for byte the same (nothing says whether the attempt exists)",
		"Then the last two refusals are the same answer", ledSameRefusals)

	r.step(g, `^a visitor opens the patch page(?: with "([^"]*)" in the address)?$`,
		"GET /patch (or /patch?QUERY) with no session cookie",
		`When a visitor opens the patch page with "token=alice-token" in the address`, ledVisitorPage)
	r.step(g, `^the page shows no token and offers a sign-in form$`,
		"the last page names none of the sim's tokens, signs nobody in, and has the token field and the Sign in button",
		"Then the page shows no token and offers a sign-in form", ledPageShowsNoToken)
	r.step(g, `^([a-z]+) signs in to the patch page$`,
		"types the user's token into the sign-in form (POST /patch/session, same-origin) and keeps the session cookie",
		"When alice signs in to the patch page", ledSignIn)
	r.step(g, `^the session cookie is HttpOnly and SameSite=Strict and holds no token$`,
		"the cookie the last sign-in set",
		"Then the session cookie is HttpOnly and SameSite=Strict and holds no token", ledSessionCookie)
	r.step(g, `^a cross-site page makes ([a-z]+)'s browser post Generate patch$`,
		"POST /patch/api/jobs with the user's session cookie, as a form on another site would send it: Origin http://evil.example, Sec-Fetch-Site cross-site, no CSRF token",
		"When a cross-site page makes alice's browser post Generate patch", ledCrossSitePost)
	r.step(g, `^no job was created$`,
		"the ledger holds no job (its sequential ids never got to job_0001)",
		"Then no job was created", ledNoJob)

	r.step(g, `^provider "([^"]*)" will lose its work in a crash$`,
		"scripts that provider's next attempt as lost: committed, never sent, as when the process dies between the create and the send",
		`Given provider "primary" will lose its work in a crash`, ledGivenLost)
	r.step(g, `^the sim restarts(?: and provider "([^"]*)" loses its work again)?$`,
		"closes the sim and starts a new one on the same database (fresh providers, optionally with that provider's next attempt lost again); the ledger's start-up recovery runs (LED-13) and its recoveries go into the trace",
		"When the sim restarts", ledRestart)
	r.step(g, `^attempt (\d+) was recovered as "(resent|unknown|reconciled|sent|no_record)"$`,
		"the last restart's recovery, or the last sweep, resolved the job's attempt N so (LED-13, LED-14)",
		`Then attempt 1 was recovered as "resent"`, ledRecoveredAs)
	r.step(g, `^the job's events explain the recovery$`,
		"every attempt_recovered event of the scenario's job names its action and reason, and no attempt was recovered twice with the same action",
		"Then the job's events explain the recovery", ledRecoveryEvents)
}

func ledBearerCallback(ctx context.Context, actor string, n int) error {
	w := worldOf(ctx)
	id, err := w.ledAttemptID(ctx, n)
	if err != nil {
		return err
	}
	body, _ := json.Marshal(ledger.CallbackBody{AttemptID: id, Status: ledger.StatusSucceeded, Output: "from " + actor})
	_, err = w.ledCallback(ctx, actor, body, "", trace.A("attempt", id), trace.A("signature", "none"))
	return err
}

func ledBadCallback(ctx context.Context, n int, how, minutes string) error {
	w := worldOf(ctx)
	id, err := w.ledAttemptID(ctx, n)
	if err != nil {
		return err
	}
	st := w.ledState()
	body, _ := json.Marshal(ledger.CallbackBody{AttemptID: id, Status: ledger.StatusSucceeded, Output: "forged"})
	now := st.lab.Server().Ledger().Now()
	var sig string
	switch how {
	case "unsigned":
	case "signed with a wrong secret":
		sig = ledger.SignCallback("whsec_not-the-attempts-secret", now, body)
	default:
		var m int
		if _, err := fmt.Sscan(minutes, &m); err != nil {
			return err
		}
		// the attempt's real secret, m minutes ago
		secret, err := ledSecretOf(ctx, st, id)
		if err != nil {
			return err
		}
		sig = ledger.SignCallback(secret, now.Add(-time.Duration(m)*time.Minute), body)
	}
	_, err = w.ledCallback(ctx, ledProvider, body, sig, trace.A("attempt", id), trace.A("signature", how))
	return err
}

// ledSecretOf reads an attempt's callback secret from the store, as only
// the attempt's provider holds it.
func ledSecretOf(ctx context.Context, st *ledgerState, attemptID string) (string, error) {
	var secret string
	err := st.lab.Server().Ledger().Store().Tx(ctx, func(tx ledger.Tx) error {
		a, err := tx.Attempt(ctx, attemptID)
		secret = a.CallbackSecret
		return err
	})
	return secret, err
}

func ledMissingAttemptCallback(ctx context.Context, n int) error {
	w := worldOf(ctx)
	id, err := w.ledAttemptID(ctx, n)
	if err != nil {
		return err
	}
	st := w.ledState()
	secret, err := ledSecretOf(ctx, st, id)
	if err != nil {
		return err
	}
	body, sig := ledger.NewSignedCallback("att_9999", secret, ledger.StatusSucceeded, "forged", st.lab.Server().Ledger().Now())
	_, err = w.ledCallback(ctx, ledProvider, body, sig, trace.A("attempt", "att_9999"), trace.A("signature", "another attempt's secret"))
	return err
}

func ledSameRefusals(ctx context.Context) error {
	rs := worldOf(ctx).ledState().refusals
	if len(rs) < 2 {
		return fmt.Errorf("ledger steps: %d refused requests so far, want at least 2", len(rs))
	}
	a, b := rs[len(rs)-2], rs[len(rs)-1]
	if a.Status != b.Status || !bytes.Equal(a.Body, b.Body) {
		return fmt.Errorf("the last two refusals differ: %d %s and %d %s", a.Status, bytes.TrimSpace(a.Body), b.Status, bytes.TrimSpace(b.Body))
	}
	return nil
}

func ledVisitorPage(ctx context.Context, query string) error {
	path := "/patch"
	if query != "" {
		path += "?" + query
	}
	_, err := worldOf(ctx).ledAct(ctx, "patch page", ledVisitor, http.MethodGet, path, nil, "", trace.A("query", query))
	return err
}

func ledPageShowsNoToken(ctx context.Context) error {
	w := worldOf(ctx)
	st := w.ledState()
	body := string(st.last.Body)
	var shown []string
	for tok := range ledger.DefaultTokens() {
		if strings.Contains(body, tok) {
			shown = append(shown, tok)
		}
	}
	signedIn := strings.Contains(body, "Signed in as")
	form := strings.Contains(body, `action="/patch/session"`) && strings.Contains(body, `name="token"`) && strings.Contains(body, ">Sign in</button>")
	w.ledEmit("page-check", trace.A("tokens_shown", len(shown)), trace.A("signed_in", signedIn), trace.A("sign_in_form", form))
	if len(shown) > 0 || signedIn || !form {
		return fmt.Errorf("the page shows tokens %v, signed in %v, sign-in form %v; want none, false, true", shown, signedIn, form)
	}
	return nil
}

func ledSignIn(ctx context.Context, actor string) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	tok, err := ledgerlab.Token(actor)
	if err != nil {
		return err
	}
	c, err := sim.PatchSignIn(ctx, st.lab.URL(), tok)
	if err != nil {
		return err
	}
	st.lab.SetSession(actor, c)
	st.lastCookie = c
	w.ledEmit("sign-in", trace.A("actor", actor), trace.A("cookie", c.Name), trace.A("path", c.Path))
	return nil
}

func ledSessionCookie(ctx context.Context) error {
	w := worldOf(ctx)
	c := w.ledState().lastCookie
	if c == nil {
		return errors.New("ledger steps: nobody signed in yet")
	}
	holdsToken := false
	for tok := range ledger.DefaultTokens() {
		holdsToken = holdsToken || strings.Contains(c.Value, tok)
	}
	w.ledEmit("cookie", trace.A("http_only", c.HttpOnly), trace.A("same_site_strict", c.SameSite == http.SameSiteStrictMode), trace.A("holds_token", holdsToken))
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || holdsToken {
		return fmt.Errorf("session cookie HttpOnly %v, SameSite %v, holds a token %v", c.HttpOnly, c.SameSite, holdsToken)
	}
	return nil
}

func ledCrossSitePost(ctx context.Context, actor string) error {
	w := worldOf(ctx)
	hdr := map[string]string{"Idempotency-Key": "patch-evil", "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
	_, err := w.ledAct(ctx, "cross-site Generate patch", actor, http.MethodPost, "/patch/api/jobs", hdr, `{"task":"patch"}`)
	return err
}

func ledNoJob(ctx context.Context) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	_, err = st.lab.Server().Ledger().Get(ctx, ledHarness, "job_0001")
	if errcode.Of(err) != ledger.CodeNotFound {
		return fmt.Errorf("a job exists (%v)", err)
	}
	w.ledEmit("jobs", trace.A("count", 0))
	return nil
}

func ledGivenLost(ctx context.Context, provider string) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	return st.lab.Server().Providers().Script(provider, sim.Script{Behaviour: sim.Lost})
}

func ledRestart(ctx context.Context, lose string) error {
	w := worldOf(ctx)
	st, err := w.ledSettled(ctx)
	if err != nil {
		return err
	}
	var scripts map[string][]sim.Script
	if lose != "" {
		scripts = map[string][]sim.Script{lose: {{Behaviour: sim.Lost}}}
	}
	if err := st.lab.Restart(scripts); err != nil {
		return fmt.Errorf("ledger steps: %w", err)
	}
	srv := st.lab.Server()
	st.recoveries = srv.Recoveries()
	w.ledEmit("restart", trace.A("recoveries", len(st.recoveries)))
	for _, r := range st.recoveries {
		w.ledEmit("recovery", trace.A("job", r.JobID), trace.A("attempt", r.AttemptID), trace.A("action", r.Action), trace.A("reason", r.Reason))
	}
	return st.settle(ctx)
}

func ledRecoveredAs(ctx context.Context, n int, action string) error {
	w := worldOf(ctx)
	id, err := w.ledAttemptID(ctx, n)
	if err != nil {
		return err
	}
	for _, r := range w.ledState().recoveries {
		if r.AttemptID == id {
			if r.Action != action {
				return fmt.Errorf("attempt %s was recovered as %s (%s), want %s", id, r.Action, r.Reason, action)
			}
			return nil
		}
	}
	return fmt.Errorf("the last restart recovered no attempt %s (recoveries %+v)", id, w.ledState().recoveries)
}

func ledRecoveryEvents(ctx context.Context) error {
	w := worldOf(ctx)
	st := w.ledState()
	if st.job == "" {
		return errors.New("ledger steps: no job yet")
	}
	evs, err := st.lab.Server().Ledger().Events(ctx, st.job)
	if err != nil {
		return err
	}
	var seen []string
	for _, e := range evs {
		if e.Kind != ledger.EventAttemptRecovered {
			continue
		}
		key := e.AttemptID + ":" + e.To
		if slices.Contains(seen, key) {
			return fmt.Errorf("attempt %s was recovered as %s twice", e.AttemptID, e.To)
		}
		if e.To == "" || e.Detail == "" {
			return fmt.Errorf("recovery event %d of attempt %s does not explain itself: %+v", e.Seq, e.AttemptID, e)
		}
		seen = append(seen, key)
		w.ledEmit("event", trace.A("kind", e.Kind), trace.A("attempt", e.AttemptID), trace.A("from", e.From), trace.A("to", e.To), trace.A("detail", e.Detail))
	}
	if len(seen) == 0 {
		return fmt.Errorf("job %s has no recovery event", st.job)
	}
	return nil
}
