package golden

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name     string
		golden   string // "" : no file
		got      string
		opt      Options
		wantErr  error
		wantDiff bool
		wantFile string
	}{
		{name: "equal", golden: "a\nb\n", got: "a\nb\n", wantFile: "a\nb\n"},
		{name: "equal after normalising line endings", golden: "a\r\nb\r\n", got: "a\nb", wantFile: "a\r\nb\r\n"},
		{name: "drift", golden: "a\nb\n", got: "a\nc\n", wantDiff: true, wantFile: "a\nb\n"},
		{name: "missing", got: "a\n", wantErr: os.ErrNotExist},
		{name: "missing, created", got: "a\n", opt: Options{CreateMissing: true}, wantFile: "a\n"},
		{name: "present, not created over", golden: "a\n", got: "b\n", opt: Options{CreateMissing: true}, wantDiff: true, wantFile: "a\n"},
		{name: "update", golden: "a\n", got: "b\n", opt: Options{Update: true}, wantFile: "b\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x", "y.golden")
			if tc.golden != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.golden), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Compare(path, []byte(tc.got), tc.opt)
			if !errors.Is(err, tc.wantErr) || (err != nil && tc.wantErr == nil) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if (res.Diff != "") != tc.wantDiff {
				t.Fatalf("diff %q, want one: %v", res.Diff, tc.wantDiff)
			}
			if tc.wantDiff && !strings.Contains(res.Diff, "\n+"+lastLine(tc.got)+"\n") {
				t.Fatalf("the diff does not show the new line:\n%s", res.Diff)
			}
			data, _ := os.ReadFile(path)
			if string(data) != tc.wantFile {
				t.Fatalf("golden holds %q, want %q", data, tc.wantFile)
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
