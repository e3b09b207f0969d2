package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/ledger"
)

func TestTokenFlag(t *testing.T) {
	for _, tc := range []struct {
		name    string
		values  []string
		want    string // String() after the values, "" when an error is expected
		wantErr string
	}{
		{name: "owner and reviewer", values: []string{"c-tok=carol:owner", "r-tok=rob:reviewer"}, want: "c-tok=carol:owner,r-tok=rob:reviewer"},
		{name: "no equals", values: []string{"carol"}, wantErr: "want TOKEN=NAME:ROLE"},
		{name: "no role", values: []string{"t=carol"}, wantErr: "want TOKEN=NAME:ROLE"},
		{name: "bad role", values: []string{"t=carol:admin"}, wantErr: `role "admin"`},
		{name: "empty name", values: []string{"t=:owner"}, wantErr: "must not be empty"},
		{name: "twice", values: []string{"t=a:owner", "t=b:owner"}, wantErr: "given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tokenFlags{}
			var err error
			for _, v := range tc.values {
				if err = f.Set(v); err != nil {
					break
				}
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || f.String() != tc.want {
				t.Fatalf("got %q, %v; want %q", f.String(), err, tc.want)
			}
			if f["c-tok"].Role != ledger.RoleOwner {
				t.Fatalf("carol: %+v", f["c-tok"])
			}
		})
	}
}

func TestSimBadInputExits2(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{name: "malformed token", args: []string{"sim", "--token", "nope"}},
		{name: "unknown role", args: []string{"sim", "--token", "t=carol:king"}},
		{name: "unopenable db", args: []string{"sim", "--addr", "127.0.0.1:0", "--db", "/nonexistent-dir/ledger.db"}},
		{name: "not loopback", args: []string{"sim", "--addr", "0.0.0.0:0"}},
		{name: "probability above 1", args: []string{"sim", "--fault-timeout", "1.5"}},
		{name: "negative probability", args: []string{"sim", "--fault-late", "-0.1"}},
		{name: "behaviours above 1", args: []string{"sim", "--fault-timeout", "0.6", "--fault-fail", "0.6"}},
		{name: "negative latency", args: []string{"sim", "--fault-latency", "-1s"}},
		{name: "zero body timeout", args: []string{"sim", "--read-body-timeout", "0s"}},
		{name: "negative idle timeout", args: []string{"sim", "--idle-timeout", "-1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), tc.args, &out, &errb); code != exitBadInput {
				t.Fatalf("exit %d (stderr %q), want %d", code, errb.String(), exitBadInput)
			}
			if !strings.Contains(errb.String(), "replaylab sim:") {
				t.Fatalf("stderr %q does not say which command failed", errb.String())
			}
		})
	}
}
