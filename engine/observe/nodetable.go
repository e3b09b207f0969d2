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
//
// Nodes the fast tree builder made live in slabs (arrays of html.Node):
// their entries are kept by position in a dense array per slab (8 bytes a
// node, no hashing), and only nodes from html.Parse go through the hash
// table, which is allocated on first use.
type nodeTable struct {
	dense   []denseSlab
	hint    int // entries the hash table is sized for when first used
	slots   []nodeSlot
	used    int
	shift   uint       // 64 - log2(len(slots))
	pending []nodeSlot // put but not yet entered
}

// denseSlab holds the entries of the nodes of one slab, by index; seq 0
// means no entry. lo and hi bound the slab's addresses (the garbage
// collector does not move heap objects, and the tree keeps the slab
// alive).
type denseSlab struct {
	lo, hi uintptr
	info   []denseInfo
}

type denseInfo struct {
	seq int32
	ff  uint32 // frame index << 8 | flags
}

const nodeSize = unsafe.Sizeof(html.Node{})

// addDense makes the nodes of slab addressable by position.
func (t *nodeTable) addDense(slab []html.Node) {
	if len(slab) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(&slab[0]))
	t.dense = append(t.dense, denseSlab{lo: lo, hi: lo + uintptr(len(slab))*nodeSize, info: make([]denseInfo, len(slab))})
}

// takeDense makes the nodes of slab addressable with the entries prev
// holds for them, taking them over (prev must not be read afterwards);
// false when prev has no entries for slab.
func (t *nodeTable) takeDense(slab []html.Node, prev *nodeTable) bool {
	if len(slab) == 0 {
		return true
	}
	lo := uintptr(unsafe.Pointer(&slab[0]))
	for i := range prev.dense {
		if pd := &prev.dense[i]; pd.lo == lo && len(pd.info) == len(slab) {
			t.dense = append(t.dense, *pd)
			pd.info = nil
			return true
		}
	}
	return false
}

// denseOf returns the dense entry of n, nil when n is in no slab.
func (t *nodeTable) denseOf(n *html.Node) *denseInfo {
	p := uintptr(unsafe.Pointer(n))
	for i := range t.dense {
		if d := &t.dense[i]; p >= d.lo && p < d.hi {
			return &d.info[(p-d.lo)/nodeSize]
		}
	}
	return nil
}

const nodeBatch = 1024

type nodeSlot struct {
	node *html.Node
	seq  int32
	ff   uint32 // frame index << 8 | flags
}

// maxFrameIndex bounds the frames a Document can index (24 bits of a slot).
const maxFrameIndex = 1 << 24

// init sizes the table for about hint entries; the hash table is
// allocated when the first entry outside the slabs is put.
func (t *nodeTable) init(hint int) {
	t.hint = hint
}

// alloc sizes the hash table for about hint entries.
func (t *nodeTable) alloc(hint int) {
	size, bits := 16, uint(4)
	for size*7 < hint*10 {
		size <<= 1
		bits++
	}
	t.slots = make([]nodeSlot, size)
	t.used = 0
	t.shift = 64 - bits
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
	if n == nil {
		return nodeInfo{}, false
	}
	if len(t.dense) > 0 {
		if e := t.denseOf(n); e != nil {
			if e.seq == 0 {
				return nodeInfo{}, false
			}
			return nodeInfo{seq: e.seq, frame: int32(e.ff >> 8), flags: uint8(e.ff)}, true
		}
	}
	if len(t.slots) == 0 {
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
	if len(t.dense) > 0 {
		if e := t.denseOf(n); e != nil {
			*e = denseInfo{seq: in.seq, ff: uint32(in.frame)<<8 | uint32(in.flags)}
			return
		}
	}
	if t.pending == nil {
		t.pending = make([]nodeSlot, 0, min(nodeBatch, max(t.hint, 16)))
	}
	t.pending = append(t.pending, nodeSlot{node: n, seq: in.seq, ff: uint32(in.frame)<<8 | uint32(in.flags)})
	if len(t.pending) == cap(t.pending) {
		t.flush()
	}
}

func (t *nodeTable) enter(e nodeSlot) {
	if len(t.slots) == 0 {
		t.alloc(t.hint)
	}
	if (t.used+1)*10 > len(t.slots)*7 {
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
	t.alloc(max(2*t.used, 8))
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
