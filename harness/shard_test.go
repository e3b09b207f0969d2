package harness

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestPartition(t *testing.T) {
	var sel []Scenario
	for i := 1; i <= 23; i++ {
		sel = append(sel, Scenario{URI: fmt.Sprintf("features/f%d.feature", i%3), Line: i, Slug: fmt.Sprint(i)})
	}
	durations := func(sc Scenario) time.Duration {
		if sc.Line%4 == 0 {
			return 0 // no recording
		}
		return time.Duration(sc.Line*37%11+1) * time.Second
	}
	for _, tc := range []struct {
		name   string
		n      int
		weight func(Scenario) time.Duration
	}{
		{"by duration, 4 shards", 4, durations},
		{"by count, 4 shards", 4, nil},
		{"more shards than scenarios", 30, nil},
		{"one shard", 1, durations},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := Partition(sel, tc.n, tc.weight)
			again := Partition(append([]Scenario(nil), sel...), tc.n, tc.weight)
			if fmt.Sprint(parts) != fmt.Sprint(again) {
				t.Fatal("the same selection gave other shards")
			}
			seen := map[string]int{}
			for k, p := range parts {
				for _, sc := range p {
					if prev, ok := seen[sc.ID()]; ok {
						t.Fatalf("%s in shards %d and %d", sc.ID(), prev, k)
					}
					seen[sc.ID()] = k
				}
			}
			if len(seen) != len(sel) {
				t.Fatalf("%d of %d scenarios in the shards", len(seen), len(sel))
			}
			if tc.weight == nil && tc.n <= len(sel) {
				min, max := len(sel), 0
				for _, p := range parts {
					min, max = minInt(min, len(p)), maxInt(max, len(p))
				}
				if max-min > 1 {
					t.Errorf("by count: shard sizes from %d to %d", min, max)
				}
			}
			if tc.weight != nil && tc.n > 1 {
				var loads []time.Duration
				var heaviest time.Duration
				for _, p := range parts {
					var l time.Duration
					for _, sc := range p {
						w := tc.weight(sc)
						if w == 0 {
							w = 6 * time.Second // about the median
						}
						l += w
						heaviest = max(heaviest, w)
					}
					loads = append(loads, l)
				}
				lo, hi := loads[0], loads[0]
				for _, l := range loads {
					lo, hi = min(lo, l), max(hi, l)
				}
				if hi-lo > heaviest {
					t.Errorf("by duration: loads %v differ by more than the heaviest scenario (%v)", loads, heaviest)
				}
			}
		})
	}
	// a scenario's shard depends only on the set, not on the order given
	rev := append([]Scenario(nil), sel...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	a, b := Partition(sel, 4, durations), Partition(rev, 4, durations)
	for k := range a {
		x, y := strings.Split(scenarioIDs(a[k]), ", "), strings.Split(scenarioIDs(b[k]), ", ")
		sort.Strings(x)
		sort.Strings(y)
		if strings.Join(x, " ") != strings.Join(y, " ") {
			t.Fatalf("shard %d depends on the order given: %v vs %v", k+1, x, y)
		}
	}
}

func minInt(a, b int) int { return min(a, b) }
func maxInt(a, b int) int { return max(a, b) }

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/4", "4/4", "0/4", "5/4", "1/0", "a/b", "", "/", "2/3/4", "-1/2", "99999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Index < 1 || sh.Index > sh.Count {
			t.Fatalf("%q parsed to %+v", s, sh)
		}
		if back, err := ParseShard(sh.String()); err != nil || back != sh {
			t.Fatalf("%q: %+v does not round trip: %v", s, sh, err)
		}
	})
}

func TestHeaviestFirst(t *testing.T) {
	sc := func(file string, line int) Scenario {
		return Scenario{URI: "features/" + file + ".feature", Line: line, Slug: fmt.Sprintf("%s/%d", file, line)}
	}
	// a: 1 s + 1 s; b: one 5 s scenario; c: unmeasured (the median, 1 s)
	sel := []Scenario{sc("a", 2), sc("b", 3), sc("a", 9), sc("c", 4), sc("b", 8)}
	cost := map[string]time.Duration{"a/2": time.Second, "a/9": time.Second, "b/3": 5 * time.Second, "b/8": time.Second}
	ids := func(list []Scenario) string {
		var out []string
		for _, s := range list {
			out = append(out, s.ID())
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name   string
		weight func(Scenario) time.Duration
		want   string
	}{
		{"heaviest file first, its scenarios in file order", func(s Scenario) time.Duration { return cost[s.Slug] },
			"features/b.feature:3 features/b.feature:8 features/a.feature:2 features/a.feature:9 features/c.feature:4"},
		{"nothing measured keeps the order", func(Scenario) time.Duration { return 0 },
			ids(sel)},
		{"no weight keeps the order", nil, ids(sel)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := ids(sel)
			if got := ids(HeaviestFirst(sel, tc.weight)); got != tc.want {
				t.Errorf("order %s, want %s", got, tc.want)
			}
			if ids(sel) != before {
				t.Error("HeaviestFirst changed the selection it was given")
			}
		})
	}
}
