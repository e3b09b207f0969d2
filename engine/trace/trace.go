// Package trace collects the engine's decisions as ordered events and
// renders them as a normalised text trace: one event per line, "kind
// key=value …", values quoted when they hold spaces. Golden traces under
// recordings/ are this text. No engine code knows about godog or goldie; the
// harness turns events into goldens and reports.
package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Attr is one key=value of an event.
type Attr struct {
	Key   string
	Value string
}

// Event is one engine decision.
type Event struct {
	Kind  string
	Attrs []Attr
}

// Get returns the value of key, "" when absent.
func (e Event) Get(key string) string {
	for _, a := range e.Attrs {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// Tracer receives events. Implementations must be safe for concurrent use.
type Tracer interface {
	Emit(Event)
}

// A builds an attribute from any value.
func A(key string, v any) Attr {
	switch x := v.(type) {
	case string:
		return Attr{key, x}
	case []string:
		return Attr{key, strings.Join(x, ",")}
	default:
		return Attr{key, fmt.Sprint(x)}
	}
}

// E builds an event.
func E(kind string, attrs ...Attr) Event { return Event{Kind: kind, Attrs: attrs} }

// Discard drops every event.
var Discard Tracer = discard{}

type discard struct{}

func (discard) Emit(Event) {}

// Log keeps events in order. Normalize, when set, rewrites every value
// before it is stored (e.g. the sim's loopback URL to "{sim}").
type Log struct {
	Normalize func(string) string

	mu     sync.Mutex
	events []Event
}

// Emit implements Tracer.
func (l *Log) Emit(e Event) {
	if l.Normalize != nil {
		attrs := make([]Attr, len(e.Attrs))
		for i, a := range e.Attrs {
			attrs[i] = Attr{a.Key, l.Normalize(a.Value)}
		}
		e.Attrs = attrs
	}
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// Events returns a copy of the events so far.
func (l *Log) Events() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

// Format renders events as text, one per line.
func Format(events []Event) []byte {
	var b bytes.Buffer
	for _, e := range events {
		b.WriteString(e.Kind)
		for _, a := range e.Attrs {
			b.WriteByte(' ')
			b.WriteString(a.Key)
			b.WriteByte('=')
			b.WriteString(formatValue(a.Value))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func formatValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\"\\=") && strconv.IsPrint(firstRune(v)) {
		return v
	}
	return strconv.Quote(v)
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return ' '
}

// Parse reads the text form back into events, so goldens can be compared
// as data.
func Parse(data []byte) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if strings.TrimSpace(s) == "" {
			continue
		}
		kind, rest, _ := strings.Cut(s, " ")
		e := Event{Kind: kind}
		for rest != "" {
			k, after, ok := strings.Cut(rest, "=")
			if !ok {
				return nil, fmt.Errorf("trace: line %d: attribute without '=': %q", line, rest)
			}
			var v string
			if strings.HasPrefix(after, `"`) {
				q, err := strconv.QuotedPrefix(after)
				if err != nil {
					return nil, fmt.Errorf("trace: line %d: bad quoted value: %w", line, err)
				}
				v, _ = strconv.Unquote(q)
				after = after[len(q):]
			} else {
				v, after, _ = strings.Cut(after, " ")
				after = " " + after
			}
			e.Attrs = append(e.Attrs, Attr{k, v})
			rest = strings.TrimPrefix(after, " ")
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
