package monitor

import (
	"fmt"
	"strings"
	"testing"
)

// realisticObservation is a chat page: 60 controls and 4000 characters of
// text in 40 paragraphs, with a volatile counter.
func realisticObservation(variant int) Observation {
	o := Observation{
		SnapshotID: fmt.Sprint("snap-", variant),
		Tab:        "t1",
		URL:        "https://chat.example/c/8f2e",
		FrameScope: "doc-7/main",
	}
	para := strings.Repeat("The assistant answered the question in detail. ", 3)[:99]
	for i := range 40 {
		o.Texts = append(o.Texts, fmt.Sprintf("%s%d", para, i%10))
	}
	o.Texts[0] = fmt.Sprintf("%d new. ", variant) + o.Texts[0]
	for i := range 60 {
		o.Controls = append(o.Controls, Control{
			Key:  fmt.Sprint("k", i),
			Role: []string{"button", "link", "textbox", "menuitem"}[i%4],
			Name: fmt.Sprintf("Conversation %d", i),
		})
	}
	o.Controls[0].Expanded = variant%2 == 0
	o.Controls[2].Value = fmt.Sprint("draft ", variant%3)
	o.Media = []Media{{Kind: "image", Ready: true}}
	return o
}

// BenchmarkMonitorAct measures one action plus one observation plus Pending,
// the cost the engine pays per operation.
func BenchmarkMonitorAct(b *testing.B) {
	var obs [8]Observation
	for i := range obs {
		obs[i] = realisticObservation(i)
	}
	chars := 0
	for _, t := range obs[0].Texts {
		chars += len(t)
	}
	if chars < 4000 || len(obs[0].Controls) != 60 {
		b.Fatalf("got %d chars and %d controls, want ≥ 4000 and 60", chars, len(obs[0].Controls))
	}
	actions := []Action{clickMenu, clickNext, {Op: "fill", Tab: "t1", Role: "textbox", Name: "Message", Value: "hello there"}}
	m := New(Config{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Act(actions[i%len(actions)])
		m.Observe(obs[i%len(obs)])
		m.Pending()
		i++
	}
}

func BenchmarkFingerprint(b *testing.B) {
	o := realisticObservation(1)
	b.ReportAllocs()
	for b.Loop() {
		Fingerprint(o)
	}
}
