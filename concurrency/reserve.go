package concurrency

import (
	"runtime"
	"sync"
)

var reserveOnce sync.Once

// ReserveP sets GOMAXPROCS to one more than it is, so that CPU-bound
// handlers, which a Limiter keeps to one per P Go would otherwise use,
// leave a P free for the front door: accepting connections, reading
// headers, refusing. Without a free P, new requests wait in the kernel
// and the scheduler, where nobody can refuse them.
//
// On its first call it reads runtime.GOMAXPROCS(0) — Go's default, which
// follows the container's CPU limit, unless the GOMAXPROCS environment
// variable or a call set it — and calls runtime.GOMAXPROCS with that plus
// one. Later calls change nothing. It returns the GOMAXPROCS in force.
//
// That is all it changes. Like any call of runtime.GOMAXPROCS it stops
// the runtime from updating GOMAXPROCS when the CPU limit changes;
// runtime.SetDefaultGOMAXPROCS undoes both. Call it early in main, before
// the server starts. A Limiter whose limit finds itself then settles at
// most one P below GOMAXPROCS when its handlers keep every P busy.
func ReserveP() int {
	reserveOnce.Do(func() { runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1) })
	return runtime.GOMAXPROCS(0)
}
