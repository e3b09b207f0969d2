package trace

import (
	"strconv"
	"strings"
)

// Lab names (SPEC LIB-1). A golden never holds an id the page made up:
// Names gives every answer group the lab's name, the same for every driver
// and every report, while recorded sessions keep the page's ids.
//
//   - a group first seen in a baseline is named by its position there,
//     b1, b2, … (a name already taken gets a suffix, b1.2);
//   - any other group is named by order of first appearance, a1, a2, …;
//   - an id the page swapped while the answer was generating (the event
//     that followed it says was=<the first id>) takes the name of the id it
//     replaced, so the swap reads as one answer.
//
// The ids are read from the attributes that hold them: group and was (one
// id), ids (a baseline, comma-separated) and, inside evidence, "new group
// <id>". Everything else is left as it is.
func Names(events []Event) []Event {
	n := namer{names: map[string]string{}, taken: map[string]bool{}, alias: map[string]string{}}
	for _, e := range events {
		if was, id := e.Get(KeyWas), e.Get("group"); was != "" && id != "" && id != was {
			n.alias[id] = was
		}
	}
	out := make([]Event, len(events))
	for i, e := range events {
		attrs := make([]Attr, len(e.Attrs))
		for j, a := range e.Attrs {
			switch a.Key {
			case "group", KeyWas:
				if a.Value != "" {
					a.Value = n.name(a.Value)
				}
			case "ids":
				if e.Kind == "baseline" && a.Value != "" {
					ids := strings.Split(a.Value, ",")
					for k, id := range ids {
						ids[k] = n.baseline(id, k+1)
					}
					a.Value = strings.Join(ids, ",")
				}
			case "evidence":
				a.Value = n.evidence(a.Value)
			}
			attrs[j] = a
		}
		out[i] = Event{Kind: e.Kind, Attrs: attrs}
	}
	return out
}

// KeyWas is the attribute an answer event carries when the page swapped
// the id of the answer it followed: the id it had before.
const KeyWas = "was"

// Golden is the trace as goldens and reports hold it: the lab's names
// (Names), one event per line (Format).
func Golden(events []Event) []byte { return Format(Names(events)) }

type namer struct {
	names   map[string]string // page id -> lab name
	taken   map[string]bool   // lab names in use
	alias   map[string]string // swapped id -> the id it replaced
	answers int
}

func (n *namer) root(id string) string {
	for i := 0; i < 8; i++ { // a chain of swaps, bounded
		w, ok := n.alias[id]
		if !ok || w == id {
			break
		}
		id = w
	}
	return id
}

func (n *namer) claim(id, want string) string {
	name := want
	for k := 2; n.taken[name]; k++ {
		name = want + "." + strconv.Itoa(k)
	}
	n.taken[name] = true
	n.names[id] = name
	return name
}

// name is the lab name of id, given on its first appearance.
func (n *namer) name(id string) string {
	id = n.root(id)
	if s, ok := n.names[id]; ok {
		return s
	}
	n.answers++
	want := "a" + strconv.Itoa(n.answers)
	for n.taken[want] {
		n.answers++
		want = "a" + strconv.Itoa(n.answers)
	}
	return n.claim(id, want)
}

// baseline is the lab name of id, first seen at position pos of a
// baseline.
func (n *namer) baseline(id string, pos int) string {
	id = n.root(id)
	if s, ok := n.names[id]; ok {
		return s
	}
	return n.claim(id, "b"+strconv.Itoa(pos))
}

const newGroup = "new group "

// evidence names the id of every "new group <id>" in v.
func (n *namer) evidence(v string) string {
	if !strings.Contains(v, newGroup) {
		return v
	}
	var b strings.Builder
	for {
		i := strings.Index(v, newGroup)
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i+len(newGroup)])
		v = v[i+len(newGroup):]
		end := strings.IndexAny(v, " ;,")
		if end < 0 {
			end = len(v)
		}
		if end > 0 {
			b.WriteString(n.name(v[:end]))
		}
		v = v[end:]
	}
}
