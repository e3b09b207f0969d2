package report

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckShards(t *testing.T) {
	shard := func(s string) *Run { return &Run{Shard: s} }
	tests := []struct {
		name    string
		runs    []*Run
		wantErr string // "" : ok
	}{
		{"whole set", []*Run{shard("1/3"), shard("2/3"), shard("3/3")}, ""},
		{"whole set, any order", []*Run{shard("3/3"), shard("1/3"), shard("2/3")}, ""},
		{"separate runs, no shard", []*Run{{}, {}}, ""},
		{"a merged run and the rest", []*Run{{Shards: []string{"input 1", "1/3", "input 2", "2/3"}}, shard("3/3")}, ""},
		{"one missing", []*Run{shard("1/3"), shard("3/3")}, "shard 2/3 is missing"},
		{"two missing", []*Run{shard("2/4"), shard("4/4")}, "shards 1/4, 3/4 are missing"},
		{"given twice", []*Run{shard("1/2"), shard("1/2"), shard("2/2")}, "shard 1/2 is given twice"},
		{"mixed splits", []*Run{shard("1/2"), shard("2/3")}, "mixed splits"},
		{"an unsharded run beside shards", []*Run{shard("1/1"), {}}, "is not a shard"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			names := make([]string, len(tc.runs))
			for i := range names {
				names[i] = "dir" + string(rune('a'+i))
			}
			err := CheckShards(names, tc.runs)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrShards) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want ErrShards with %q", err, tc.wantErr)
			}
		})
	}
}
