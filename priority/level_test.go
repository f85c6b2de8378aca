package priority_test

import (
	"testing"

	"github.com/frontdoor-go/frontdoor/priority"
)

func TestLevelOrder(t *testing.T) {
	ls := priority.Levels()
	for i := 1; i < len(ls); i++ {
		if !(ls[i-1] < ls[i]) {
			t.Errorf("Levels()[%d] = %v is not below Levels()[%d] = %v", i-1, ls[i-1], i, ls[i])
		}
	}
	for i, l := range ls {
		if got := l.Index(); got != i {
			t.Errorf("%v.Index() = %d, want %d", l, got, i)
		}
	}
	var zero priority.Level
	if zero != priority.Default || priority.Default != priority.Critical {
		t.Errorf("zero Level = %v, Default = %v, want both critical", zero, priority.Default)
	}
}

func TestIndexOutOfRange(t *testing.T) {
	for _, tt := range []struct {
		l    priority.Level
		want int
	}{
		{-128, 0},
		{-3, 0},
		{2, priority.NumLevels - 1},
		{127, priority.NumLevels - 1},
	} {
		if got := tt.l.Index(); got != tt.want {
			t.Errorf("Level(%d).Index() = %d, want %d", tt.l, got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	for _, tt := range []struct {
		l    priority.Level
		want string
	}{
		{priority.Sheddable, "sheddable"},
		{priority.SheddablePlus, "sheddable_plus"},
		{priority.Critical, "critical"},
		{priority.CriticalPlus, "critical_plus"},
		{7, "Level(7)"},
		{-3, "Level(-3)"},
	} {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("Level(%d).String() = %q, want %q", tt.l, got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in     string
		want   priority.Level
		wantOK bool
	}{
		{"sheddable", priority.Sheddable, true},
		{"SHEDDABLE_PLUS", priority.SheddablePlus, true},
		{"sheddable-plus", priority.SheddablePlus, true},
		{"Critical", priority.Critical, true},
		{"CRITICAL_PLUS", priority.CriticalPlus, true},
		{"critical-Plus", priority.CriticalPlus, true},
		{"", priority.Default, false},
		{"criticalplus", priority.Default, false},
		{"critical_plus ", priority.Default, false},
		{"sheddable_plus_plus", priority.Default, false},
		{"1", priority.Default, false},
	} {
		got, ok := priority.Parse(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestParseAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		priority.Parse("SHEDDABLE-PLUS")
		priority.Parse("nonsense")
	})
	if allocs != 0 {
		t.Errorf("Parse allocates %v times, want 0", allocs)
	}
}

// FuzzParse checks that any header value parses without panic, and that a
// value accepted names a level whose String parses back to it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"sheddable", "CRITICAL_PLUS", "critical-plus", "", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := priority.Parse(s)
		if !ok {
			if l != priority.Default {
				t.Fatalf("Parse(%q) = %v, false; want Default", s, l)
			}
			return
		}
		if back, ok := priority.Parse(l.String()); !ok || back != l {
			t.Fatalf("Parse(%q) = %v, but Parse(%q) = %v, %v", s, l, l.String(), back, ok)
		}
	})
}
