package report

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrShards is a set of reports that is not one whole sharded run: a
// shard missing, given twice, or shards of different splits (or a run
// that is no shard beside shards).
var ErrShards = errors.New("report: not a whole set of shards")

// CheckShards verifies that runs, named by names (their directories), are
// the shards of one split, each exactly once (a merged run counts as the
// shards it was made of). Runs of which none is a shard pass: merging
// separate runs is not a shard set.
func CheckShards(names []string, runs []*Run) error {
	type part struct{ index, count int }
	owner := map[part]string{}
	var unsharded []string
	count := 0
	for i, r := range runs {
		name := names[i]
		shards := r.Shards
		if r.Shard != "" {
			shards = []string{r.Shard}
		}
		var mine []string
		for _, s := range shards {
			if _, _, ok := parseShard(s); ok {
				mine = append(mine, s)
			}
		}
		if len(mine) == 0 {
			unsharded = append(unsharded, name)
			continue
		}
		for _, s := range mine {
			idx, n, _ := parseShard(s)
			if count == 0 {
				count = n
			}
			if n != count {
				return fmt.Errorf("%w: %s is shard %s, but the others are shards of %d (mixed splits; run every shard with the same --shard i/%d)", ErrShards, name, s, count, count)
			}
			p := part{idx, n}
			if prev, ok := owner[p]; ok {
				return fmt.Errorf("%w: shard %s is given twice (%s and %s)", ErrShards, s, prev, name)
			}
			owner[p] = name
		}
	}
	if count == 0 {
		return nil
	}
	if len(unsharded) > 0 {
		return fmt.Errorf("%w: %s is not a shard (no --shard), beside shards of %d", ErrShards, strings.Join(unsharded, ", "), count)
	}
	var missing []string
	for i := 1; i <= count; i++ {
		if _, ok := owner[part{i, count}]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		var have []string
		for p, name := range owner {
			have = append(have, fmt.Sprintf("%d/%d (%s)", p.index, p.count, name))
		}
		sort.Strings(have)
		what := "shard " + missing[0] + " is"
		if len(missing) > 1 {
			what = "shards " + strings.Join(missing, ", ") + " are"
		}
		return fmt.Errorf("%w: %s missing; given: %s", ErrShards, what, strings.Join(have, ", "))
	}
	return nil
}

// CheckShardDirs loads the report model of each directory (an html:DIR of
// a run) and checks them with CheckShards.
func CheckShardDirs(dirs ...string) error {
	var runs []*Run
	for _, d := range dirs {
		r, err := Load(filepath.Join(d, ModelFile))
		if err != nil {
			return fmt.Errorf("report: merge %s (an html:DIR of a run): %w", d, err)
		}
		runs = append(runs, r)
	}
	return CheckShards(dirs, runs)
}

// parseShard reads "i/n".
func parseShard(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, false
	}
	return i, n, true
}
