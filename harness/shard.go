package harness

import (
	"sort"
	"time"
)

// Shards: the selection sorted by id (file:line), each scenario weighed by
// its replay cost (what it took in the project's last replayed runs,
// CostFile, else the size of its recorded sessions), scenarios with no
// measure by the median of those with one (so with none at all, by
// count); then the
// heaviest first, each to the lightest shard so far (ties: the lowest
// shard). The same selection always gives the same shards, and every
// scenario lands in exactly one.

// ShardOf returns shard sh's scenarios of sel, in sel's order.
func ShardOf(sel []Scenario, sh Shard, weight func(Scenario) time.Duration) []Scenario {
	if sh.Count <= 1 {
		return sel
	}
	parts := Partition(sel, sh.Count, weight)
	return parts[sh.Index-1]
}

// Partition splits sel into n balanced parts (see ShardOf).
func Partition(sel []Scenario, n int, weight func(Scenario) time.Duration) [][]Scenario {
	type item struct {
		sc    Scenario
		order int
		w     time.Duration
	}
	items := make([]item, len(sel))
	var known []time.Duration
	for i, sc := range sel {
		items[i] = item{sc: sc, order: i, w: -1}
		if weight != nil {
			if w := weight(sc); w > 0 {
				items[i].w = w
				known = append(known, w)
			}
		}
	}
	fill := time.Second
	if len(known) > 0 {
		sort.Slice(known, func(i, j int) bool { return known[i] < known[j] })
		fill = known[len(known)/2]
	}
	for i := range items {
		if items[i].w < 0 {
			items[i].w = fill
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].w != items[j].w {
			return items[i].w > items[j].w
		}
		return items[i].sc.ID() < items[j].sc.ID()
	})
	load := make([]time.Duration, n)
	assigned := make([][]item, n)
	for _, it := range items {
		best := 0
		for k := 1; k < n; k++ {
			if load[k] < load[best] {
				best = k
			}
		}
		load[best] += it.w
		assigned[best] = append(assigned[best], it)
	}
	out := make([][]Scenario, n)
	for k := range assigned {
		sort.Slice(assigned[k], func(i, j int) bool { return assigned[k][i].order < assigned[k][j].order })
		for _, it := range assigned[k] {
			out[k] = append(out[k], it.sc)
		}
	}
	return out
}
