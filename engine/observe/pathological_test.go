package observe

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPathologicalShapes: shapes that were quadratic once stay fast. The
// bound is on the CPU time the process spent (the tests of this package
// run one at a time), not the wall time, which a loaded machine stretches
// however little work is done. Each shape takes well under 200 ms of CPU
// now; a quadratic one took seconds.
func TestPathologicalShapes(t *testing.T) {
	shapes := map[string]string{
		"rules":       "<style>" + strings.Repeat("a b c d e f{display:none} .x::before{content:'y'}", 3000) + "</style>" + strings.Repeat("<a href=# class=x><b>t</b></a>", 3000),
		"row":         "<div role=row>" + strings.Repeat("<div role=cell><span role=button>x</span></div>", 5000) + "</div>",
		"nestedlinks": strings.Repeat("<div role=link>", 500) + strings.Repeat("x ", 10000),
		"labels":      strings.Repeat("<label for=a>L<input id=a></label>", 3000),
		"labelledby":  strings.Repeat("<span id=a aria-labelledby=a>x</span><button aria-labelledby='a a a a a a a a'>b</button>", 2000),
		"srcdoc":      strings.Repeat("<iframe srcdoc='<button>x</button>'></iframe>", 2000),
		"search":      strings.Repeat("a", 60000),
		"options":     "<select>" + strings.Repeat("<option>x", 5000) + "</select>" + strings.Repeat("<label><select><option>a</select></label>", 500),
		"combobox":    strings.Repeat("<label><input type=checkbox><div role=combobox>"+strings.Repeat("<div role=listbox><div role=option aria-selected=true>o</div></div>", 20)+"</div></label>", 200),
	}
	for name, src := range shapes {
		wall, cpu := time.Now(), cpuTime(t)
		doc, _ := ParseHTML("x", src)
		o := Observe(doc, 1, Options{})
		o.View(ViewFull, DefaultLimits)
		o.SearchText(TextQuery{Text: "aab"}, DefaultLimits)
		d := cpuTime(t) - cpu
		t.Logf("%s: %v of CPU (%v of wall time) for %d bytes", name, d.Round(time.Millisecond), time.Since(wall).Round(time.Millisecond), len(src))
		if d > time.Second {
			t.Errorf("%s took %v of CPU for %d bytes", name, d, len(src))
		}
	}
}
