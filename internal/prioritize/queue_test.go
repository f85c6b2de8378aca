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
			nd := q.Next(lifo)
			if nd == nil {
				out = append(out, "<none>")
				continue
			}
			q.Remove(nd)
			out = append(out, nd.Value)
		default:
			if o.max > 0 && q.Len() >= o.max {
				v := q.Victim(o.l, lifo)
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
	for nd := q.Next(lifo); nd != nil; nd = q.Next(lifo) {
		q.Remove(nd)
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
		if got := q.Ahead(tt.l, false); got != tt.fifo {
			t.Errorf("Ahead(%v, FIFO) = %d, want %d", tt.l, got, tt.fifo)
		}
		if got := q.Ahead(tt.l, true); got != tt.lifo {
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
	for nd := q.Next(false); nd != nil; nd = q.Next(false) {
		q.Remove(nd)
		got = append(got, nd.Value)
	}
	if fmt.Sprint(got) != "[c e]" || q.Len() != 0 {
		t.Errorf("left %v (Len %d), want [c e] (Len 0)", got, q.Len())
	}
}
