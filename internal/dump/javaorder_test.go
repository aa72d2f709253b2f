package dump

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/javaorder"
)

// A jhmCase is a sequence of HashMap calls: computeIfAbsent ('c') or put
// ('p') of a key, on a HashMap<String,_> or, with long set, HashMap<Long,_>.
type jhmCase struct {
	name string
	long bool
	ops  []jhmOp
}

type jhmOp struct {
	put bool
	key string
}

func computeAll(keys ...string) []jhmOp {
	ops := make([]jhmOp, len(keys))
	for i, k := range keys {
		ops[i] = jhmOp{key: k}
	}
	return ops
}

func putAll(keys ...string) []jhmOp {
	ops := computeAll(keys...)
	for i := range ops {
		ops[i].put = true
	}
	return ops
}

// goOrder replays c on javaHashMap.
func (c jhmCase) goOrder() []string {
	if c.long {
		m := newJavaLongMap()
		for _, op := range c.ops {
			v, err := strconv.ParseInt(op.key, 10, 64)
			if err != nil {
				panic(err)
			}
			if op.put {
				m.Put(v)
			} else {
				m.ComputeIfAbsent(v)
			}
		}
		var out []string
		for _, k := range m.Keys() {
			out = append(out, strconv.FormatInt(k, 10))
		}
		return out
	}
	m := newJavaStringMap()
	for _, op := range c.ops {
		if op.put {
			m.Put(op.key)
		} else {
			m.ComputeIfAbsent(op.key)
		}
	}
	return m.Keys()
}

// firstSeen lists the distinct keys of c in the order first used.
func (c jhmCase) firstSeen() []string {
	seen := map[string]bool{}
	var out []string
	for _, op := range c.ops {
		if !seen[op.key] {
			seen[op.key] = true
			out = append(out, op.key)
		}
	}
	return out
}

// equalHashStrings returns 2^n distinct strings of one String.hashCode
// ("Aa" and "BB" hash alike), in lexical order.
func equalHashStrings(n int) []string {
	out := []string{""}
	for i := 0; i < n; i++ {
		var next []string
		for _, s := range out {
			next = append(next, s+"Aa", s+"BB")
		}
		out = next
	}
	return out
}

// bucketStrings returns n strings "<prefix><i>" whose spread hash masked by
// mask is one of buckets.
func bucketStrings(prefix string, n int, mask int32, buckets ...int32) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		s := prefix + strconv.Itoa(i)
		b := javaorder.SpreadHash(javaorder.StringHash(s)) & mask
		for _, want := range buckets {
			if b == want {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// learnningPaths are the nine files of the real-world corpus
// dipendrasaini__kafka-learnning-series that kafka-dump-log 4.4.0 reports
// non-consecutive offsets for, in the order it finds them.
var learnningPaths = func() []string {
	var out []string
	for _, dir := range []string{"kafka-logs-1", "kafka-logs-2", "kafka-logs"} {
		for _, seg := range []string{"30626", "60611", "90867"} {
			out = append(out, "/work/shared/realworld/segments/dipendrasaini__kafka-learnning-series/tmp/"+
				dir+"/invoice-0/000000000000000"+seg+".log")
		}
	}
	return out
}()

// knownCases pairs call sequences with the iteration order OpenJDK 17.0.15
// printed for them (testdata/javahashmap/HashMapOrder.java), as indexes
// into the case's keys in first-use order.
var knownCases = []struct {
	c    jhmCase
	want []int
}{
	// Kafka's own output on the corpus: the two 030626 segments of
	// kafka-logs-1 and -2 share bucket 2, the later one first.
	{jhmCase{name: "learnning-nonconsecutive", ops: computeAll(learnningPaths...)}, []int{8, 3, 0, 6, 1, 7, 4, 2, 5}},
	{jhmCase{name: "collision-compute", ops: computeAll("Aa", "BB", "x")}, []int{1, 0, 2}},
	{jhmCase{name: "collision-put", ops: putAll("Aa", "BB", "x")}, []int{0, 1, 2}},
	// 13 keys exceed 12 = 0.75*16: put doubles at once, computeIfAbsent
	// at the start of its next call, even for a key already present.
	{jhmCase{name: "13-compute", ops: computeAll(numbered("file-", 13)...)}, []int{9, 0, 10, 1, 11, 2, 12, 3, 4, 5, 6, 7, 8}},
	{jhmCase{name: "13-compute-then-hit", ops: computeAll(append(numbered("file-", 13), "file-0")...)}, []int{9, 1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12}},
	{jhmCase{name: "13-put", ops: putAll(numbered("file-", 13)...)}, []int{9, 1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12}},
	// 8 (compute) or 9 (put) keys in one bucket double a table under 64.
	{jhmCase{name: "8-equal-hash-compute", ops: computeAll(concat(numbered("k", 4), equalHashStrings(3))...)}, []int{11, 10, 9, 8, 7, 6, 5, 4, 0, 1, 2, 3}},
	{jhmCase{name: "9-equal-hash-put", ops: putAll(concat(numbered("k", 4), equalHashStrings(3), []string{"AaAaAaAa"})...)}, []int{4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 12}},
	// At 64 the bucket becomes a red-black tree ordered by compareTo.
	{jhmCase{name: "tree-compute", ops: computeAll(concat(equalHashStrings(4)[5:], numbered("k", 3), equalHashStrings(4)[:5])...)}, []int{6, 9, 10, 8, 7, 5, 4, 3, 2, 1, 0, 14, 15, 16, 17, 18, 11, 12, 13}},
	{jhmCase{name: "tree-put", ops: putAll(concat(equalHashStrings(4)[5:], numbered("k", 3), equalHashStrings(4)[:5])...)}, []int{3, 0, 18, 16, 17, 14, 15, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	// A tree bucket of two hashes split by a resize into two trees.
	{jhmCase{name: "tree-split", ops: computeAll(concat(bucketStrings("s", 20, 127, 9, 73), numbered("f", 60))...)}, []int{70, 72, 71, 74, 30, 73, 76, 32, 75, 31, 78, 34, 10, 6, 12, 15, 16, 18, 8, 4, 3, 1, 33, 77, 36, 20, 79, 35, 21, 38, 22, 37, 23, 24, 39, 25, 26, 27, 28, 29, 41, 40, 43, 42, 45, 44, 47, 46, 49, 48, 50, 52, 51, 54, 53, 56, 11, 9, 13, 14, 17, 19, 7, 5, 2, 0, 55, 58, 57, 59, 61, 60, 63, 62, 65, 64, 67, 66, 69, 68}},
	// Long keys, as in the producer snapshot's HashMap<Long,_>.
	{jhmCase{name: "long-put", long: true, ops: putAll("5", "-1", "4294967296", "21", "37", "-4294967297", "1")}, []int{1, 2, 5, 6, 0, 3, 4}},
}

func TestJavaHashMapKnownOrders(t *testing.T) {
	for _, tc := range knownCases {
		t.Run(tc.c.name, func(t *testing.T) {
			keys := tc.c.firstSeen()
			var want []string
			for _, i := range tc.want {
				want = append(want, keys[i])
			}
			if got := tc.c.goOrder(); !reflect.DeepEqual(got, want) {
				t.Errorf("order\n got %q\nwant %q", got, want)
			}
		})
	}
}

// The cases above must tell the behaviours apart, or they prove nothing.
func TestJavaHashMapKnownOrdersDiffer(t *testing.T) {
	byName := map[string][]int{}
	for _, tc := range knownCases {
		byName[tc.c.name] = tc.want
	}
	for _, pair := range [][2]string{
		{"collision-compute", "collision-put"},
		{"13-compute", "13-compute-then-hit"},
		{"13-compute", "13-put"},
		{"tree-compute", "tree-put"},
	} {
		if reflect.DeepEqual(byName[pair[0]], byName[pair[1]]) {
			t.Errorf("%s and %s have the same order", pair[0], pair[1])
		}
	}
}

// orderedMap feeds hits to javaHashMap as touch; that must be the same as
// computeIfAbsent of the present key.
func TestOrderedMapMatchesComputeIfAbsent(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 300; n++ {
		var om orderedMap[int]
		ref := newJavaStringMap()
		pool := concat(numbered("/p/", 1+rng.Intn(90)), equalHashStrings(4))
		for i := rng.Intn(400); i >= 0; i-- {
			k := pool[rng.Intn(len(pool))]
			om.get(k, func() int { return 0 })
			ref.ComputeIfAbsent(k)
		}
		if got, want := om.javaKeys(), ref.Keys(); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: orderedMap %q, javaHashMap %q", n, got, want)
		}
	}
}

// randomCases mixes path-like keys of varying length, equal-hash families,
// keys crafted into a few buckets, non-BMP text and repeated calls.
func randomCases(rng *rand.Rand, n int) []jhmCase {
	var cases []jhmCase
	for i := 0; i < n; i++ {
		c := jhmCase{name: fmt.Sprintf("random-%d", i), long: rng.Intn(5) == 0}
		var pool []string
		size := 1 + rng.Intn(1+[]int{12, 40, 150, 400}[rng.Intn(4)])
		if c.long {
			for len(pool) < size {
				switch rng.Intn(3) {
				case 0:
					pool = append(pool, strconv.FormatInt(rng.Int63n(1<<40)-1<<39, 10))
				case 1: // few buckets, many keys
					pool = append(pool, strconv.FormatInt(int64(rng.Intn(3))+256*int64(rng.Intn(200)), 10))
				default: // high and low words cancel in Long.hashCode
					v := int64(rng.Intn(1000))
					pool = append(pool, strconv.FormatInt(v<<32|v, 10))
				}
			}
		} else {
			eq := equalHashStrings(5)
			crafted := bucketStrings(fmt.Sprintf("b%d-", i), 60, 255, int32(rng.Intn(256)), int32(rng.Intn(256)))
			for len(pool) < size {
				switch rng.Intn(4) {
				case 0:
					pool = append(pool, eq[rng.Intn(len(eq))])
				case 1:
					pool = append(pool, crafted[rng.Intn(len(crafted))])
				case 2:
					pool = append(pool, fmt.Sprintf("/data/kafka-logs%s/topic-%d/%020d.log",
						strings.Repeat("-x", rng.Intn(4)), rng.Intn(30), rng.Intn(1<<20)))
				default:
					pool = append(pool, fmt.Sprintf("é\U0001F600%d\uFFFD", rng.Intn(500)))
				}
			}
		}
		mode := rng.Intn(3) // compute, put, or both
		for j := 0; j < size*2; j++ {
			k := pool[rng.Intn(len(pool))]
			c.ops = append(c.ops, jhmOp{key: k, put: mode == 1 || (mode == 2 && rng.Intn(2) == 0)})
		}
		cases = append(cases, c)
	}
	return cases
}

// javaOrders runs HashMapOrder.java on cases; it skips the test when there
// is no java.
func javaOrders(t *testing.T, cases []jhmCase) [][]string {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	var in strings.Builder
	for _, c := range cases {
		if c.long {
			in.WriteString("L\n")
		} else {
			in.WriteString("S\n")
		}
		for _, op := range c.ops {
			if op.put {
				in.WriteString("p ")
			} else {
				in.WriteString("c ")
			}
			in.WriteString(op.key + "\n")
		}
		in.WriteString(".\n")
	}
	src, err := filepath.Abs(filepath.Join("testdata", "javahashmap", "HashMapOrder.java"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, "-XX:TieredStopAtLevel=1", src)
	cmd.Stdin = strings.NewReader(in.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	var orders [][]string
	var cur []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if sc.Text() == "." {
			orders = append(orders, cur)
			cur = nil
			continue
		}
		cur = append(cur, sc.Text())
	}
	if len(orders) != len(cases) {
		t.Fatalf("java printed %d orders for %d cases", len(orders), len(cases))
	}
	return orders
}

// TestJavaHashMapMatchesJava compares javaHashMap with real HashMaps on the
// known cases and on random ones.
func TestJavaHashMapMatchesJava(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	var cases []jhmCase
	for _, tc := range knownCases {
		cases = append(cases, tc.c)
	}
	cases = append(cases, randomCases(rand.New(rand.NewSource(10)), 400)...)
	orders := javaOrders(t, cases)
	trees := 0
	for i, c := range cases {
		got := c.goOrder()
		if !reflect.DeepEqual(got, orders[i]) {
			t.Errorf("%s: order\n got %q\njava %q", c.name, got, orders[i])
		}
		if i < len(knownCases) {
			idx := map[string]int{}
			for j, k := range c.firstSeen() {
				idx[k] = j
			}
			var want []int
			for _, k := range orders[i] {
				want = append(want, idx[k])
			}
			if !reflect.DeepEqual(want, knownCases[i].want) {
				t.Errorf("%s: java now prints %v, knownCases has %v", c.name, want, knownCases[i].want)
			}
		}
		if c.hasTreeBin() {
			trees++
		}
	}
	// The random cases must reach tree bins, or they test lists only.
	if trees < 10 {
		t.Errorf("only %d cases built a tree bin", trees)
	}
}

func (c jhmCase) hasTreeBin() bool {
	if c.long {
		return false
	}
	m := newJavaStringMap()
	for _, op := range c.ops {
		if op.put {
			m.Put(op.key)
		} else {
			m.ComputeIfAbsent(op.key)
		}
	}
	return m.HasTreeBin()
}

// File.getAbsolutePath from a symlinked directory, as OpenJDK 17 prints it:
// user.dir is the physical directory and nothing is cleaned.
func TestJavaAbsolutePath(t *testing.T) {
	real, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	t.Chdir(link)
	t.Setenv("PWD", link)
	for _, tc := range []struct{ in, want string }{
		{"x.log", real + "/x.log"},
		{"./a/../x.log", real + "/./a/../x.log"},
		{"a//b/", real + "/a/b"},
		{"/abs//dir/./y.log", "/abs/dir/./y.log"},
	} {
		if got := javaAbsolutePath(tc.in); got != tc.want {
			t.Errorf("javaAbsolutePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// dumpindex.go records a time-index finding as get then set; that is one
// computeIfAbsent in Kafka. Twelve keys fill the 16-slot table, the 13th
// goes over; a set after it must not double the table as a call would.
func TestOrderedMapSetIsNoCall(t *testing.T) {
	var om orderedMap[[][2]int64]
	keys := numbered("file-", 13)
	for _, k := range keys {
		l := om.get(k, func() [][2]int64 { return nil })
		om.set(k, append(l, [2]int64{1, 2}))
	}
	var want []string
	for _, tc := range knownCases {
		if tc.c.name == "13-compute" {
			for _, i := range tc.want {
				want = append(want, keys[i])
			}
		}
	}
	if got := om.javaKeys(); !reflect.DeepEqual(got, want) {
		t.Errorf("order\n got %q\nwant %q", got, want)
	}
	if got := om.m["file-12"]; len(got) != 1 {
		t.Errorf("file-12 holds %v", got)
	}
}
