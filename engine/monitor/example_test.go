package monitor_test

import (
	"fmt"

	"github.com/replaylab/replaylab/engine/monitor"
)

// A menu opened and closed again and again: its DOM carries a counter that
// changes every time, yet the fifth click raises a signal (MON-5).
func Example() {
	page := func(open bool, tick int) monitor.Observation {
		o := monitor.Observation{
			SnapshotID: fmt.Sprint("snap-", tick),
			Tab:        "t1",
			URL:        "https://chat.example/c/1",
			Texts:      []string{fmt.Sprintf("%d notifications, updated 12:%02d", tick*3, tick)},
			Controls: []monitor.Control{
				{Key: "menu", Role: "button", Name: "Menu", Expanded: open},
			},
		}
		if open {
			o.Controls = append(o.Controls, monitor.Control{Key: "rename", Role: "menuitem", Name: "Rename"})
		}
		return o
	}
	click := monitor.Action{Op: "click", Tab: "t1", Role: "button", Name: "Menu"}

	m := monitor.New(monitor.DefaultConfig)
	m.Observe(page(false, 0))
	for i := 1; i <= 6; i++ {
		m.Act(click)
		m.Observe(page(i%2 == 1, i))
		// The engine attaches the pending signal, if any, to the result it
		// returns for this operation; the operation itself succeeded.
		if s := m.Pending(); s != nil {
			fmt.Printf("click %d: %s (same action %d, revisits %d, window %d)\n",
				i, s.Rule, s.SameAction, s.Revisits, s.Window)
		}
	}
	// Output:
	// click 5: same_action_revisit (same action 5, revisits 4, window 20)
	// click 6: same_action_revisit (same action 6, revisits 5, window 20)
}

// Summarize tells what changed between two observations; it names sensitive
// fields neutrally and never carries values or refs.
func ExampleSummarize() {
	before := monitor.Observation{Controls: []monitor.Control{
		{Key: "pw", Role: "textbox", Name: "Password", Sensitive: true},
		{Key: "go", Role: "button", Name: "Sign in"},
	}}
	after := monitor.Observation{Controls: []monitor.Control{
		{Key: "pw", Role: "textbox", Name: "Password", Value: "hunter2", Sensitive: true},
		{Key: "go", Role: "button", Name: "Sign in", Disabled: true},
		{Key: "err", Role: "alert", Name: "Try again"},
	}}
	s := monitor.Summarize(before, after)
	for _, e := range s.Added {
		fmt.Printf("added %s %q\n", e.Role, e.Name)
	}
	for _, e := range s.Changed {
		fmt.Printf("changed %s %q %v\n", e.Role, e.Name, e.Fields)
	}
	// Output:
	// added alert "Try again"
	// changed textbox "a sensitive field" [value]
	// changed button "Sign in" [disabled]
}

func ExampleIsSensitive() {
	fmt.Println(monitor.IsSensitive(monitor.ControlInfo{Autocomplete: "one-time-code"}))
	fmt.Println(monitor.IsSensitive(monitor.ControlInfo{ID: "cardNumber"}))
	fmt.Println(monitor.IsSensitive(monitor.ControlInfo{Label: "Shipping address"}))
	// Output:
	// true
	// true
	// false
}
