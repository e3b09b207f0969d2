// Package pairbench measures a benchmark's work beside its baseline in the
// same loop: each iteration runs the baseline once and the work once, so
// both see the same machine load, and the benchmark reports their ratios
// (time and bytes allocated) instead of a baseline timed before or after.
// On a shared machine the ratio is the figure to trust; the absolute times
// move with the load.
package pairbench

import (
	"runtime"
	"testing"
	"time"
)

// Result holds the per-iteration means of one paired run.
type Result struct {
	Base, Work           time.Duration
	BaseBytes, WorkBytes float64
}

// Run alternates base and work once per iteration of b's loop and reports
// base-ns/op, work-ns/op, x-<name> (work time ÷ base time), work-B/op,
// base-B/op and xmem-<name> (bytes allocated, work ÷ base). name names the
// baseline in the metric ("html.Parse").
func Run(b *testing.B, name string, base, work func()) Result {
	b.Helper()
	// ReadMemStats flushes every processor's allocation cache, so small
	// figures are exact (runtime/metrics' heap allocs lag behind them);
	// it runs between the timed calls.
	var ms runtime.MemStats
	allocs := func() uint64 {
		runtime.ReadMemStats(&ms)
		return ms.TotalAlloc
	}
	var r Result
	var tb, tw time.Duration
	var ab, aw uint64
	n := 0
	for b.Loop() {
		a0 := allocs()
		t0 := time.Now()
		base()
		t1 := time.Now()
		a1 := allocs()
		t2 := time.Now()
		work()
		t3 := time.Now()
		a2 := allocs()
		tb += t1.Sub(t0)
		tw += t3.Sub(t2)
		ab += a1 - a0
		aw += a2 - a1
		n++
	}
	if n == 0 {
		return r
	}
	r = Result{Base: tb / time.Duration(n), Work: tw / time.Duration(n),
		BaseBytes: float64(ab) / float64(n), WorkBytes: float64(aw) / float64(n)}
	b.ReportMetric(float64(r.Base.Nanoseconds()), "base-ns/op")
	b.ReportMetric(float64(r.Work.Nanoseconds()), "work-ns/op")
	b.ReportMetric(float64(r.Work)/float64(r.Base), "x-"+name)
	b.ReportMetric(r.WorkBytes, "work-B/op")
	b.ReportMetric(r.BaseBytes, "base-B/op")
	if r.BaseBytes > 0 {
		b.ReportMetric(r.WorkBytes/r.BaseBytes, "xmem-"+name)
	}
	return r
}
