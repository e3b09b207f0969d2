package observe

import (
	"unsafe"

	"golang.org/x/net/html"
)

// nodeTable is the per-element index of a Document: an open-addressing
// hash table (linear probing) keyed by the node's address, which never
// changes as the garbage collector does not move objects. A page holds
// about one entry per element and every element is entered once, so this
// is the index's hottest structure: one allocation, 16 bytes a slot, about
// twice as fast as a Go map with the same keys. The slots hold the nodes
// themselves, so the table keeps its nodes alive as a map would.
//
// Entries are put in batches: put queues, and the queue is entered when it
// is full or before any read. Entering a batch in one tight loop lets the
// processor overlap the cache misses of its random slots, which entering
// each one amid the walk's other work does not.
type nodeTable struct {
	slots   []nodeSlot
	used    int
	shift   uint       // 64 - log2(len(slots))
	pending []nodeSlot // put but not yet entered
}

const nodeBatch = 1024

type nodeSlot struct {
	node *html.Node
	seq  int32
	ff   uint32 // frame index << 8 | flags
}

// maxFrameIndex bounds the frames a Document can index (24 bits of a slot).
const maxFrameIndex = 1 << 24

// init sizes the table for about hint entries.
func (t *nodeTable) init(hint int) {
	size, bits := 16, uint(4)
	for size*7 < hint*10 {
		size <<= 1
		bits++
	}
	t.slots = make([]nodeSlot, size)
	t.used = 0
	t.shift = 64 - bits
	if t.pending == nil {
		t.pending = make([]nodeSlot, 0, min(nodeBatch, max(hint, 16)))
	}
}

// flush enters the queued entries.
func (t *nodeTable) flush() {
	for _, s := range t.pending {
		t.enter(s)
	}
	t.pending = t.pending[:0]
}

func (t *nodeTable) home(n *html.Node) int {
	return int(uint64(uintptr(unsafe.Pointer(n))) * 0x9E3779B97F4A7C15 >> t.shift)
}

// get returns the entry of n.
func (t *nodeTable) get(n *html.Node) (nodeInfo, bool) {
	if len(t.pending) > 0 {
		t.flush()
	}
	if n == nil || len(t.slots) == 0 {
		return nodeInfo{}, false
	}
	mask := len(t.slots) - 1
	for i := t.home(n); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.node == n {
			return nodeInfo{seq: s.seq, frame: int32(s.ff >> 8), flags: uint8(s.ff)}, true
		}
		if s.node == nil {
			return nodeInfo{}, false
		}
	}
}

// at returns the entry of n, the zero entry when n has none.
func (t *nodeTable) at(n *html.Node) nodeInfo {
	in, _ := t.get(n)
	return in
}

// put enters or replaces the entry of n (not nil); entries put later win.
func (t *nodeTable) put(n *html.Node, in nodeInfo) {
	if t.pending == nil {
		t.pending = make([]nodeSlot, 0, nodeBatch)
	}
	t.pending = append(t.pending, nodeSlot{node: n, seq: in.seq, ff: uint32(in.frame)<<8 | uint32(in.flags)})
	if len(t.pending) == cap(t.pending) {
		t.flush()
	}
}

func (t *nodeTable) enter(e nodeSlot) {
	if len(t.slots) == 0 || (t.used+1)*10 > len(t.slots)*7 {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := t.home(e.node); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.node == nil || s.node == e.node {
			if s.node == nil {
				t.used++
			}
			*s = e
			return
		}
	}
}

func (t *nodeTable) grow() {
	old := t.slots
	t.init(max(2*t.used, 8))
	for _, s := range old {
		if s.node != nil {
			mask := len(t.slots) - 1
			for i := t.home(s.node); ; i = (i + 1) & mask {
				if t.slots[i].node == nil {
					t.slots[i] = s
					t.used++
					break
				}
			}
		}
	}
}
