// Package concurrency provides a limiter that runs at most Limit requests
// at once and keeps the others in a short, bounded queue, refusing at once
// those that could not start within their wait budget: HAProxy's
// "maxconn 1 per worker, plus a queue" built into the Go process.
//
//	mux.Handle("/render", concurrency.Limit(1)(render))
//
// or, with options:
//
//	l := concurrency.New(concurrency.Options{
//		Limit:        procs + 1,             // see the sizing rule below
//		MaxQueue:     16,                    // callers that may wait
//		QueueTimeout: 50 * time.Millisecond, // the most one may wait
//	})
//	mux.Handle("/render", l.Handler(render))
//
// or with no number at all, the slot count finding itself:
//
//	concurrency.ReserveP() // GOMAXPROCS: Go's default + 1, a P for the front door
//	mux.Handle("/render", concurrency.New(concurrency.Options{}).Handler(render))
//
// Outside HTTP (gRPC interceptors, job loops), Acquire and TryAcquire take
// a slot by the same rules; a refusal is a *RefusedError:
//
//	release, err := l.Acquire(ctx)
//	if err != nil {
//		return err // *RefusedError, or ctx's error
//	}
//	defer release()
//
// # Refusing fast
//
// The Limiter keeps a moving average of how long a slot is held, and of
// its deviation, in which one sample counts for at most twice the current
// plan, so a single slow request does not make it turn everybody away. A
// caller that finds every slot busy is refused at once when the queue is
// full, or when others already wait and its expected wait (its place in
// line / Limit, in rounds of the planned service time) reaches its wait
// budget: QueueTimeout, cut to its context deadline less the service time.
// A caller that finds nobody waiting is never refused on the estimate
// alone: it waits, up to its budget, and so keeps the estimate honest
// (only callers that hold a slot are timed). A caller still waiting when
// its budget runs out is refused then, and so is one whose context
// deadline passes while it waits: a deadline set by an outer middleware
// leaves the client connected and owed an answer. A caller whose context
// is canceled while it waits is dropped and counted as abandoned, never
// as a refusal, when it is an Acquire caller or an HTTP request whose
// client is provably gone (its connection closed: it gets no response);
// an HTTP request whose context was canceled while its client is still
// connected (the server's BaseContext, a middleware outside) is refused,
// with Reason Canceled: it never gets net/http's implicit 200.
//
// # Sizing for CPU-bound handlers: leave one P for the front door
//
// For handlers that burn CPU (server-side rendering, image resizing,
// templating big pages), with N the number of CPUs the process may use,
// the rule is
//
//	GOMAXPROCS >= Limit + 1   (always: refusals need a P of their own)
//	Limit = N + 1             (keeps every CPU busy; N gives faster
//	                           refusals at some cost in goodput)
//
// Read N once at start, before changing GOMAXPROCS: its default follows
// the CPUs and the container's CPU limit, which runtime.NumCPU does not.
//
//	procs := runtime.GOMAXPROCS(0)
//	runtime.GOMAXPROCS(procs + 2)
//	l := concurrency.New(concurrency.Options{Limit: procs + 1})
//
// With several Limiters in front of CPU-bound handlers, Limit in the rule
// is the sum of theirs.
//
// Everything in front of the queue (accepting connections, reading
// headers, this package's refusals) runs on the same Ps as the handlers.
// Go preempts a goroutine that does not block only after several
// milliseconds, and polls the network only when a P falls idle or on the
// same slow tick, so when handlers hold every P, new requests wait in the
// kernel and in the scheduler, not in this package's queue, where nobody
// can refuse them: clients time out although a queue with a timeout is in
// place. With one P more than Limit, that P has no handler to run: it
// waits in the network poller and answers at once, and the operating
// system shares the CPUs between the handler threads and it. One handler
// more than CPUs keeps the CPUs busy across the moments when a handler
// thread waits for the operating system to run it or to hand it the next
// request.
//
// The spare P also takes the end of each request: when a finishing request
// hands its slot to a waiter, it yields its P (runtime.Gosched), so the
// waiter's handler starts at once on the thread that ran the last one and
// the finished response is written out from the spare P. With GOMAXPROCS
// not above Limit it does not yield, since nothing would write that
// response until a handler gave up its P. GOMAXPROCS is read again every
// few dozen handoffs, not on each, so a change at run time is followed.
//
// Handlers that mostly wait (on I/O, a database pool, a sleep) hold no P
// while they wait: for them Limit is the capacity of what they wait on and
// may be far above GOMAXPROCS.
//
// QueueTimeout should be the time callers wait for an answer less the
// handler's slowest usual duration, with room to spare for scheduling.
//
// # A limit that finds itself
//
// With Limit 0 the slot count finds itself (experimental: see the
// README's Limitations). It starts open (1024 slots) and stays open until
// there is evidence of overload, since a cold server is not overloaded and
// a slow response alone is not overload: goroutines waiting for a P (the
// runtime's /sched/latencies:seconds) while at least GOMAXPROCS − 1
// requests run, a queue growing behind the handler (latency rising window
// after window while more requests are in flight), or most requests
// completed for callers already gone. Then it is set to the knee the
// evidence points at: GOMAXPROCS − 1 when goroutines wait for a P (opened
// again if that does not cure the wait), else a little above the product
// of the goodput (requests completed for a caller still there, within
// their deadline) and the duration before the queue grew. While it binds
// it follows that knee; once it has not bound for a while it opens again.
//
// A limit cut for the P is held under the cut for a while: after ReserveP
// that leaves the front door its P while CPU-bound handlers keep every core
// busy. A MaxQueue left at 0 follows the limit, and a QueueTimeout left
// at 0 follows the handler's duration: DefaultQueueRounds planned runs
// (each at most twice the average), at most DefaultQueueTimeout. Stats
// reports the limit and the signals behind it (Stats.Adaptive).
//
// Admission reads the limit with one atomic load. The caller that closes
// a window updates the limit; nothing runs in the background.
//
// # Order
//
// FIFO (the default) serves the longest waiter first; with the wait-budget
// check every caller it admits is likely to be served in time. LIFO serves
// the newest first (under overload, the clients most likely still waiting)
// and, when the queue is full, drops the oldest waiter to make room.
// CoDelTarget adds CoDel-style control: once the queue has stayed
// non-empty, without a break, for a whole CoDelInterval, the budget of
// newcomers drops to CoDelTarget, so a standing queue drains. A burst after
// an idle period starts with the whole budget.
//
// # Priorities
//
// With Options.Priority each request has a level (package priority), and
// the queue is ordered by it: the highest level is served first, Order
// applies within a level, a newcomer to a full queue pushes out the
// oldest waiter of the lowest level below its own, and a request is
// judged on its wait behind only those served before it. There is no
// share per level: with nobody waiting, a free slot goes to whoever comes,
// so under overload the lower levels wait and are refused first, while the
// higher ones still find a short line. When a higher level alone needs
// every slot, the lower ones get none and the higher one is refused as a
// single class would be. Options.Tenant takes turns between tenants within
// a level.
//
//	l := concurrency.New(concurrency.Options{Limit: 3, Priority: priority.Header("")})
//
// A refusal then names the level it refused in the Frontdoor-Priority
// header, and Stats counts each level.
//
// # Counters
//
// Stats returns plain counters (running, queued, admitted, refused by
// reason, abandoned), the service-time average and a queue-wait
// histogram, for the metrics package or a health check. An
// inflight.Counter passed as Options.Counter makes the running count
// readable elsewhere.
package concurrency
