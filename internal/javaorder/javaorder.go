// Package javaorder reproduces the iteration order of java.util.HashMap,
// which leaks into Kafka's output: kafka-dump-log prints its per-file
// summaries from HashMaps keyed by path, and the broker writes producer
// snapshots from a HashMap keyed by producer id.
package javaorder

// kafka-dump-log (org.apache.kafka.tools.DumpLogSegments, Kafka 4.4.0) keeps
// its end-of-run summaries in java.util.HashMap<String,_> instances created
// with the default constructor and filled only by computeIfAbsent, keyed by
// File.getAbsolutePath(). With several files the summaries come out in that
// map's iteration order, which depends on the whole history of calls: the
// table grows at 0.75 load and, for computeIfAbsent, only at the start of
// the call after the one that crossed the threshold; computeIfAbsent puts a
// new key at the head of its bucket while put appends it; a bucket of 8 or
// more keys doubles a table smaller than 64 and turns into a red-black tree
// in a larger one, where the tree's root moves to the front of the bucket.
// HashMap replays those operations on the keys alone, after the JDK's
// HashMap (identical from JDK 8 to 25), so the order is Java's own.

const (
	jhmInitialCapacity = 16 // DEFAULT_INITIAL_CAPACITY
	jhmTreeify         = 8  // TREEIFY_THRESHOLD
	jhmUntreeify       = 6  // UNTREEIFY_THRESHOLD
	jhmMinTreeCapacity = 64 // MIN_TREEIFY_CAPACITY
)

// jhmNode is HashMap.Node, or HashMap.TreeNode when tree is set.
type jhmNode[K comparable] struct {
	hash int32 // the spread hash, h ^ (h >>> 16)
	key  K
	next *jhmNode[K]

	tree                      bool
	parent, left, right, prev *jhmNode[K]
	red                       bool
}

// HashMap is the key order of a java.util.HashMap built by the default
// constructor. hashCode and compareTo are the key class's (compareTo orders
// keys of equal hash inside a tree bin; both String and Long are
// Comparable, so HashMap's identity-hash tie break is never reached for
// distinct keys).
type HashMap[K comparable] struct {
	hashCode  func(K) int32
	compareTo func(a, b K) int
	table     []*jhmNode[K]
	size      int
	threshold int
}

// NewStringMap replays a HashMap<String, _>.
func NewStringMap() *HashMap[string] {
	return &HashMap[string]{hashCode: StringHash, compareTo: javaStringCompare}
}

// NewLongMap replays a HashMap<Long, _>.
func NewLongMap() *HashMap[int64] {
	return &HashMap[int64]{
		hashCode: LongHash,
		compareTo: func(a, b int64) int {
			switch {
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		},
	}
}

// SpreadHash is HashMap.hash: the high half folded into the low half.
func SpreadHash(h int32) int32 { return int32(uint32(h) ^ uint32(h)>>16) }

// Len is the number of keys.
func (m *HashMap[K]) Len() int { return m.size }

// Keys returns the keys in iteration order (keySet, forEach, entrySet).
func (m *HashMap[K]) Keys() []K {
	out := make([]K, 0, m.size)
	for _, e := range m.table {
		for ; e != nil; e = e.next {
			out = append(out, e.key)
		}
	}
	return out
}

// ComputeIfAbsent is HashMap.computeIfAbsent with a function that never
// returns null; it reports whether k was added.
func (m *HashMap[K]) ComputeIfAbsent(k K) bool {
	m.Touch()
	h := SpreadHash(m.hashCode(k))
	i := int(h) & (len(m.table) - 1)
	first := m.table[i]
	binCount := 0
	if first != nil {
		if first.tree {
			if m.findTree(first, h, k) != nil {
				return false
			}
			m.putTree(first, h, k)
			m.size++
			return true
		}
		for e := first; e != nil; e = e.next {
			if e.hash == h && e.key == k {
				return false
			}
			binCount++
		}
	}
	m.table[i] = &jhmNode[K]{hash: h, key: k, next: first}
	if binCount >= jhmTreeify-1 {
		m.treeifyBin(h)
	}
	m.size++
	return true
}

// Touch is what ComputeIfAbsent does for a key already present: only the
// resize check it starts with. Callers that know k is present use it to
// skip hashing the key.
func (m *HashMap[K]) Touch() {
	if m.size > m.threshold || len(m.table) == 0 {
		m.resize()
	}
}

// Put is HashMap.put; it reports whether k was added.
func (m *HashMap[K]) Put(k K) bool {
	if len(m.table) == 0 {
		m.resize()
	}
	h := SpreadHash(m.hashCode(k))
	i := int(h) & (len(m.table) - 1)
	p := m.table[i]
	switch {
	case p == nil:
		m.table[i] = &jhmNode[K]{hash: h, key: k}
	case p.hash == h && p.key == k:
		return false
	case p.tree:
		if m.findTree(p, h, k) != nil {
			return false
		}
		m.putTree(p, h, k)
	default:
		for binCount := 0; ; binCount++ {
			e := p.next
			if e == nil {
				p.next = &jhmNode[K]{hash: h, key: k}
				if binCount >= jhmTreeify-1 {
					m.treeifyBin(h)
				}
				break
			}
			if e.hash == h && e.key == k {
				return false
			}
			p = e
		}
	}
	m.size++
	if m.size > m.threshold {
		m.resize()
	}
	return true
}

// resize doubles the table (HashMap.resize), keeping each bucket's order in
// its low and high halves.
func (m *HashMap[K]) resize() {
	old := m.table
	if len(old) == 0 {
		m.table = make([]*jhmNode[K], jhmInitialCapacity)
		m.threshold = jhmInitialCapacity * 3 / 4
		return
	}
	n := 2 * len(old)
	m.table = make([]*jhmNode[K], n)
	m.threshold *= 2
	bit := int32(len(old))
	for j, e := range old {
		switch {
		case e == nil:
		case e.next == nil:
			m.table[int(e.hash)&(n-1)] = e
		case e.tree:
			m.split(e, j, bit)
		default:
			var lo, loTail, hi, hiTail *jhmNode[K]
			for e != nil {
				next := e.next
				if e.hash&bit == 0 {
					if loTail == nil {
						lo = e
					} else {
						loTail.next = e
					}
					loTail = e
				} else {
					if hiTail == nil {
						hi = e
					} else {
						hiTail.next = e
					}
					hiTail = e
				}
				e = next
			}
			if loTail != nil {
				loTail.next = nil
				m.table[j] = lo
			}
			if hiTail != nil {
				hiTail.next = nil
				m.table[j+int(bit)] = hi
			}
		}
	}
}

// treeifyBin turns the bucket of hash h into a tree, or doubles a table
// smaller than MIN_TREEIFY_CAPACITY instead.
func (m *HashMap[K]) treeifyBin(h int32) {
	if len(m.table) < jhmMinTreeCapacity {
		m.resize()
		return
	}
	i := int(h) & (len(m.table) - 1)
	var prev *jhmNode[K]
	for e := m.table[i]; e != nil; e = e.next {
		e.tree, e.prev = true, prev
		prev = e
	}
	if m.table[i] != nil {
		m.treeify(m.table[i])
	}
}

// dir is the side x goes to below p: hash first, then compareTo.
func (m *HashMap[K]) dir(h int32, k K, p *jhmNode[K]) int {
	switch {
	case p.hash > h:
		return -1
	case p.hash < h:
		return 1
	}
	if c := m.compareTo(k, p.key); c != 0 {
		return c
	}
	// Equal keys never reach here: both callers look for k first.
	return -1
}

// treeify builds the red-black tree of the bucket list starting at head
// (TreeNode.treeify) and moves its root to the front of the bucket.
func (m *HashMap[K]) treeify(head *jhmNode[K]) {
	var root *jhmNode[K]
	for x := head; x != nil; {
		next := x.next
		x.left, x.right = nil, nil
		if root == nil {
			x.parent, x.red = nil, false
			root = x
		} else {
			for p := root; ; {
				d := m.dir(x.hash, x.key, p)
				xp := p
				if d <= 0 {
					p = p.left
				} else {
					p = p.right
				}
				if p == nil {
					x.parent = xp
					if d <= 0 {
						xp.left = x
					} else {
						xp.right = x
					}
					root = balanceInsertion(root, x)
					break
				}
			}
		}
		x = next
	}
	m.moveRootToFront(root)
}

func (m *HashMap[K]) findTree(root *jhmNode[K], h int32, k K) *jhmNode[K] {
	for p := root; p != nil; {
		switch {
		case p.hash > h:
			p = p.left
		case p.hash < h:
			p = p.right
		case p.key == k:
			return p
		default:
			if m.compareTo(k, p.key) < 0 {
				p = p.left
			} else {
				p = p.right
			}
		}
	}
	return nil
}

// putTree adds k, known to be absent, to the tree bin whose root is root
// (TreeNode.putTreeVal): the new node follows its tree parent in the
// bucket's list.
func (m *HashMap[K]) putTree(root *jhmNode[K], h int32, k K) {
	for p := root; ; {
		d := m.dir(h, k, p)
		xp := p
		if d <= 0 {
			p = p.left
		} else {
			p = p.right
		}
		if p == nil {
			xpn := xp.next
			x := &jhmNode[K]{hash: h, key: k, next: xpn, tree: true, parent: xp, prev: xp}
			if d <= 0 {
				xp.left = x
			} else {
				xp.right = x
			}
			xp.next = x
			if xpn != nil {
				xpn.prev = x
			}
			m.moveRootToFront(balanceInsertion(root, x))
			return
		}
	}
}

func (m *HashMap[K]) moveRootToFront(root *jhmNode[K]) {
	if root == nil || len(m.table) == 0 {
		return
	}
	i := int(root.hash) & (len(m.table) - 1)
	first := m.table[i]
	if root == first {
		return
	}
	m.table[i] = root
	rp, rn := root.prev, root.next
	if rn != nil {
		rn.prev = rp
	}
	if rp != nil {
		rp.next = rn
	}
	if first != nil {
		first.prev = root
	}
	root.next, root.prev = first, nil
}

// split is TreeNode.split: a tree bucket divided by resize into the low and
// high halves, each a plain list again when it has 6 keys or fewer.
func (m *HashMap[K]) split(b *jhmNode[K], index int, bit int32) {
	var lo, loTail, hi, hiTail *jhmNode[K]
	lc, hc := 0, 0
	for e := b; e != nil; {
		next := e.next
		e.next = nil
		if e.hash&bit == 0 {
			if e.prev = loTail; loTail == nil {
				lo = e
			} else {
				loTail.next = e
			}
			loTail = e
			lc++
		} else {
			if e.prev = hiTail; hiTail == nil {
				hi = e
			} else {
				hiTail.next = e
			}
			hiTail = e
			hc++
		}
		e = next
	}
	if lo != nil {
		if lc <= jhmUntreeify {
			m.table[index] = untreeify(lo)
		} else {
			m.table[index] = lo
			if hi != nil {
				m.treeify(lo)
			}
		}
	}
	if hi != nil {
		if hc <= jhmUntreeify {
			m.table[index+int(bit)] = untreeify(hi)
		} else {
			m.table[index+int(bit)] = hi
			if lo != nil {
				m.treeify(hi)
			}
		}
	}
}

// untreeify replaces tree nodes by plain ones, in list order.
func untreeify[K comparable](head *jhmNode[K]) *jhmNode[K] {
	var hd, tl *jhmNode[K]
	for q := head; q != nil; q = q.next {
		p := &jhmNode[K]{hash: q.hash, key: q.key}
		if tl == nil {
			hd = p
		} else {
			tl.next = p
		}
		tl = p
	}
	return hd
}

// Red-black balancing as in HashMap.TreeNode (after CLR).

func rotateLeft[K comparable](root, p *jhmNode[K]) *jhmNode[K] {
	if p == nil || p.right == nil {
		return root
	}
	r := p.right
	p.right = r.left
	if p.right != nil {
		p.right.parent = p
	}
	r.parent = p.parent
	switch pp := r.parent; {
	case pp == nil:
		root = r
		r.red = false
	case pp.left == p:
		pp.left = r
	default:
		pp.right = r
	}
	r.left = p
	p.parent = r
	return root
}

func rotateRight[K comparable](root, p *jhmNode[K]) *jhmNode[K] {
	if p == nil || p.left == nil {
		return root
	}
	l := p.left
	p.left = l.right
	if p.left != nil {
		p.left.parent = p
	}
	l.parent = p.parent
	switch pp := l.parent; {
	case pp == nil:
		root = l
		l.red = false
	case pp.right == p:
		pp.right = l
	default:
		pp.left = l
	}
	l.right = p
	p.parent = l
	return root
}

func balanceInsertion[K comparable](root, x *jhmNode[K]) *jhmNode[K] {
	x.red = true
	for {
		xp := x.parent
		if xp == nil {
			x.red = false
			return x
		}
		xpp := xp.parent
		if !xp.red || xpp == nil {
			return root
		}
		if xppl := xpp.left; xp == xppl {
			if xppr := xpp.right; xppr != nil && xppr.red {
				xppr.red, xp.red, xpp.red = false, false, true
				x = xpp
				continue
			}
			if x == xp.right {
				x = xp
				root = rotateLeft(root, x)
				xp = x.parent
				xpp = nil
				if xp != nil {
					xpp = xp.parent
				}
			}
			if xp != nil {
				xp.red = false
				if xpp != nil {
					xpp.red = true
					root = rotateRight(root, xpp)
				}
			}
		} else {
			if xppl != nil && xppl.red {
				xppl.red, xp.red, xpp.red = false, false, true
				x = xpp
				continue
			}
			if x == xp.left {
				x = xp
				root = rotateRight(root, x)
				xp = x.parent
				xpp = nil
				if xp != nil {
					xpp = xp.parent
				}
			}
			if xp != nil {
				xp.red = false
				if xpp != nil {
					xpp.red = true
					root = rotateLeft(root, xpp)
				}
			}
		}
	}
}

// javaStringCompare is String.compareTo: UTF-16 code units, then length.
func javaStringCompare(a, b string) int {
	ua, ub := utf16Units(a), utf16Units(b)
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return len(ua) - len(ub)
}

func utf16Units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}

// HasTreeBin reports a bucket that became a red-black tree (tests use it
// to know their cases reach that path).
func (m *HashMap[K]) HasTreeBin() bool {
	for _, e := range m.table {
		if e != nil && e.tree {
			return true
		}
	}
	return false
}

// Strings is the iteration order of a HashMap<String, _> filled by put in
// the order of keys.
func Strings(keys []string) []string {
	m := NewStringMap()
	for _, k := range keys {
		m.Put(k)
	}
	return m.Keys()
}

// Longs is Strings for Long keys.
func Longs(keys []int64) []int64 {
	m := NewLongMap()
	for _, k := range keys {
		m.Put(k)
	}
	return m.Keys()
}

// StringHash is String.hashCode: 31*h + c over the UTF-16 code units.
func StringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// LongHash is Long.hashCode: the high and low 32 bits xored.
func LongHash(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }
