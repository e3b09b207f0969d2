package replay_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/replay"
)

func idx(i int) *int { return &i }

// session is a small recording: a page, a typed message, a click, and two
// captures while the answer generates.
func session() *replay.Session {
	return &replay.Session{
		Version: replay.FormatVersion,
		Captures: []*capture.Capture{
			capture.New("http://sim.test/chat", "<p>before</p>"),
			capture.New("http://sim.test/chat", "<p>generating</p>"),
			capture.New("http://sim.test/chat", "<p>complete</p>"),
		},
		Steps: []replay.Step{
			{AtMS: 0, Kind: replay.KindNavigate, URL: "http://sim.test/chat"},
			{AtMS: 10, Kind: replay.KindCapture, Capture: idx(0)},
			{AtMS: 20, Kind: replay.KindType, Node: "9", Text: "hello"},
			{AtMS: 30, Kind: replay.KindClick, Node: "12"},
			{AtMS: 40, Kind: replay.KindCapture, Capture: idx(1)},
			{AtMS: 900, Kind: replay.KindCapture, Capture: idx(2)},
		},
	}
}

func TestDivergenceNamesTheField(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		act   func(d *replay.Driver) error
		field string
	}{
		{"navigate to another url", func(d *replay.Driver) error { return d.Navigate(ctx, "http://sim.test/other") }, "url"},
		{"click instead of navigate", func(d *replay.Driver) error { return d.Click(ctx, "12") }, "kind"},
		{"type other text", func(d *replay.Driver) error {
			_ = d.Navigate(ctx, "http://sim.test/chat")
			return d.Type(ctx, "9", "HELLO")
		}, "text"},
		{"type into another node", func(d *replay.Driver) error {
			_ = d.Navigate(ctx, "http://sim.test/chat")
			return d.Type(ctx, "10", "hello")
		}, "node"},
		{"double click instead of the recorded click", func(d *replay.Driver) error {
			_ = d.Navigate(ctx, "http://sim.test/chat")
			_ = d.Type(ctx, "9", "hello")
			return d.DoubleClick(ctx, "12")
		}, "kind"},
		{"act after the end", func(d *replay.Driver) error {
			_ = d.Navigate(ctx, "http://sim.test/chat")
			_ = d.Type(ctx, "9", "hello")
			_ = d.Click(ctx, "12")
			return d.Press(ctx, "9", "Enter")
		}, "step"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.act(replay.NewDriver(session()))
			var de *replay.DivergedError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a DivergedError", err)
			}
			if de.Field != tt.field {
				t.Fatalf("field: got %q, want %q (%v)", de.Field, tt.field, err)
			}
			if errcode.Of(err) != replay.Code || !errors.Is(err, replay.Code) {
				t.Fatalf("code: got %q, want %s", errcode.Of(err), replay.Code)
			}
			if !strings.Contains(err.Error(), "closest recorded action") {
				t.Fatalf("error does not show the closest recorded action: %v", err)
			}
		})
	}
}

func TestReplayFollowsTheRecordingsClock(t *testing.T) {
	ctx := context.Background()
	d := replay.NewDriver(session())
	if err := d.Navigate(ctx, "http://sim.test/chat"); err != nil {
		t.Fatal(err)
	}
	html := func() string {
		t.Helper()
		c, err := d.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c.Frames[0].HTML
	}
	if got := html(); got != "<p>before</p>" {
		t.Fatalf("first capture after navigate: %q", got)
	}
	if err := d.Type(ctx, "9", "hello"); err != nil {
		t.Fatal(err)
	}
	if err := d.Click(ctx, "12"); err != nil {
		t.Fatal(err)
	}
	if got := html(); got != "<p>generating</p>" {
		t.Fatalf("first capture after click: %q", got)
	}
	// the complete page was recorded 860 ms later: polls before that still
	// see the generating page
	for range 5 {
		_ = d.Sleep(ctx, 50*time.Millisecond)
		if got := html(); got != "<p>generating</p>" {
			t.Fatalf("capture before its time: %q", got)
		}
	}
	_ = d.Sleep(ctx, time.Second)
	if got := html(); got != "<p>complete</p>" {
		t.Fatalf("capture after its time: %q", got)
	}
	if u := d.Unused(); len(u) != 0 {
		t.Fatalf("unused: %v", u)
	}
}

func TestSinglePageReplaysOnePage(t *testing.T) {
	ctx := context.Background()
	c := capture.New("http://sim.test/chat", "<p>the page</p>")
	d := replay.NewDriver(replay.SinglePage(c))
	if err := d.Navigate(ctx, c.URL); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		got, err := d.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.URL != c.URL || got.Frames[0].HTML != "<p>the page</p>" {
			t.Fatalf("capture %d: got %s %q, want the page", i, got.URL, got.Frames[0].HTML)
		}
	}
	var div *replay.DivergedError
	if err := d.Click(ctx, "n1"); !errors.As(err, &div) {
		t.Fatalf("click: got %v, want a divergence (the session holds no click)", err)
	}
}

func TestUnusedActionsAreReported(t *testing.T) {
	d := replay.NewDriver(session())
	if err := d.Navigate(context.Background(), "http://sim.test/chat"); err != nil {
		t.Fatal(err)
	}
	u := d.Unused()
	if len(u) != 2 || !strings.Contains(u[0], "type") || !strings.Contains(u[1], "click") {
		t.Fatalf("unused: %v", u)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		path string
		want error
	}{
		{"missing", filepath.Join(dir, "none.json"), replay.ErrNoRecording},
		{"other version", write("v9.json", `{"version":9,"captures":[],"steps":[]}`), replay.ErrVersion},
		{"not json", write("bad.json", `nope`), replay.ErrMalformed},
		{"dangling capture", write("dangling.json", `{"version":1,"captures":[],"steps":[{"atMs":0,"kind":"capture","capture":3}]}`), replay.ErrMalformed},
		{"unknown kind", write("kind.json", `{"version":1,"captures":[],"steps":[{"atMs":0,"kind":"hover"}]}`), replay.ErrMalformed},
		{"a clock in a version 1 file", write("v1clock.json", `{"version":1,"clock":"lab","captures":[],"steps":[]}`), replay.ErrMalformed},
		{"unknown clock", write("clock.json", `{"version":2,"clock":"sundial","captures":[],"steps":[]}`), replay.ErrMalformed},
		{"time goes back", write("time.json", `{"version":1,"captures":[],"steps":[{"atMs":5,"kind":"click"},{"atMs":1,"kind":"click"}]}`), replay.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := replay.Load(tt.path)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// Version 1 sessions (wall offsets, no clock) are still read; a lab
// session's replay wakes at each recorded capture, as the live wait woke
// at each transition, and tells the engine it need not poll.
func TestSessionClocks(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "v1.json")
	if err := os.WriteFile(v1, []byte(`{"version":1,"captures":[],"steps":[{"atMs":0,"kind":"click","node":"3"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := replay.Load(v1)
	if err != nil || s.Clock != "" || s.Version != 1 {
		t.Fatalf("version 1: %+v %v", s, err)
	}
	c := func(html string) *capture.Capture { return capture.New("http://x/", html) }
	lab := &replay.Session{Version: replay.FormatVersion, Clock: replay.ClockLab, Captures: []*capture.Capture{c("<p>generating</p>"), c("<p>done</p>")},
		Steps: []replay.Step{{AtMS: 0, Kind: replay.KindCapture, Capture: new(0)}, {AtMS: 300, Kind: replay.KindCapture, Capture: new(1)}}}
	tests := []struct {
		name     string
		clock    string
		wakeAtMS int64
	}{
		{"lab: wakes at the next capture", replay.ClockLab, 300},
		{"wall: sleeps the whole interval", replay.ClockWall, 10_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := *lab
			s.Clock = tt.clock
			d := replay.NewDriver(&s)
			ctx := context.Background()
			if _, err := d.Capture(ctx); err != nil {
				t.Fatal(err)
			}
			t0 := d.Now()
			if err := d.Sleep(ctx, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			if got := d.Now().Sub(t0).Milliseconds(); got != tt.wakeAtMS {
				t.Errorf("woke at +%d ms, want +%d", got, tt.wakeAtMS)
			}
			if d.SleepsToTransitions() != (tt.clock == replay.ClockLab) {
				t.Errorf("SleepsToTransitions = %v", d.SleepsToTransitions())
			}
			got, _ := d.Capture(ctx)
			if !strings.Contains(got.Frames[0].HTML, "done") {
				t.Errorf("after the sleep the replay shows %q", got.Frames[0].HTML)
			}
		})
	}
	data, err := lab.Encode()
	if err != nil || !strings.Contains(string(data), `"clock": "lab"`) || !strings.HasPrefix(string(data), fmt.Sprintf("{\n \"version\": %d,", replay.FormatVersion)) {
		t.Fatalf("encoded lab session: %v\n%s", err, data)
	}
}

// Recording a replay gives back the same actions and captures: the
// recorder and the replay driver agree on the format.
func TestRecordReplayRoundTrip(t *testing.T) {
	ctx := context.Background()
	var live engine.Driver = replay.NewDriver(session())
	rec := replay.NewRecorder(live, "http://canonical.test", replay.Hooks{Rewrite: replay.BaseRewriter("http://canonical.test", "http://sim.test")})
	if err := rec.Navigate(ctx, "http://sim.test/chat"); err != nil {
		t.Fatal(err)
	}
	for range 3 { // identical captures are stored once, each read is a step
		if _, err := rec.Capture(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Type(ctx, "9", "hello"); err != nil {
		t.Fatal(err)
	}
	if err := rec.Click(ctx, "12"); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Capture(ctx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := rec.Session().Save(path); err != nil {
		t.Fatal(err)
	}
	s, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, st := range s.Steps {
		kinds = append(kinds, st.Kind)
	}
	if got := strings.Join(kinds, ","); got != "navigate,capture,read,read,type,click,capture" {
		t.Fatalf("steps: %s", got)
	}
	if s.Steps[0].URL != "http://canonical.test/chat" || s.Captures[0].URL != "http://canonical.test/chat" {
		t.Fatalf("live base not rewritten: %+v %+v", s.Steps[0], s.Captures[0])
	}
	d := replay.NewDriver(s)
	if err := d.Navigate(ctx, "http://canonical.test/chat"); err != nil {
		t.Fatal(err)
	}
}

func TestDeltasKeepCapturesExactAndSmall(t *testing.T) {
	var turns strings.Builder
	for i := range 200 {
		fmt.Fprintf(&turns, `<div data-message-author-role="assistant" data-message-id="m%d"><p>Answer %d with some text — ünïcödé</p></div>`, i, i)
	}
	page := func(extra string) *capture.Capture {
		return capture.New("http://sim.test/chat", "<html><body>"+turns.String()+extra+"<textarea></textarea></body></html>")
	}
	s := &replay.Session{Version: replay.FormatVersion, Captures: []*capture.Capture{page(""), page(`<p>generating…</p>`), page(`<p>done — ✓</p>`)}}
	for i := range s.Captures {
		s.Steps = append(s.Steps, replay.Step{AtMS: int64(i), Kind: replay.KindCapture, Capture: idx(i)})
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Captures {
		if got.Captures[i].Frames[0].HTML != s.Captures[i].Frames[0].HTML {
			t.Fatalf("capture %d changed in the round trip", i)
		}
	}
	st, _ := os.Stat(path)
	whole := len(s.Captures[0].Frames[0].HTML)
	if st.Size() > int64(whole)+4096 {
		t.Fatalf("3 captures of a %d-byte page took %d bytes: deltas not used", whole, st.Size())
	}
	t.Logf("%d-byte page, 3 captures, file %d bytes", whole, st.Size())
}

func TestCorruptRecordingNamesThePosition(t *testing.T) {
	s := session()
	path := filepath.Join(t.TempDir(), "s.json")
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", data[:len(data)/2], "at byte"},
		{"wrong type", []byte(strings.Replace(string(data), `"atMs": 10`, `"atMs": "ten"`, 1)), "at byte"},
		{"trailing data", append(append([]byte{}, data...), []byte(`{"more":1}`)...), "at byte"},
		{"bad delta", []byte(`{"version":1,"captures":[{"version":1,"url":"u","frames":[{"id":"main","url":"u","delta":{"prefix":5,"middle":"","suffix":0}}]}],"steps":[]}`), "delta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := replay.Decode(tt.data)
			if !errors.Is(err, replay.ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want ErrMalformed mentioning %q", err, tt.want)
			}
		})
	}
}

// TestSecretsNeverReachDiskAndReplayStillWorks records a login: the
// password typed into a password field and an e-mail on the page are
// scrubbed, the file holds neither, and a replay of it still verifies the
// typed value.
func TestSecretsNeverReachDiskAndReplayStillWorks(t *testing.T) {
	ctx := context.Background()
	before := capture.New("http://sim.test/login", `<p>Signed in as ada@example.com</p><input type="password" aria-label="Password" data-rl-node="7">`)
	after := capture.New("http://sim.test/login", `<p>Signed in as ada@example.com</p><input type="password" aria-label="Password" data-rl-node="7" data-rl-value="hunter2!">`)
	live := &replay.Session{Version: replay.FormatVersion, Captures: []*capture.Capture{before, after}, Steps: []replay.Step{
		{AtMS: 0, Kind: replay.KindCapture, Capture: idx(0)},
		{AtMS: 5, Kind: replay.KindType, Node: "7", Text: "hunter2!"},
		{AtMS: 10, Kind: replay.KindCapture, Capture: idx(1)},
	}}
	sc := replay.NewScrubber(replay.DefaultPatterns)
	rec := replay.NewRecorder(replay.NewDriver(live), "", replay.Hooks{Scrub: sc})
	if _, err := rec.Capture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rec.Type(ctx, "7", "hunter2!"); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Capture(ctx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "login.json")
	if err := rec.Session().SaveChecked(path, sc); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, secret := range []string{"hunter2!", "ada@example.com"} {
		if strings.Contains(string(data), secret) {
			t.Fatalf("%q reached disk:\n%s", secret, data)
		}
	}
	s, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	d := replay.NewDriver(s)
	if _, err := d.Capture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.Type(ctx, "7", "hunter2!"); err != nil {
		t.Fatalf("replay refused the typed secret: %v", err)
	}
	c, err := d.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Frames[0].HTML, `data-rl-value="hunter2!"`) {
		t.Fatalf("replayed capture does not show the typed value: %s", c.Frames[0].HTML)
	}
}

func TestCheckRefusesARecordingWithASecret(t *testing.T) {
	sc := replay.NewScrubber(replay.DefaultPatterns, "s3cr3t-value")
	s := &replay.Session{Version: replay.FormatVersion, Captures: []*capture.Capture{capture.New("http://x/", "<p>token s3cr3t-value</p>")},
		Steps: []replay.Step{{Kind: replay.KindCapture, Capture: idx(0)}}}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := s.SaveChecked(path, sc); !errors.Is(err, replay.ErrSecretInRecording) {
		t.Fatalf("got %v, want ErrSecretInRecording", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused recording was written")
	}
	tests := []struct{ name, in, want string }{
		{"email", "mail bob.smith@corp.example.org now", "mail __rl_email_1__ now"},
		{"token", "key sk-abcdefghijklmnopqrstuvwx end", "key __rl_token_1__ end"},
		{"bearer", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "Authorization: __rl_bearer_1__"},
		{"literal", "the s3cr3t-value here", "the __rl_secret_1__ here"},
		{"same value same placeholder", "bob.smith@corp.example.org", "__rl_email_1__"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sc.Scrub(tt.in); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzDecode: the session loader never panics, and what it accepts is
// valid and survives a save/load round trip.
func FuzzDecode(f *testing.F) {
	data, _ := session().Encode()
	f.Add(data)
	f.Add([]byte(`{"version":1,"captures":[{"version":1,"url":"u","frames":[{"id":"main","url":"u","html":"<p>a</p>"}]},{"version":1,"url":"u","frames":[{"id":"main","url":"u","delta":{"prefix":3,"middle":"b","suffix":4}}]}],"steps":[]}`))
	f.Add([]byte(`{"version":1,"captures":[],"steps":[{"atMs":0,"kind":"capture","capture":0}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := replay.Decode(data)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Decode accepted an invalid session: %v", err)
		}
		again, err := s.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := replay.Decode(again); err != nil {
			t.Fatalf("a decoded session does not decode again: %v", err)
		}
	})
}

// TestDoubleClickReplays: a recorded double click replays as one action
// and its session validates.
func TestDoubleClickReplays(t *testing.T) {
	ctx := context.Background()
	s := session()
	s.Steps[3].Kind = replay.KindDoubleClick
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	d := replay.NewDriver(s)
	if err := d.Navigate(ctx, "http://sim.test/chat"); err != nil {
		t.Fatal(err)
	}
	if err := d.Type(ctx, "9", "hello"); err != nil {
		t.Fatal(err)
	}
	if err := d.Click(ctx, "12"); err == nil {
		t.Fatal("a single click replayed a recorded double click")
	}
	if err := d.DoubleClick(ctx, "12"); err != nil {
		t.Fatal(err)
	}
}

// TestScrollReplays: a recorded scroll replays as its own action, and a
// click in its place diverges on the kind.
func TestScrollReplays(t *testing.T) {
	ctx := context.Background()
	s := session()
	s.Steps[3] = replay.Step{AtMS: 30, Kind: replay.KindScroll}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	d := replay.NewDriver(s)
	_ = d.Navigate(ctx, "http://sim.test/chat")
	_ = d.Type(ctx, "9", "hello")
	var de *replay.DivergedError
	if err := d.Click(ctx, "12"); !errors.As(err, &de) || de.Field != "kind" {
		t.Fatalf("a click in place of the recorded scroll: %v, want a divergence on the kind", err)
	}
	if err := d.ScrollToTop(ctx); err != nil {
		t.Fatal(err)
	}
}
