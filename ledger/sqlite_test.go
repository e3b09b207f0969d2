package ledger_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/ledger"

	"github.com/replaylab/replaylab/ledger/ledgertest"
)

func TestSQLiteStore(t *testing.T) {
	ledgertest.Run(t, func(t testing.TB) string {
		return filepath.Join(t.TempDir(), "ledger.db")
	})
}

// TestSQLiteCrashKeepsCommittedRows kills a process that is writing to the
// ledger (SIGKILL, no Close) and checks that every operation it reported as
// committed is there after reopening, and every job is explainable (LED-10).
func TestSQLiteCrashKeepsCommittedRows(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		return
	}
	path := filepath.Join(t.TempDir(), "ledger.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLiteCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	committed := map[string]string{} // job id → last state reported
	last := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(committed) < 30 {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "committed" {
			committed[f[1]], last = f[2], f[1]
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if len(committed) < 30 {
		t.Fatalf("child reported only %d jobs", len(committed))
	}
	store, err := ledger.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc := ledger.New(store)
	for id, state := range committed {
		j, err := svc.Get(context.Background(), ledgertest.Rita, id)
		if err != nil {
			t.Fatalf("committed job %s lost: %v", id, err)
		}
		// Jobs are worked one after the other: only the last one reported
		// may have gone a step further before the kill.
		if string(j.State) != state && id != last {
			t.Errorf("job %s is %s, reported %s", id, j.State, state)
		}
		ledgertest.CheckInvariants(t, svc, id)
	}
}

const crashEnv = "REPLAYLAB_LEDGER_CRASH_CHILD"

// TestSQLiteCrashChild is the process TestSQLiteCrashKeepsCommittedRows
// kills; it does nothing unless started by it.
func TestSQLiteCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		return
	}
	ctx := context.Background()
	store, err := ledger.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	svc := ledger.New(store)
	for i := range 100000 {
		j, _, err := svc.Create(ctx, ledgertest.Alice, fmt.Sprint("k", i), json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)), "")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("committed", j.ID, j.State)
		a := j.Attempts[0].ID
		switch i % 3 {
		case 1:
			if _, err := svc.Timeout(ctx, a); err != nil {
				t.Fatal(err)
			}
			fmt.Println("committed", j.ID, ledger.JobNeedsReview)
		case 2:
			if _, err := svc.Callback(ctx, a, "succeeded", "out"); err != nil {
				t.Fatal(err)
			}
			fmt.Println("committed", j.ID, ledger.JobCompleted)
		}
	}
}
