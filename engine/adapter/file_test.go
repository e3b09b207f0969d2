package adapter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/observe"
)

func TestFileAdapter(t *testing.T) {
	t.Parallel()
	a, err := LoadFile(filepath.Join("testdata", "acme.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc := parse(t, page(`<div class="msg" data-from="human"><p>q</p><footer class="meta" data-msg-id="u1"></footer></div>
<div class="msg" data-from="bot"><p>answer</p><img class="generated" data-rl-ready="complete" data-rl-size="64x64"><img class="avatar"><footer class="meta" data-msg-id="a1"></footer></div>
<div class="msg" data-from="bot"><p>no id</p></div>
<div class="msg" data-from="system"><p>banner</p></div>`))
	r := a.Groups(doc)
	want := []summary{{"a1", "complete", "answer"}, {"pos-2", "complete", "no id"}}
	if got := summarize(r); !sameSummaries(got, want) {
		t.Fatalf("groups:\n got %+v\nwant %+v", got, want)
	}
	if r.Turns != 3 || !r.Structure || r.Adapter != "file:acme" {
		t.Errorf("turns %d structure %v adapter %q", r.Turns, r.Structure, r.Adapter)
	}
	if m := r.Groups[0].Media; len(m) != 1 || !m[0].Ready {
		t.Errorf("media %+v, want one ready image (the avatar is not a media item)", m)
	}
	wantRule := `file:acme (testdata/acme.json): turn "div.msg", speaker data-from="bot"; id from data-msg-id of "footer.meta"`
	if r.Groups[0].Rule != wantRule {
		t.Errorf("rule\n got %s\nwant %s", r.Groups[0].Rule, wantRule)
	}
}

func TestFileSpeakerBySelector(t *testing.T) {
	t.Parallel()
	a, err := ParseFile([]byte(`{"version":1,"name":"lbl","turn":{"selector":"li.turn","speaker":{"selector":".who","assistant":["Orbit"],"user":["You"]},"id":{"attribute":"data-k"}}}`), "inline")
	if err != nil {
		t.Fatal(err)
	}
	r := a.Groups(parse(t, page(`<ul><li class="turn" data-k="1"><span class="who">You</span> hello</li><li class="turn" data-k="2"><span class="who sr-only">Orbit</span> hi there</li></ul>`)))
	want := []summary{{"2", "complete", "hi there"}}
	if got := summarize(r); !sameSummaries(got, want) || r.Turns != 2 {
		t.Errorf("got %+v turns %d, want %+v turns 2", got, r.Turns, want)
	}
}

// TestFileIDKinds: a version 2 file declares ids the page makes up
// (volatile) or none (position), and the rule says so (SPEC LIB-1).
func TestFileIDKinds(t *testing.T) {
	t.Parallel()
	const body = `<ul><li class="turn" data-k="u1" data-who="user">hello</li><li class="turn" data-k="x9" data-who="bot">hi</li><li class="turn" data-k="y3" data-who="bot">again</li></ul>`
	tests := []struct {
		name, id, kind string
		want           []string // ids
		rule           string
	}{
		{name: "version 1, stable", id: `{"attribute":"data-k"}`, kind: IDStable, want: []string{"x9", "y3"}, rule: "id from data-k"},
		{name: "volatile", id: `{"attribute":"data-k","kind":"volatile"}`, kind: IDVolatile, want: []string{"x9", "y3"}, rule: "id from data-k (declared: turn.id.kind volatile)"},
		{name: "position", id: `{"kind":"position"}`, kind: IDPosition, want: []string{"pos-1", "pos-2"}, rule: "id by position 2 (declared: turn.id.kind position)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version := "2"
			if tt.kind == IDStable {
				version = "1"
			}
			a, err := ParseFile([]byte(`{"version":`+version+`,"turn":{"selector":"li.turn","speaker":{"attribute":"data-who","assistant":["bot"],"user":["user"]},"id":`+tt.id+`}}`), "inline")
			if err != nil {
				t.Fatal(err)
			}
			if got := a.(*File).IDKind(); got != tt.kind {
				t.Errorf("IDKind %q, want %q", got, tt.kind)
			}
			r := a.Groups(parse(t, page(body)))
			if got := r.IDs(); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("ids %v, want %v", got, tt.want)
			}
			if last := r.Groups[len(r.Groups)-1].Rule; !strings.HasSuffix(last, "; "+tt.rule) {
				t.Errorf("rule %q, want it to end with %q", last, tt.rule)
			}
		})
	}
}

func TestFileRefused(t *testing.T) {
	t.Parallel()
	const good = `"turn":{"selector":"div.msg","id":{"attribute":"data-id"}}`
	tests := []struct {
		name, src, field, reason string
	}{
		{name: "not json", src: `{"version":1,`, field: "", reason: "not JSON"},
		{name: "trailing data", src: `{"version":1,` + good + `} {}`, field: "", reason: "data after"},
		{name: "not an object", src: `[1]`, field: "", reason: "want an object, got an array"},
		{name: "missing version", src: `{` + good + `}`, field: "version", reason: "missing required field"},
		{name: "version wrong type", src: `{"version":"1",` + good + `}`, field: "version", reason: "want an integer, got a string"},
		{name: "version fraction", src: `{"version":1.5,` + good + `}`, field: "version", reason: "want an integer"},
		{name: "unknown version", src: `{"version":3,` + good + `}`, field: "version", reason: "unknown version 3"},
		{name: "id kind in version 1", src: `{"version":1,"turn":{"selector":"div","id":{"attribute":"x","kind":"volatile"}}}`, field: "turn.id.kind", reason: `needs "version": 2`},
		{name: "unknown id kind", src: `{"version":2,"turn":{"selector":"div","id":{"attribute":"x","kind":"random"}}}`, field: "turn.id.kind", reason: `unknown kind "random"`},
		{name: "position id with an attribute", src: `{"version":2,"turn":{"selector":"div","id":{"attribute":"x","kind":"position"}}}`, field: "turn.id.attribute", reason: "a position id reads no attribute"},
		{name: "volatile id without an attribute", src: `{"version":2,"turn":{"selector":"div","id":{"kind":"volatile"}}}`, field: "turn.id.attribute", reason: "missing required field"},
		{name: "unknown top field", src: `{"version":1,"turns":{},` + good + `}`, field: "turns", reason: "unknown field"},
		{name: "missing turn", src: `{"version":1}`, field: "turn", reason: "missing required field"},
		{name: "turn wrong type", src: `{"version":1,"turn":"div"}`, field: "turn", reason: "want an object, got a string"},
		{name: "missing selector", src: `{"version":1,"turn":{"id":{"attribute":"x"}}}`, field: "turn.selector", reason: "missing required field"},
		{name: "empty selector", src: `{"version":1,"turn":{"selector":"  ","id":{"attribute":"x"}}}`, field: "turn.selector", reason: "empty"},
		{name: "invalid selector", src: `{"version":1,"turn":{"selector":"div[","id":{"attribute":"x"}}}`, field: "turn.selector", reason: "invalid CSS selector"},
		{name: "selector too costly", src: `{"version":1,"turn":{"selector":"a * * * p","id":{"attribute":"x"}}}`, field: "turn.selector", reason: "4 descendant, sibling (~) or :has() steps"},
		{name: "missing id", src: `{"version":1,"turn":{"selector":"div"}}`, field: "turn.id", reason: "missing required field"},
		{name: "empty id attribute", src: `{"version":1,"turn":{"selector":"div","id":{"attribute":""}}}`, field: "turn.id.attribute", reason: "empty"},
		{name: "unknown nested field", src: `{"version":1,"turn":{"selector":"div","id":{"attribute":"x","attr":"y"}}}`, field: "turn.id.attr", reason: "unknown field"},
		{name: "speaker neither way", src: `{"version":1,"turn":{"selector":"div","id":{"attribute":"x"},"speaker":{"assistant":["x"]}}}`, field: "turn.speaker.attribute", reason: "missing required field"},
		{name: "speaker no assistant", src: `{"version":1,"turn":{"selector":"div","id":{"attribute":"x"},"speaker":{"attribute":"a"}}}`, field: "turn.speaker.assistant", reason: "missing required field"},
		{name: "speaker assistant wrong entry", src: `{"version":1,"turn":{"selector":"div","id":{"attribute":"x"},"speaker":{"attribute":"a","assistant":["bot",3]}}}`, field: "turn.speaker.assistant[1]", reason: "want a string, got a number"},
		{name: "state selector invalid", src: `{"version":1,` + good + `,"states":{"generating":{"selectors":[".ok","::"]}}}`, field: "states.generating.selectors[1]", reason: "invalid CSS selector"},
		{name: "state attribute without value", src: `{"version":1,` + good + `,"states":{"failure":{"attributes":[{"name":"data-x"}]}}}`, field: "states.failure.attributes[0].value", reason: "missing required field"},
		{name: "builtin wrong type", src: `{"version":1,` + good + `,"states":{"builtin":"yes"}}`, field: "states.builtin", reason: "want a boolean"},
		{name: "media kind unknown", src: `{"version":1,` + good + `,"media":{"items":[{"selector":"img","kind":"gif"}]}}`, field: "media.items[0].kind", reason: `unknown kind "gif"`},
		{name: "media ready state out of range", src: `{"version":1,` + good + `,"media":{"video_ready_state_min":7}}`, field: "media.video_ready_state_min", reason: "out of range"},
		{name: "too large", src: `{"version":1,"name":"` + strings.Repeat("x", FileBytesMax) + `"}`, field: "", reason: "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseFile([]byte(tt.src), "bad.json")
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrBadAdapterFile) {
				t.Fatalf("got %v, %v; want a *FileError", a, err)
			}
			if fe.Field != tt.field || !strings.Contains(fe.Reason, tt.reason) {
				t.Errorf("got field %q reason %q; want field %q reason containing %q", fe.Field, fe.Reason, tt.field, tt.reason)
			}
			if !strings.HasPrefix(err.Error(), "adapter: bad.json: ") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestSelectorScans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, sel string
		want      int
	}{
		{name: "compound", sel: "div.msg[data-x='a b']", want: 0},
		{name: "child combinators", sel: "main > div + p", want: 0},
		{name: "descendants", sel: "main .thread  div.msg", want: 2},
		{name: "group", sel: "a b, c d", want: 2},
		{name: "sibling and has", sel: "h3 ~ p:has(img)", want: 2},
		{name: "spaces in brackets and strings", sel: `div[title="a b c"]:not( .x )`, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scans(tt.sel); got != tt.want {
				t.Errorf("scans(%q) = %d, want %d", tt.sel, got, tt.want)
			}
		})
	}
}

func TestLoadFileMissing(t *testing.T) {
	t.Parallel()
	_, err := LoadFile(filepath.Join(t.TempDir(), "none.json"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want os.ErrNotExist", err)
	}
}

func FuzzParseFile(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "acme.json")); err == nil {
		f.Add(data, `<div class="msg" data-from="bot"><footer class="meta" data-msg-id="1"></footer><img class="generated"></div>`)
	}
	f.Add([]byte(`{"version":1,"turn":{"selector":"div","id":{"attribute":"id"}}}`), `<div id="a"><div id="b">x</div></div>`)
	f.Add([]byte(`{"version":1,"turn":{"selector":"li:has(> span)","speaker":{"selector":"span","assistant":["a"]},"id":{"attribute":"k","selector":"*"}},"states":{"generating":{"attributes":[{"name":"x","value":""}]}},"media":{"items":[{"selector":"*","kind":"video"}]}}`), `<li><span>a</span><video data-rl-ready="9"></video></li>`)
	f.Fuzz(func(t *testing.T, data []byte, markup string) {
		a, err := ParseFile(data, "fuzz.json")
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrBadAdapterFile) {
				t.Fatalf("refusal is not a *FileError: %v", err)
			}
			return
		}
		doc := parse(t, markup)
		r := a.Groups(doc)
		if r.Structure != (r.Turns > 0) || len(r.Groups) > r.Turns {
			t.Fatalf("inconsistent result: structure %v turns %d groups %d", r.Structure, r.Turns, len(r.Groups))
		}
		_ = r.GroupOf()
	})
}

func TestFileSpeakerFromAChildsAttribute(t *testing.T) {
	t.Parallel()
	a, err := ParseFile([]byte(`{"version":1,"name":"list","turn":{"selector":"li.entry",
		"speaker":{"selector":".who","attribute":"data-speaker","assistant":["bot"],"user":["human"]},
		"id":{"attribute":"data-entry"}}}`), "list.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := observe.ParseHTML("http://x/", `<ol>
<li class="entry" data-entry="e1"><span class="who" data-speaker="human">Ada</span><p>question</p></li>
<li class="entry" data-entry="e2"><span class="who" data-speaker="bot">Helper</span><p>answer</p></li></ol>`)
	if err != nil {
		t.Fatal(err)
	}
	r := a.Groups(doc)
	if len(r.Groups) != 1 || r.Groups[0].ID != "e2" || r.Groups[0].Text != "answer" || r.Turns != 2 || len(r.Users) != 1 {
		t.Fatalf("got %+v", r)
	}
}
