package bodybuffer

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMemBound: concurrent uploads larger than MemBytes, all stalled
// mid-body, hold at most one MemBytes buffer each; the rest is on disk.
func TestMemBound(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts open files through /proc")
	}
	const uploads, mem = 16, 64 << 10
	g := newRig(t, Options{MemBytes: mem, IdleTimeout: 10 * time.Second}, false, nil)
	var conns []io.Closer
	for range uploads {
		c := g.dial()
		io.WriteString(c, head(200<<10)+strings.Repeat("m", 100<<10))
		conns = append(conns, c)
	}
	// Every upload has passed MemBytes once it has a spool file open.
	waitFor(t, func() bool { return openSpoolFiles(g.dir) == uploads })
	s := g.b.Stats()
	if s.Reading != uploads || s.MemHeld > uploads*mem {
		t.Errorf("Reading, MemHeld = %d, %d, want %d, <= %d", s.Reading, s.MemHeld, uploads, uploads*mem)
	}
	t.Logf("%d stalled uploads of 100 KiB with MemBytes %d KiB: MemHeld %s", uploads, mem>>10, fmt.Sprint(s.MemHeld))
	for _, c := range conns {
		c.Close() // every upload ends as client gone
	}
	g.close()
	if s := g.b.Stats(); s.ClientGone != uploads || s.MemPeak > uploads*mem {
		t.Errorf("ClientGone, MemPeak = %d, %d, want %d, <= %d", s.ClientGone, s.MemPeak, uploads, uploads*mem)
	}
}

func openSpoolFiles(dir string) int {
	n := 0
	fds, _ := filepath.Glob("/proc/self/fd/*")
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, dir) {
			n++
		}
	}
	return n
}
