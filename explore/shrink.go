package explore

// Shrink returns the smallest schedule it finds for which fails still
// reports true, starting from s (which must fail), by delta debugging
// (Zeller's ddmin: drop chunks of halving size, then single steps) and
// then by lowering the copies of concurrent steps. It runs fails at most
// maxRuns times and returns how many runs it made. The steps name jobs and
// attempts by their place in the schedule, so every sub-schedule is a
// valid schedule (a step naming what does not exist is skipped).
func Shrink(s Schedule, fails func(Schedule) (bool, error), maxRuns int) (Schedule, int, error) {
	runs := 0
	try := func(c Schedule) (bool, error) {
		if runs >= maxRuns {
			return false, nil
		}
		runs++
		return fails(c)
	}
	cur := append(Schedule(nil), s...)
	n := 2
	for len(cur) >= 2 && runs < maxRuns {
		chunk := (len(cur) + n - 1) / n
		reduced := false
		for start := 0; start < len(cur); start += chunk {
			end := min(start+chunk, len(cur))
			// the complement: cur without [start, end)
			c := append(append(Schedule(nil), cur[:start]...), cur[end:]...)
			if len(c) == 0 {
				continue
			}
			ok, err := try(c)
			if err != nil {
				return cur, runs, err
			}
			if ok {
				cur, reduced = c, true
				n = max(n-1, 2)
				break
			}
		}
		if !reduced {
			if chunk == 1 {
				break
			}
			n = min(n*2, len(cur))
		}
	}
	// Fewer copies of concurrent steps, when the failure does not need them.
	for i := range cur {
		floor := 1
		if cur[i].Kind == KindDuplicate {
			floor = 2
		}
		if cur[i].Copies <= floor {
			continue
		}
		c := append(Schedule(nil), cur...)
		c[i].Copies = floor
		ok, err := try(c)
		if err != nil {
			return cur, runs, err
		}
		if ok {
			cur = c
		}
	}
	return cur, runs, nil
}
