package sim_test

// LED-14 end to end: a sim process (this test binary as a child) serving
// the job API under mixed load, its providers holding many answers, is
// killed with SIGKILL again and again on one database; then one last
// process recovers. Once recovery's deadline has passed no job may be
// accepted or running, no acknowledged job lost, no job with two winners.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replaylab/replaylab/internal/testskip"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/ledger/ledgertest"
	"github.com/replaylab/replaylab/sim"
	_ "modernc.org/sqlite"
)

const (
	crashChildEnv   = "REPLAYLAB_SIM_CRASH_CHILD"
	crashRoundEnv   = "REPLAYLAB_SIM_CRASH_ROUND"
	crashFinalEnv   = "REPLAYLAB_SIM_CRASH_FINAL"
	crashKillsEnv   = "REPLAYLAB_CRASH_KILLS" // the long run: REPLAYLAB_CRASH_KILLS=50
	crashChildApp   = "replaylab-sim-crash-child"
	crashDeadline   = 2 * time.Second // the children's AttemptDeadline
	crashSweepEvery = 300 * time.Millisecond
	// crashRecoveryGuard ends a recovery that hangs; it is no bound of
	// the recovery (that is its attempt deadline plus a few sweeps, far
	// less on a quiet machine)
	crashRecoveryGuard = 5 * time.Minute
)

// crashSweep is the children's sweeper.
var crashSweep = ledger.SweepOptions{Interval: crashSweepEvery,
	Recover: ledger.RecoverOptions{AttemptDeadline: crashDeadline, StatusTimeout: 300 * time.Millisecond}}

// TestSimCrashChild is the sim process TestCrashNothingStranded kills; it
// does nothing unless started by it.
func TestSimCrashChild(t *testing.T) {
	dsn := os.Getenv(crashChildEnv)
	if dsn == "" {
		return
	}
	round, _ := strconv.Atoi(os.Getenv(crashRoundEnv))
	faults := sim.Faults{Seed: uint64(round), HoldProb: 0.4, TimeoutProb: 0.1, FailProb: 0.1, DuplicateProb: 0.1, LatencyMax: 60 * time.Millisecond}
	if os.Getenv(crashFinalEnv) != "" {
		faults = sim.Faults{Seed: uint64(round), FailProb: 0.1, LatencyMax: 20 * time.Millisecond}
	}
	sw := crashSweep
	s, err := sim.NewServer(sim.Options{DB: dsn, Faults: faults, Sweep: &sw})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("url", s.URL)
	select {} // until killed
}

func crashStores(t *testing.T) []struct {
	name string
	dsn  func(t *testing.T) string
} {
	return []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "ledger.db") }},
		{"postgres", func(t *testing.T) string {
			base := os.Getenv("REPLAYLAB_PG_URL")
			if base == "" {
				if os.Getenv("CI") == "true" {
					t.Fatal("REPLAYLAB_PG_URL is not set; PostgreSQL is required in CI")
				}
				testskip.Skip(t, "SKIPPING PostgreSQL crash test: set REPLAYLAB_PG_URL to run it")
			}
			dsn, drop, err := ledger.FreshSchema(context.Background(), base, "simcrash_")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = drop(context.Background()) })
			u, _ := url.Parse(dsn)
			q := u.Query()
			q.Set("application_name", crashChildApp)
			u.RawQuery = q.Encode()
			return u.String()
		}},
	}
}

// TestCrashNothingStranded (LED-14): kills (8, or REPLAYLAB_CRASH_KILLS)
// SIGKILLs of a sim under mixed load per store.
func TestCrashNothingStranded(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		return
	}
	kills := 8
	if n, err := strconv.Atoi(os.Getenv(crashKillsEnv)); err == nil && n > 0 {
		kills = n
	}
	for _, st := range crashStores(t) {
		t.Run(st.name, func(t *testing.T) {
			dsn := st.dsn(t)
			s0, err := ledger.Open(context.Background(), dsn) // migrate once
			if err != nil {
				t.Fatal(err)
			}
			_ = s0.Close()
			acked := map[string]string{} // job id → key
			statuses := map[int]int{}
			strandedAtKill := 0
			for k := range kills {
				c := startCrashChild(t, dsn, k, false)
				time.Sleep(time.Duration(100+rand.IntN(400)) * time.Millisecond)
				crashLoad(t, c.url, k, time.Duration(200+rand.IntN(500))*time.Millisecond, acked, statuses)
				c.kill(t)
				ledgertest.WaitBackendsGone(t, dsn, crashChildApp)
				strandedAtKill = countStranded(t, dsn)
			}
			c := startCrashChild(t, dsn, kills, true)
			// the last process's sweeper recovers on its own: wait for
			// what it did (no job accepted or running), polling the
			// store; the guard only ends a hang, the verdict is the
			// store's state
			start := time.Now()
			var stranded int
			for stranded = countStranded(t, dsn); stranded != 0; stranded = countStranded(t, dsn) {
				if time.Since(start) > crashRecoveryGuard {
					t.Fatalf("%d jobs still accepted or running %v after the last process started (a hang guard; its sweeper runs every %v, attempt deadline %v)", stranded, crashRecoveryGuard, crashSweepEvery, crashDeadline)
				}
				time.Sleep(200 * time.Millisecond) // the child's sweeper works meanwhile
			}
			took := time.Since(start)
			lost, doubles, byState := crashCheck(t, dsn, acked)
			retried, reviewRequired := ownersRetry(t, c.url, dsn)
			c.kill(t)
			ledgertest.WaitBackendsGone(t, dsn, crashChildApp)
			t.Logf("summary: crash %s: %d SIGKILLs under mixed load (held answers), %d jobs acknowledged, statuses %v; stranded (accepted/running) after the last kill %d, after recovery %d (%s after the restart, deadline %s); jobs by state %v; lost %d; double winners %d; owner's retry of needs_review jobs: %d answered 201, %d REVIEW_REQUIRED (attempt unknown)",
				st.name, kills, len(acked), statuses, strandedAtKill, stranded, took.Round(100*time.Millisecond), crashDeadline, byState, lost, doubles, retried, reviewRequired)
			if stranded != 0 || lost != 0 || doubles != 0 {
				t.Errorf("stranded %d, lost %d, double winners %d; want 0, 0, 0", stranded, lost, doubles)
			}
			if statuses[500] > 0 {
				t.Errorf("%d × 500 under load", statuses[500])
			}
		})
	}
}

type crashChild struct {
	cmd *exec.Cmd
	url string
}

func startCrashChild(t *testing.T, dsn string, round int, final bool) *crashChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSimCrashChild$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dsn, fmt.Sprintf("%s=%d", crashRoundEnv, round))
	if final {
		cmd.Env = append(cmd.Env, crashFinalEnv+"=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "url "); ok {
				got <- u
			}
		}
		close(got)
	}()
	select {
	case u, ok := <-got:
		if !ok {
			_ = cmd.Wait()
			t.Fatal("crash child ended before serving")
		}
		return &crashChild{cmd: cmd, url: u}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("crash child did not serve in 60 s")
	}
	return nil
}

func (c *crashChild) kill(t *testing.T) {
	t.Helper()
	_ = c.cmd.Process.Kill() // SIGKILL
	_ = c.cmd.Wait()
}

func countStranded(t *testing.T, dsn string) int {
	return ledgertest.Count(t, dsn, `SELECT count(*) FROM jobs WHERE state IN ('accepted', 'running')`)
}

// crashLoad runs mixed load on the child for d: creates (new keys and
// repeats), owners' retries, reviewers' supersessions, cancels, reads.
func crashLoad(t *testing.T, base string, round int, d time.Duration, acked map[string]string, statuses map[int]int) {
	t.Helper()
	var mu sync.Mutex
	var ids []string
	deadline := time.Now().Add(d)
	client := &http.Client{Timeout: 5 * time.Second}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(round), uint64(w)))
			for i := 0; time.Now().Before(deadline); i++ {
				var method, path, key, body, tok = "POST", "/api/jobs", "", "{}", "alice-token"
				mu.Lock()
				var pick string
				if len(ids) > 0 {
					pick = ids[r.IntN(len(ids))]
				}
				mu.Unlock()
				switch u := r.IntN(10); {
				case u < 5 || pick == "":
					key = fmt.Sprintf("r%d-w%d-%d", round, w, i)
					body = fmt.Sprintf(`{"task":"patch","n":%d}`, i)
				case u < 7:
					path = "/api/jobs/" + pick + "/attempts"
				case u < 8:
					path, tok, body = "/api/jobs/"+pick+"/attempts", "rita-token", `{"provider":"fallback","supersedeReason":"load"}`
				case u < 9:
					method, path, body = "GET", "/api/jobs/"+pick, ""
				default:
					path = "/api/jobs/" + pick + "/cancel"
				}
				req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+tok)
				if key != "" {
					req.Header.Set("Idempotency-Key", key)
				}
				res, err := client.Do(req)
				if err != nil {
					continue
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				mu.Lock()
				statuses[res.StatusCode]++
				if key != "" && (res.StatusCode == 201 || res.StatusCode == 200) {
					var v ledger.JobView
					if json.Unmarshal(b, &v) == nil && v.ID != "" {
						acked[v.ID] = key
						ids = append(ids, v.ID)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// ownersRetry asks for a retry, as the owner, of every job left
// needs_review, through the live child: 201, or REVIEW_REQUIRED where an
// attempt is unknown (sent, the provider still working past the deadline).
func ownersRetry(t *testing.T, base, dsn string) (retried, reviewRequired int) {
	t.Helper()
	var ids []string
	rows := ledgertest.Query(t, dsn, `SELECT id FROM jobs WHERE state = 'needs_review' AND owner = 'alice' ORDER BY id`)
	ids = append(ids, rows...)
	client := &http.Client{Timeout: 10 * time.Second}
	for _, id := range ids[:min(len(ids), 40)] {
		req, _ := http.NewRequest("POST", base+"/api/jobs/"+id+"/attempts", strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer alice-token")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var p ledger.Problem
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		switch {
		case res.StatusCode == 201:
			retried++
		case res.StatusCode == 409 && json.Unmarshal(b, &p) == nil && p.Code == ledger.CodeReviewRequired:
			reviewRequired++
		default:
			t.Errorf("owner's retry of %s: %d %s", id, res.StatusCode, b)
		}
	}
	return retried, reviewRequired
}

// crashCheck reads the database after the last process: acknowledged jobs
// lost, jobs with more than one applied attempt or a winner that is not
// applied, and the count of jobs per state.
func crashCheck(t *testing.T, dsn string, acked map[string]string) (lost, doubles int, byState map[string]int) {
	t.Helper()
	have := map[string]bool{}
	for _, id := range ledgertest.Query(t, dsn, `SELECT id FROM jobs`) {
		have[id] = true
	}
	for id := range acked {
		if !have[id] {
			lost++
			t.Errorf("acknowledged job %s lost", id)
		}
	}
	doubles = ledgertest.Count(t, dsn, `SELECT count(*) FROM (SELECT job_id FROM attempts WHERE applied GROUP BY job_id HAVING count(*) > 1) d`)
	doubles += ledgertest.Count(t, dsn, `SELECT count(*) FROM jobs j WHERE j.state = 'completed' AND NOT EXISTS
		(SELECT 1 FROM attempts a WHERE a.id = j.winning_attempt_id AND a.applied)`)
	byState = map[string]int{}
	for _, s := range ledgertest.Query(t, dsn, `SELECT state FROM jobs`) {
		byState[s]++
	}
	return lost, doubles, byState
}
