package main

import (
	"io"
	"net/http"

	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/felixge/httpsnoop"
	"github.com/go-kratos/aegis/ratelimit"
	"github.com/go-kratos/aegis/ratelimit/bbr"
	gclcore "github.com/platinummonkey/go-concurrency-limits/core"
	gclhttp "github.com/platinummonkey/go-concurrency-limits/http"
	gcllimit "github.com/platinummonkey/go-concurrency-limits/limit"
	gcllimiter "github.com/platinummonkey/go-concurrency-limits/limiter"
	gclstrategy "github.com/platinummonkey/go-concurrency-limits/strategy"
	"github.com/zeromicro/go-zero/core/load"
	"github.com/zeromicro/go-zero/core/logx"
)

// The peers, each set up as its documentation and its own HTTP
// integration do it. They take no number: the point of comparing them.

// failsafeLimiter returns failsafe-go's adaptive concurrency limiter
// around h through failsafehttp.NewHandler, which answers a refusal with
// 429. With queue, requests over the limit wait as WithQueueing describes
// (up to 2 × the limit, then rejected gradually up to 3 ×), at most the
// scenario's queue timeout.
func failsafeLimiter(s *server, h http.Handler, queue bool) http.Handler {
	var l adaptivelimiter.AdaptiveLimiter[*http.Response]
	if queue {
		l = adaptivelimiter.NewBuilder[*http.Response]().
			WithQueueing(2, 3).WithMaxWaitTime(s.queueTimeout).Build()
	} else {
		l = adaptivelimiter.NewWithDefaults[*http.Response]()
	}
	s.debug = func() any {
		return struct{ Limit, Inflight, Queued int }{l.Limit(), l.Inflight(), l.Queued()}
	}
	return failsafehttp.NewHandler(h, l)
}

// netflix returns go-concurrency-limits' HTTP server middleware with a
// DefaultLimiter (its package's window defaults: 1 s windows, 100 samples,
// 100 µs min RTT threshold) over the default Vegas or Gradient2 limit and a
// SimpleStrategy that follows it, as NewDefaultLimiterWithFactory
// recommends. Refusals are 503.
func netflix(s *server, h http.Handler, algo string) http.Handler {
	var lim gclcore.Limit
	if algo == "vegas" {
		lim = gcllimit.NewDefaultVegasLimit("overload", gcllimit.NoopLimitLogger{}, gclcore.EmptyMetricRegistryInstance)
	} else {
		lim = gcllimit.NewDefaultGradient2Limit("overload", gcllimit.NoopLimitLogger{}, gclcore.EmptyMetricRegistryInstance)
	}
	l, err := gcllimiter.NewDefaultLimiterWithFactory(lim, 1e9, 1e9, 1e5, 100,
		gclstrategy.NewSimpleStrategyFactory(), gcllimit.NoopLimitLogger{}, gclcore.EmptyMetricRegistryInstance)
	if err != nil {
		panic(err)
	}
	s.debug = func() any { return l.String() }
	return gclhttp.NewServerMiddleware(gclhttp.WithLimiter(l))(h)
}

// goZero returns go-zero's adaptive shedder with the CPU threshold its
// rest server uses by default (900‰), behind the logic of go-zero's
// rest/handler.SheddingHandler: 503 on a drop, Fail on a 503 answer, Pass
// otherwise. go-zero logs every drop; its log goes to io.Discard here (it
// would write to stdout, which carries the child's reports), so the cost of
// formatting it stays.
func goZero(_ *server, h http.Handler) http.Handler {
	logx.SetWriter(logx.NewWriter(io.Discard))
	sh := load.NewAdaptiveShedder(load.WithCpuThreshold(900))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := sh.Allow()
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		code := http.StatusOK
		w = httpsnoop.Wrap(w, httpsnoop.Hooks{WriteHeader: func(next httpsnoop.WriteHeaderFunc) httpsnoop.WriteHeaderFunc {
			return func(c int) { code = c; next(c) }
		}})
		defer func() {
			if code == http.StatusServiceUnavailable {
				p.Fail()
			} else {
				p.Pass()
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// kratosBBR returns kratos' BBR limiter (aegis ratelimit/bbr, defaults:
// 10 s window, 100 buckets, CPU threshold 800‰) behind the logic of
// kratos' middleware/ratelimit.Server: Allow, 429 when refused, done after
// the handler.
func kratosBBR(s *server, h http.Handler) http.Handler {
	l := bbr.NewLimiter()
	s.debug = func() any { return l.Stat() }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		done, err := l.Allow()
		if err != nil {
			http.Error(w, "service unavailable due to rate limit exceeded", http.StatusTooManyRequests)
			return
		}
		h.ServeHTTP(w, r)
		done(ratelimit.DoneInfo{})
	})
}
