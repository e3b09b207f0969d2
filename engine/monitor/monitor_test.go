package monitor

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// step is one operation fed to a Monitor: an action, an observation, or
// both (the action first).
type step struct {
	act *Action
	obs *Observation
}

func doAct(a Action) step                 { return step{act: &a} }
func doObs(o Observation) step            { return step{obs: &o} }
func doBoth(a Action, o Observation) step { return step{act: &a, obs: &o} }
func repeat(n int, f func(i int) []step) []step {
	var out []step
	for i := range n {
		out = append(out, f(i)...)
	}
	return out
}

// run feeds steps to a fresh Monitor and returns the signal attached after
// each step (nil when none).
func run(t testing.TB, cfg Config, steps []step) []*Signal {
	t.Helper()
	m := New(cfg)
	out := make([]*Signal, 0, len(steps))
	for _, s := range steps {
		if s.act != nil {
			m.Act(*s.act)
		}
		if s.obs != nil {
			m.Observe(*s.obs)
		}
		out = append(out, m.Pending())
	}
	return out
}

func firstSignal(sigs []*Signal) (int, *Signal) {
	for i, s := range sigs {
		if s != nil {
			return i, s
		}
	}
	return -1, nil
}

// menuPage is a page whose menu is open or closed; its DOM carries a
// counter and a timestamp that change every time (MON-5).
func menuPage(open bool, tick int) Observation {
	o := Observation{
		SnapshotID: fmt.Sprintf("snap-%d", tick),
		Tab:        "t1",
		URL:        "https://chat.example/c/42",
		FrameScope: "doc-1/main",
		Texts: []string{
			"Conversation",
			fmt.Sprintf("%d unread", tick*7),
			fmt.Sprintf("Updated 2025-03-%02d 12:%02d:%02d", tick%28+1, tick%60, (tick*13)%60),
		},
		Controls: []Control{
			{Key: "menu", Role: "button", Name: "Menu", Expanded: open},
			{Key: "input", Role: "textbox", Name: "Message"},
			{Key: "send", Role: "button", Name: "Send"},
		},
	}
	if open {
		o.Controls = append(o.Controls,
			Control{Key: "m-rename", Role: "menuitem", Name: "Rename"},
			Control{Key: "m-delete", Role: "menuitem", Name: fmt.Sprintf("Delete (%d)", tick)},
		)
	}
	return o
}

func page(tab, url string, texts ...string) Observation {
	return Observation{
		SnapshotID: "s-" + tab + url,
		Tab:        tab,
		URL:        url,
		FrameScope: "doc/" + url,
		Texts:      texts,
		Controls: []Control{
			{Key: "next", Role: "link", Name: "Next"},
		},
	}
}

var (
	clickMenu  = Action{Op: "click", Tab: "t1", Role: "button", Name: "Menu"}
	clickClose = Action{Op: "click", Tab: "t1", Role: "button", Name: "Close menu"}
	clickOpen  = Action{Op: "click", Tab: "t1", Role: "button", Name: "Open menu"}
	clickNext  = Action{Op: "click", Tab: "t1", Role: "link", Name: "Next"}
	clickSave  = Action{Op: "click", Tab: "t1", Role: "button", Name: "Save"}
	waitFor    = Action{Op: "waitFor", Tab: "t1", Role: "status", Name: "Done"}
)

func TestRules(t *testing.T) {
	t.Parallel()
	articles := []string{"Intro", "Setup", "Usage", "Limits", "Errors", "Testing", "Release", "Roadmap",
		"Appendix", "Glossary", "Index", "Credits", "Licence", "History", "Contact"}
	tests := []struct {
		name string
		cfg  Config
		// steps produce the operations.
		steps []step
		// want is the rule of the first signal, "" for none.
		want Rule
		// wantAt is the index of the step that raises the first signal
		// (checked when want is set and wantAt ≥ 0).
		wantAt int
	}{
		{
			name: "menu toggle with volatile counter and timestamp fires (MON-5)",
			steps: append([]step{doObs(menuPage(false, 0))}, repeat(8, func(i int) []step {
				return []step{doBoth(clickMenu, menuPage(i%2 == 0, i+1))}
			})...),
			want:   RuleSameActionRevisit,
			wantAt: 5, // the fifth click
		},
		{
			name: "menu opened and closed by two buttons fires (MON-5)",
			steps: append([]step{doObs(menuPage(false, 0))}, repeat(6, func(i int) []step {
				return []step{
					doBoth(clickOpen, menuPage(true, 2*i+1)),
					doBoth(clickClose, menuPage(false, 2*i+2)),
				}
			})...),
			want:   RuleSameActionRevisit,
			wantAt: 9, // the fifth open
		},
		{
			name: "same click that changes nothing fires stagnation",
			steps: append([]step{doObs(menuPage(false, 0))}, repeat(6, func(int) []step {
				return []step{doBoth(clickSave, menuPage(false, 0))}
			})...),
			want:   RuleStagnation,
			wantAt: 5,
		},
		{
			name: "different clicks that change nothing fire stagnation",
			steps: append([]step{doObs(page("t1", "/form", "Form"))}, repeat(5, func(i int) []step {
				a := Action{Op: "click", Tab: "t1", Role: "button", Name: articles[i]}
				return []step{doBoth(a, page("t1", "/form", "Form"))}
			})...),
			want:   RuleStagnation,
			wantAt: 5,
		},
		{
			name: "stagnation counts actions batched before one observation",
			steps: []step{
				doObs(page("t1", "/form", "Form")),
				doAct(clickSave), doAct(clickNext), doAct(clickMenu), doAct(clickOpen), doAct(clickClose),
				doObs(page("t1", "/form", "Form")),
			},
			want:   RuleStagnation,
			wantAt: 6,
		},
		{
			name: "same action five times without observing fires",
			steps: append([]step{doObs(page("t1", "/a", "A"))}, repeat(5, func(int) []step {
				return []step{doAct(clickNext)}
			})...),
			want:   RuleSameActionNoObservation,
			wantAt: 5,
		},
		{
			name: "same action without observing, interleaved with passive waits, fires",
			steps: append([]step{doObs(page("t1", "/a", "A"))}, repeat(5, func(int) []step {
				return []step{doAct(clickNext), doAct(waitFor)}
			})...),
			want:   RuleSameActionNoObservation,
			wantAt: 9,
		},
		{
			name: "custom thresholds",
			cfg:  Config{SameActionMin: 3, RevisitMin: 1},
			steps: append([]step{doObs(menuPage(false, 0))}, repeat(3, func(i int) []step {
				return []step{doBoth(clickMenu, menuPage(i%2 == 0, i+1))}
			})...),
			want:   RuleSameActionRevisit,
			wantAt: 3,
		},

		// MON-6: no false alarms.
		{
			name: "menu toggled four times stays below the threshold",
			steps: append([]step{doObs(menuPage(false, 0))}, repeat(4, func(i int) []step {
				return []step{doBoth(clickMenu, menuPage(i%2 == 0, i+1))}
			})...),
		},
		{
			name: "reading new pages in order",
			steps: append([]step{doObs(page("t1", "/docs/0", "Contents"))}, repeat(15, func(i int) []step {
				// Same click every time; the text differs only by numbers on
				// some pages, the URL always differs.
				return []step{doBoth(clickNext, page("t1", fmt.Sprintf("/docs/%d", i+1),
					fmt.Sprintf("Chapter %d", i+1), articles[i]))}
			})...),
		},
		{
			name: "reading two tabs alternately",
			steps: repeat(12, func(i int) []step {
				return []step{
					doBoth(Action{Op: "selectTab", Tab: "t1"}, page("t1", "/inbox", "Inbox", "3 unread")),
					doBoth(Action{Op: "selectTab", Tab: "t2"}, page("t2", "/report", "Report")),
				}
			}),
		},
		{
			name: "reading two tabs alternately with timestamps",
			steps: repeat(12, func(i int) []step {
				return []step{
					doBoth(Action{Op: "observe", Tab: "t1"},
						page("t1", "/inbox", "Inbox", fmt.Sprintf("checked %d:%02d", i, i))),
					doBoth(Action{Op: "observe", Tab: "t2"},
						page("t2", "/report", "Report", fmt.Sprintf("%d%%", i*8))),
				}
			}),
		},
		{
			name: "repeated passive waits on an unchanged page",
			steps: append([]step{doBoth(clickSave, page("t1", "/a", "Saving"))}, repeat(30, func(int) []step {
				return []step{doBoth(waitFor, page("t1", "/a", "Saving"))}
			})...),
		},
		{
			name: "repeated passive waits on a flickering page",
			steps: append([]step{doBoth(clickSave, page("t1", "/a", "Saving"))}, repeat(30, func(i int) []step {
				texts := []string{"Saving", "Working", "Saving", "Done"}
				return []step{doBoth(
					Action{Op: []string{"waitFor", "verifyOutcome", "verifyField"}[i%3], Tab: "t1"},
					page("t1", "/a", texts[i%len(texts)]))}
			})...),
		},
		{
			name: "actions marked passive by the engine",
			steps: repeat(20, func(i int) []step {
				return []step{doBoth(Action{Op: "observe", Tab: "t1", Passive: true}, menuPage(i%2 == 0, i))}
			}),
		},
		{
			name: "fill then submit then navigation",
			steps: []step{
				doObs(loginPage("", "")),
				doBoth(Action{Op: "fill", Tab: "t1", Role: "textbox", Name: "Email", Value: "ana@example.com"},
					loginPage("ana@example.com", "")),
				doBoth(Action{Op: "fill", Tab: "t1", Role: "textbox", Name: "Password", Value: "hunter2!", Sensitive: true},
					loginPage("ana@example.com", "hunter2!")),
				doBoth(Action{Op: "click", Tab: "t1", Role: "button", Name: "Sign in"},
					loginPage("ana@example.com", "hunter2!")),
				doBoth(waitFor, page("t1", "/home", "Welcome")),
				doBoth(Action{Op: "verifyOutcome", Tab: "t1"}, page("t1", "/home", "Welcome")),
				doBoth(Action{Op: "navigate", Tab: "t1", Value: "/settings"}, page("t1", "/settings", "Settings")),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sigs := run(t, tt.cfg, tt.steps)
			at, sig := firstSignal(sigs)
			switch {
			case tt.want == "" && sig != nil:
				t.Fatalf("got signal %+v at step %d, want none", *sig, at)
			case tt.want != "" && sig == nil:
				t.Fatalf("got no signal, want %s", tt.want)
			case tt.want != "" && sig.Rule != tt.want:
				t.Fatalf("got rule %s at step %d (%+v), want %s", sig.Rule, at, *sig, tt.want)
			case tt.want != "" && tt.wantAt >= 0 && at != tt.wantAt:
				t.Fatalf("got first signal at step %d (%+v), want step %d", at, *sig, tt.wantAt)
			}
			if sig != nil && sig.Advice != Advice {
				t.Errorf("got advice %q, want %q", sig.Advice, Advice)
			}
		})
	}
}

func loginPage(email, password string) Observation {
	return Observation{
		Tab:        "t1",
		URL:        "/login",
		FrameScope: "doc-login",
		Texts:      []string{"Sign in"},
		Controls: []Control{
			{Key: "email", Role: "textbox", Name: "Email", Value: email},
			{Key: "pw", Role: "textbox", Name: "Password", Value: password, Sensitive: true},
			{Key: "go", Role: "button", Name: "Sign in"},
		},
	}
}

func TestSignalCounts(t *testing.T) {
	t.Parallel()
	m := New(Config{})
	m.Observe(menuPage(false, 0))
	var sig *Signal
	for i := range 6 {
		m.Act(clickMenu)
		m.Observe(menuPage(i%2 == 0, i+1))
		if s := m.Pending(); s != nil {
			sig = s
		}
	}
	want := Signal{
		Rule:       RuleSameActionRevisit,
		SameAction: 6,
		Revisits:   5, // observations 2..6 return to an earlier state
		Window:     DefaultWindow,
		Advice:     Advice,
	}
	if sig == nil || *sig != want {
		t.Fatalf("got %+v, want %+v", sig, want)
	}
	if s := m.Pending(); s != nil {
		t.Fatalf("Pending after Pending: got %+v, want nil", *s)
	}
}

func TestLoopKeepsSignallingAndStopsOnChange(t *testing.T) {
	t.Parallel()
	m := New(Config{})
	m.Observe(menuPage(false, 0))
	fired := 0
	for i := range 10 {
		m.Act(clickMenu)
		m.Observe(menuPage(i%2 == 0, i+1))
		if m.Pending() != nil {
			fired++
		}
	}
	if fired != 6 { // clicks 5..10
		t.Fatalf("got %d signals during the loop, want 6", fired)
	}
	// The agent changes approach: a new action reaching a new page.
	m.Act(Action{Op: "click", Tab: "t1", Role: "menuitem", Name: "Rename"})
	m.Observe(page("t1", "/rename", "Rename conversation"))
	if s := m.Pending(); s != nil {
		t.Fatalf("got %+v after a change of approach, want nil", *s)
	}
}

func TestWindowsAreBounded(t *testing.T) {
	t.Parallel()
	m := New(Config{Window: 7})
	for i := range 1000 {
		m.Act(Action{Op: "click", Name: fmt.Sprint(i)})
		m.Observe(page("t1", fmt.Sprint("/", i)))
		m.Act(clickMenu)
		m.Pending()
	}
	if len(m.actions) != 7 || cap(m.actions) != 7 || len(m.obs) != 7 || cap(m.obs) != 7 {
		t.Fatalf("got windows len/cap %d/%d and %d/%d, want 7", len(m.actions), cap(m.actions), len(m.obs), cap(m.obs))
	}
	if got := New(Config{Window: WindowMax + 1}).Config().Window; got != WindowMax {
		t.Fatalf("got window %d, want it clamped to %d", got, WindowMax)
	}
	if got := New(Config{Window: -3}).Config(); got != DefaultConfig {
		t.Fatalf("got %+v, want %+v", got, DefaultConfig)
	}
}

// An old revisit leaves the observation window: the loop no longer counts.
func TestRevisitsAgeOut(t *testing.T) {
	t.Parallel()
	m := New(Config{Window: 6})
	m.Observe(menuPage(false, 0))
	for i := range 4 {
		m.Act(Action{Op: "click", Name: "toggle"})
		m.Observe(menuPage(i%2 == 0, i))
	}
	for i := range 6 {
		m.Act(clickNext)
		m.Observe(page("t1", fmt.Sprint("/p/", i)))
	}
	m.Pending()
	if got := m.revisitsLocked(); got != 0 {
		t.Fatalf("got %d revisits, want 0 after the window moved on", got)
	}
}

func (m *Monitor) revisitsLocked() int {
	n := 0
	for _, e := range m.obs {
		if e.revisit {
			n++
		}
	}
	return n
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	base := menuPage(true, 3)
	fp := Fingerprint(base)
	if len(fp) != 64 || strings.Trim(fp, "0123456789abcdef") != "" {
		t.Fatalf("got %q, want 64 hex digits", fp)
	}
	same := []struct {
		name string
		edit func(*Observation)
	}{
		{"snapshot id", func(o *Observation) { o.SnapshotID = "another" }},
		{"counter and timestamp", func(o *Observation) { *o = menuPage(true, 17) }},
		{"control key", func(o *Observation) { o.Controls[0].Key = "regenerated-key" }},
		{"number format", func(o *Observation) { o.Texts[1] = "1,234.50 unread" }},
	}
	for _, tt := range same {
		t.Run("ignores "+tt.name, func(t *testing.T) {
			o := clone(base)
			tt.edit(&o)
			if got := Fingerprint(o); got != fp {
				t.Fatalf("got %s, want %s", got, fp)
			}
		})
	}
	differ := []struct {
		name string
		edit func(*Observation)
	}{
		{"tab", func(o *Observation) { o.Tab = "t2" }},
		{"url", func(o *Observation) { o.URL = "https://chat.example/c/43" }},
		{"frame scope", func(o *Observation) { o.FrameScope = "doc-2/main" }},
		{"menu closed", func(o *Observation) { *o = menuPage(false, 3) }},
		{"text words", func(o *Observation) { o.Texts[0] = "Conversations" }},
		{"text order", func(o *Observation) { o.Texts[0], o.Texts[1] = o.Texts[1], o.Texts[0] }},
		{"text split", func(o *Observation) { o.Texts = append([]string{"Conver", "sation"}, o.Texts[1:]...) }},
		{"literal hash vs number", func(o *Observation) { o.Texts[1] = "# unread" }},
		{"control order", func(o *Observation) { o.Controls[1], o.Controls[2] = o.Controls[2], o.Controls[1] }},
		{"control value", func(o *Observation) { o.Controls[1].Value = "hello" }},
		{"control value digits", func(o *Observation) { o.Controls[1].Value = "12" }},
		{"checked", func(o *Observation) { o.Controls[1].Checked = true }},
		{"disabled", func(o *Observation) { o.Controls[2].Disabled = true }},
		{"sensitive value filled", func(o *Observation) { o.Controls[1].Sensitive = true; o.Controls[1].Value = "x" }},
		{"table cell", func(o *Observation) { o.Tables = []Table{{Rows: [][]string{{"a", "b"}}}} }},
		{"media ready", func(o *Observation) { o.Media = []Media{{Kind: "image", Ready: true}} }},
	}
	for _, tt := range differ {
		t.Run("covers "+tt.name, func(t *testing.T) {
			o := clone(base)
			tt.edit(&o)
			if got := Fingerprint(o); got == fp {
				t.Fatalf("got the same fingerprint %s, want a different one", got)
			}
		})
	}
	t.Run("ignores the sensitive value itself", func(t *testing.T) {
		a, b := clone(base), clone(base)
		a.Controls[1].Sensitive, a.Controls[1].Value = true, "secret-one"
		b.Controls[1].Sensitive, b.Controls[1].Value = true, "other"
		if Fingerprint(a) != Fingerprint(b) {
			t.Fatal("got different fingerprints for two sensitive values, want the same")
		}
	})
}

func clone(o Observation) Observation {
	c := o
	c.Texts = append([]string(nil), o.Texts...)
	c.Controls = append([]Control(nil), o.Controls...)
	c.Tables = append([]Table(nil), o.Tables...)
	c.Media = append([]Media(nil), o.Media...)
	return c
}

func TestActionFingerprint(t *testing.T) {
	t.Parallel()
	a := Action{Op: "fill", Tab: "t1", Role: "textbox", Name: "Email", Value: "Ana@Example.com"}
	fp := ActionFingerprint(a)
	if fp != ActionFingerprint(a) {
		t.Fatal("not deterministic")
	}
	edits := []struct {
		name string
		edit func(*Action)
	}{
		{"value case", func(a *Action) { a.Value = "ana@example.com" }},
		{"value space", func(a *Action) { a.Value += " " }},
		{"op", func(a *Action) { a.Op = "type" }},
		{"tab", func(a *Action) { a.Tab = "t2" }},
		{"role", func(a *Action) { a.Role = "searchbox" }},
		{"name", func(a *Action) { a.Name = "E-mail" }},
		{"key", func(a *Action) { a.Key = "Enter" }},
		{"field boundary", func(a *Action) { a.Role, a.Name = "textboxE", "mail" }},
	}
	for _, tt := range edits {
		t.Run(tt.name, func(t *testing.T) {
			b := a
			tt.edit(&b)
			if ActionFingerprint(b) == fp {
				t.Fatalf("got the same fingerprint after changing %s", tt.name)
			}
		})
	}
	if strings.Contains(fp, "Ana") {
		t.Fatal("fingerprint holds the value")
	}
}

func TestIsSensitive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   ControlInfo
		want bool
	}{
		{"password type", ControlInfo{Type: "Password"}, true},
		{"current-password", ControlInfo{Autocomplete: "section-a current-password"}, true},
		{"new-password", ControlInfo{Autocomplete: "new-password"}, true},
		{"one-time-code", ControlInfo{Autocomplete: "one-time-code"}, true},
		{"cc-number", ControlInfo{Autocomplete: "billing cc-number"}, true},
		{"cc-csc", ControlInfo{Autocomplete: "cc-csc"}, true},
		{"cc-exp-month", ControlInfo{Autocomplete: "CC-EXP-MONTH"}, true},
		{"cc-name", ControlInfo{Autocomplete: "cc-name"}, true},
		{"otp id", ControlInfo{ID: "otp-input"}, true},
		{"one time camel", ControlInfo{Name: "oneTimeCode"}, true},
		{"one-time label", ControlInfo{Label: "One-time passcode"}, true},
		{"2fa", ControlInfo{Name: "verify2FACode"}, true},
		{"totp", ControlInfo{Name: "totp"}, true},
		{"verification code", ControlInfo{Placeholder: "Enter the verification code"}, true},
		{"pin", ControlInfo{Label: "PIN"}, true},
		{"pin code acronym", ControlInfo{ID: "PINCode"}, true},
		{"cvc", ControlInfo{Name: "card_cvc"}, true},
		{"cvv2", ControlInfo{Name: "cvv2"}, true},
		{"card number", ControlInfo{Label: "Card number"}, true},
		{"cardnumber run together", ControlInfo{ID: "cardnumber"}, true},
		{"security code", ControlInfo{Label: "Security code"}, true},
		{"passcode", ControlInfo{Label: "Passcode"}, true},
		{"newpassword run together", ControlInfo{Name: "newpassword"}, true},
		{"expiry date", ControlInfo{Label: "Expiry date (MM/YY)"}, true},

		{"email", ControlInfo{Type: "email", Autocomplete: "email", Name: "email", Label: "Email"}, false},
		{"spinner", ControlInfo{Label: "Loading spinner"}, false},
		{"shipping", ControlInfo{Name: "shipping_option"}, false},
		{"opinion", ControlInfo{Label: "Your opinion"}, false},
		{"topping", ControlInfo{Label: "Pizza topping"}, false},
		{"message", ControlInfo{Type: "text", Placeholder: "Send a message"}, false},
		{"empty", ControlInfo{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsSensitive(tt.in); got != tt.want {
				t.Fatalf("IsSensitive(%+v): got %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	prev := loginPage("", "")
	prev.Controls = append(prev.Controls, Control{Key: "remember", Role: "checkbox", Name: "Remember me"})
	next := loginPage("ana@example.com", "s3cr3t-value")
	next.Controls[0].Name = "Email address"
	next.Controls = append(next.Controls, Control{Key: "err", Role: "alert", Name: "Check your password"})
	next.Texts = []string{"Sign in", "Try again"}

	s := Summarize(prev, next)
	if s.AddedCount != 1 || s.RemovedCount != 1 || s.ChangedCount != 2 || s.TextsAdded != 1 || s.TextsRemoved != 0 {
		t.Fatalf("got counts %+v", s)
	}
	if got := s.Changed[0]; got.Name != "Email address" || strings.Join(got.Fields, ",") != "name,value" {
		t.Errorf("got changed[0] %+v, want Email address with name,value", got)
	}
	if got := s.Changed[1]; got.Name != SensitiveName || strings.Join(got.Fields, ",") != "value" {
		t.Errorf("got changed[1] %+v, want %q with value", got, SensitiveName)
	}
	if s.Removed[0].Name != "Remember me" || s.Added[0].Role != "alert" {
		t.Errorf("got added %+v removed %+v", s.Added, s.Removed)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"ana@example.com", "s3cr3t-value", `"Password"`, "pw", "snap"} {
		if strings.Contains(string(b), leak) {
			t.Errorf("summary %s contains %q", b, leak)
		}
	}
}

func TestSummarizeBounded(t *testing.T) {
	t.Parallel()
	var next Observation
	for i := range 3 * SummaryElementsMax {
		next.Controls = append(next.Controls, Control{Role: "button", Name: fmt.Sprint("b", i)})
	}
	s := Summarize(Observation{}, next)
	if len(s.Added) != SummaryElementsMax || s.AddedCount != 3*SummaryElementsMax {
		t.Fatalf("got %d listed of %d, want %d of %d", len(s.Added), s.AddedCount, SummaryElementsMax, 3*SummaryElementsMax)
	}
	// Duplicate unkeyed controls are matched in order.
	dup := Observation{Controls: []Control{{Role: "button", Name: "Reply"}, {Role: "button", Name: "Reply"}}}
	more := clone(dup)
	more.Controls = append(more.Controls, Control{Role: "button", Name: "Reply"})
	if s := Summarize(dup, more); s.AddedCount != 1 || s.RemovedCount != 0 || s.ChangedCount != 0 {
		t.Fatalf("got %+v, want one added", s)
	}
}
