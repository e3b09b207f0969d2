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
	acts, err := ddmin([]Action(s), func(c []Action) (bool, error) { return try(Schedule(c)) }, &runs, maxRuns)
	cur := Schedule(acts)
	if err != nil {
		return cur, runs, err
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

// ddmin is Zeller's delta debugging over any list: it drops chunks of
// halving size while try still reports a failure, until no single element
// can go or the run bound is reached.
func ddmin[T any](s []T, try func([]T) (bool, error), runs *int, maxRuns int) ([]T, error) {
	cur := append([]T(nil), s...)
	n := 2
	for len(cur) >= 2 && *runs < maxRuns {
		chunk := (len(cur) + n - 1) / n
		reduced := false
		for start := 0; start < len(cur); start += chunk {
			end := min(start+chunk, len(cur))
			// the complement: cur without [start, end)
			c := append(append([]T(nil), cur[:start]...), cur[end:]...)
			if len(c) == 0 {
				continue
			}
			ok, err := try(c)
			if err != nil {
				return cur, err
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
	return cur, nil
}

// ShrinkAnswer returns the smallest answer case it finds for which fails
// still reports true: fewer transitions (delta debugging), then a simpler
// page (no long or stale last answer, no same text, less history), at most
// maxRuns runs of fails.
func ShrinkAnswer(c AnswerCase, fails func(AnswerCase) (bool, error), maxRuns int) (AnswerCase, int, error) {
	runs := 0
	try := func(ev []PageEvent) (bool, error) {
		if runs >= maxRuns {
			return false, nil
		}
		runs++
		x := c
		x.Events = ev
		return fails(x)
	}
	ev, err := ddmin(c.Events, try, &runs, maxRuns)
	if err != nil {
		return c, runs, err
	}
	c.Events = ev
	simpler := []func(AnswerCase) AnswerCase{
		func(x AnswerCase) AnswerCase { x.LongLast = false; return x },
		func(x AnswerCase) AnswerCase { x.StaleMedia = ""; return x },
		func(x AnswerCase) AnswerCase { x.SameText = false; return x },
		func(x AnswerCase) AnswerCase { x.History = min(x.History, 2); return x },
		func(x AnswerCase) AnswerCase { x.History = 0; return x },
	}
	for _, f := range simpler {
		x := f(c)
		if x.String() == c.String() || runs >= maxRuns {
			continue
		}
		runs++
		ok, err := fails(x)
		if err != nil {
			return c, runs, err
		}
		if ok {
			c = x
		}
	}
	return c, runs, nil
}
