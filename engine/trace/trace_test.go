package trace_test

import (
	"reflect"
	"testing"

	"github.com/replaylab/replaylab/engine/trace"
)

func TestFormatParseRoundTrip(t *testing.T) {
	t.Parallel()
	events := []trace.Event{
		trace.E("navigate", trace.A("url", "{sim}/chat")),
		trace.E("fill", trace.A("target", `role=textbox name="Message"`), trace.A("value", "two words"), trace.A("verified", true)),
		trace.E("answer.result", trace.A("text", "line\nbreak = \"quoted\""), trace.A("empty", "")),
		trace.E("bare"),
	}
	got, err := trace.Parse(trace.Format(events))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, events) {
		t.Fatalf("round trip:\ngot  %#v\nwant %#v", got, events)
	}
}

func TestLogNormalizes(t *testing.T) {
	t.Parallel()
	l := &trace.Log{Normalize: func(s string) string {
		if s == "http://127.0.0.1:4242/chat" {
			return "{sim}/chat"
		}
		return s
	}}
	l.Emit(trace.E("navigate", trace.A("url", "http://127.0.0.1:4242/chat")))
	if got := l.Events()[0].Get("url"); got != "{sim}/chat" {
		t.Fatalf("got %q", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("a b=c d=\"e f\"\n"))
	f.Add([]byte("x y=\"unterminated\n"))
	f.Add([]byte("k =\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := trace.Parse(data)
		if err != nil {
			return
		}
		// what parses must survive a round trip
		again, err := trace.Parse(trace.Format(events))
		if err != nil {
			t.Fatalf("reparse of formatted events failed: %v", err)
		}
		if len(again) != len(events) {
			t.Fatalf("round trip changed the event count: %d → %d", len(events), len(again))
		}
	})
}
