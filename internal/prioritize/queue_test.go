package prioritize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/frontdoor-go/frontdoor/priority"
)

const (
	S  = priority.Sheddable
	SP = priority.SheddablePlus
	C  = priority.Critical
	CP = priority.CriticalPlus
)

// An op on a Queue of named waiters, as a limiter would do it.
type op struct {
	push  string // push a waiter named push, of level l
	l     priority.Level
	serve bool // take Next and record its name
	// A full queue of max waiters: push evicts Victim (recorded as
	// "-name") or is refused (recorded as "!name").
	max int
}

// run applies ops to a fresh queue and returns the names served, evicted
// and refused, in order, with the waiters left in serving order.
func run(ops []op, lifo bool) string {
	var q Queue[string]
	var out []string
	for _, o := range ops {
		switch {
		case o.serve:
			nd := q.Pop(lifo)
			if nd == nil {
				out = append(out, "<none>")
				continue
			}
			out = append(out, nd.Value)
		default:
			if o.max > 0 && q.Len() >= o.max {
				v := q.Victim(o.l, 0, lifo)
				if v == nil {
					out = append(out, "!"+o.push)
					continue
				}
				q.Remove(v)
				out = append(out, "-"+v.Value)
			}
			q.Push(&Node[string]{Value: o.push}, o.l)
		}
	}
	out = append(out, "|")
	for nd := q.Pop(lifo); nd != nil; nd = q.Pop(lifo) {
		out = append(out, nd.Value)
	}
	return strings.Join(out, " ")
}

func push(name string, l priority.Level) op             { return op{push: name, l: l} }
func pushMax(name string, l priority.Level, max int) op { return op{push: name, l: l, max: max} }

var serve = op{serve: true}

func TestQueueOrder(t *testing.T) {
	for _, tt := range []struct {
		name string
		lifo bool
		ops  []op
		want string
	}{
		{"one level is FIFO", false,
			[]op{push("a", C), push("b", C), serve, push("c", C)},
			"a | b c"},
		{"one level is LIFO", true,
			[]op{push("a", C), push("b", C), serve, push("c", C)},
			"b | c a"},
		{"higher level served first", false,
			[]op{push("s1", S), push("c1", C), push("s2", S), push("cp", CP), push("sp", SP), push("c2", C)},
			"| cp c1 c2 sp s1 s2"},
		{"higher level served first, LIFO within", true,
			[]op{push("s1", S), push("c1", C), push("s2", S), push("c2", C)},
			"| c2 c1 s2 s1"},
		{"empty", false, []op{serve}, "<none> |"},
		{"full: newcomer evicts the lowest, oldest", false,
			[]op{push("s1", S), push("sp", SP), push("s2", S), pushMax("c", C, 3)},
			"-s1 | c sp s2"},
		{"full: then the next lowest", false,
			[]op{push("sp1", SP), push("c1", C), push("sp2", SP), pushMax("c2", C, 3), pushMax("cp", CP, 3), pushMax("c3", C, 3)},
			"-sp1 -sp2 !c3 | cp c1 c2"},
		{"full: same level refused in FIFO", false,
			[]op{push("s1", S), push("s2", S), pushMax("s3", S, 2)},
			"!s3 | s1 s2"},
		{"full: same level evicts the oldest in LIFO", true,
			[]op{push("s1", S), push("s2", S), pushMax("s3", S, 2)},
			"-s1 | s3 s2"},
		{"full: a lower newcomer never evicts", true,
			[]op{push("c1", C), push("c2", C), pushMax("s", S, 2)},
			"!s | c2 c1"},
		{"full: LIFO evicts lower levels before its own", true,
			[]op{push("c1", C), push("s1", S), push("s2", S), pushMax("c2", C, 3)},
			"-s1 | c2 c1 s2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := run(tt.ops, tt.lifo); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestQueueAhead(t *testing.T) {
	var q Queue[int]
	for i, l := range []priority.Level{S, S, C, SP, CP, C} {
		q.Push(&Node[int]{Value: i}, l)
	}
	for _, tt := range []struct {
		l          priority.Level
		fifo, lifo int
	}{
		{S, 6, 4}, {SP, 4, 3}, {C, 3, 1}, {CP, 1, 0},
	} {
		if got := q.Ahead(tt.l, 0, false); got != tt.fifo {
			t.Errorf("Ahead(%v, FIFO) = %d, want %d", tt.l, got, tt.fifo)
		}
		if got := q.Ahead(tt.l, 0, true); got != tt.lifo {
			t.Errorf("Ahead(%v, LIFO) = %d, want %d", tt.l, got, tt.lifo)
		}
	}
}

// TestQueueRemoveMiddle removes waiters from anywhere, as those whose
// time ran out leave, and checks the lists stay whole.
func TestQueueRemoveMiddle(t *testing.T) {
	var q Queue[string]
	nodes := map[string]*Node[string]{}
	for _, name := range []string{"a", "b", "c", "d"} {
		nodes[name] = &Node[string]{Value: name}
		q.Push(nodes[name], S)
	}
	q.Remove(nodes["b"])
	q.Remove(nodes["d"])
	q.Remove(nodes["a"])
	q.Push(&Node[string]{Value: "e"}, S)
	var got []string
	for nd := q.Pop(false); nd != nil; nd = q.Pop(false) {
		got = append(got, nd.Value)
	}
	if fmt.Sprint(got) != "[c e]" || q.Len() != 0 {
		t.Errorf("left %v (Len %d), want [c e] (Len 0)", got, q.Len())
	}
}

// TestQueueFair: within a level a Fair queue takes turns between tenants
// (the key is the first letter of a name), and a full one pushes out the
// tenant with the most waiters; across levels the order is unchanged.
func TestQueueFair(t *testing.T) {
	for _, tt := range []struct {
		name string
		fair bool
		lifo bool
		max  int
		push []string // "name:level", level S or C
		pops int
		want string
	}{
		{"turns between tenants", true, false, 0,
			[]string{"a1:S", "a2:S", "a3:S", "a4:S", "b1:S", "c1:S", "c2:S"}, 7,
			"a1 b1 c1 a2 c2 a3 a4"},
		{"not fair: one line", false, false, 0,
			[]string{"a1:S", "a2:S", "b1:S", "c1:S"}, 4,
			"a1 a2 b1 c1"},
		{"turns, newest first within a tenant", true, true, 0,
			[]string{"a1:S", "a2:S", "a3:S", "b1:S", "b2:S"}, 5,
			"a3 b2 a2 b1 a1"},
		{"levels still first", true, false, 0,
			[]string{"a1:S", "a2:S", "b1:C", "a3:C"}, 4,
			"b1 a3 a1 a2"},
		{"full: the noisiest tenant loses", true, false, 4,
			[]string{"b1:S", "a1:S", "a2:S", "a3:S", "c1:C"}, 4,
			"-a1 c1 b1 a2 a3"},
		{"full LIFO: the noisiest tenant of the same level loses", true, true, 4,
			[]string{"a1:S", "a2:S", "a3:S", "b1:S", "b2:S"}, 4,
			"-a1 a3 b2 a2 b1"},
		{"full FIFO: a quieter newcomer of the same level pushes out the noisiest", true, false, 4,
			[]string{"a1:S", "a2:S", "a3:S", "b1:S", "c1:S", "b2:S"}, 4,
			"-a1 !b2 a2 b1 c1 a3"},
		{"full FIFO: a newcomer of the noisiest tenant is refused", true, false, 4,
			[]string{"a1:S", "a2:S", "a3:S", "b1:S", "a4:S"}, 4,
			"!a4 a1 b1 a2 a3"},
		{"full FIFO: a tenant tied for the most is refused, a new one pushes out the first in turn of those tied", true, false, 4,
			[]string{"a1:S", "a2:S", "b1:S", "b2:S", "b3:S", "c1:S"}, 4,
			"!b3 -a1 a2 b1 c1 b2"},
		{"full FIFO, not fair: the newcomer is refused", false, false, 2,
			[]string{"a1:S", "a2:S", "b1:S"}, 2,
			"!b1 a1 a2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := Queue[string]{Fair: tt.fair}
			var out []string
			for _, p := range tt.push {
				name, lvl, _ := strings.Cut(p, ":")
				l := S
				if lvl == "C" {
					l = C
				}
				if tt.max > 0 && q.Len() >= tt.max {
					v := q.Victim(l, uint64(name[0]), tt.lifo)
					if v == nil {
						out = append(out, "!"+name)
						continue
					}
					q.Remove(v)
					out = append(out, "-"+v.Value)
				}
				q.Push(&Node[string]{Key: uint64(name[0]), Value: name}, l)
			}
			for range tt.pops {
				out = append(out, q.Pop(tt.lifo).Value)
			}
			if got := strings.Join(out, " "); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestQueueFairAhead(t *testing.T) {
	q := Queue[string]{Fair: true}
	for _, k := range []uint64{'a', 'a', 'a', 'b'} {
		q.Push(&Node[string]{Key: k}, S)
	}
	q.Push(&Node[string]{Key: 'a'}, C)
	for _, tt := range []struct {
		key  uint64
		lifo bool
		want int
	}{
		{'b', false, 1 + 3}, // critical, then a, b, a: its turn comes after a's second
		{'c', false, 1 + 2}, // a new tenant waits one turn of a and of b
		{'a', false, 1 + 4}, // the noisy tenant waits behind all
		{'c', true, 1 + 2},
		{'a', true, 1 + 1},
	} {
		if got := q.Ahead(S, tt.key, tt.lifo); got != tt.want {
			t.Errorf("Ahead(S, %c, lifo %v) = %d, want %d", tt.key, tt.lifo, got, tt.want)
		}
	}
}

func TestQueueBelow(t *testing.T) {
	var q Queue[int]
	q.Push(&Node[int]{}, SP)
	q.Push(&Node[int]{}, CP)
	for _, tt := range []struct {
		l    priority.Level
		want bool
	}{{S, false}, {SP, false}, {C, true}, {CP, true}} {
		if got := q.Below(tt.l); got != tt.want {
			t.Errorf("Below(%v) = %v, want %v", tt.l, got, tt.want)
		}
	}
}
