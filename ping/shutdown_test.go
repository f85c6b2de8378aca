package ping_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/ping"
)

// TestServeUntilSequence checks the order and timing of the shutdown steps
// on a fake clock: nothing before the signal, drain at once, Shutdown only
// after DrainDelay, return after Shutdown.
func TestServeUntilSequence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 3 * time.Second
		chk := ping.New(ping.Options{ReadyPath: "/ping", DrainDelay: delay})
		srv := &http.Server{}
		var shutdownAt atomic.Int64
		stopped := make(chan struct{})
		srv.RegisterOnShutdown(func() { close(stopped) })
		serve := func() error {
			<-stopped
			shutdownAt.Store(time.Now().UnixNano())
			return http.ErrServerClosed
		}
		ctx, signal := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- chk.ServeUntil(ctx, srv, serve) }()

		time.Sleep(time.Hour)
		synctest.Wait()
		if chk.Draining() {
			t.Fatalf("Draining() = true before the signal, want false")
		}
		signal()
		synctest.Wait()
		if !chk.Draining() {
			t.Fatalf("Draining() = false right after the signal, want true")
		}
		sig := time.Now()
		time.Sleep(delay - time.Nanosecond)
		synctest.Wait()
		if shutdownAt.Load() != 0 {
			t.Fatalf("Shutdown ran before DrainDelay passed")
		}
		if err := <-done; err != nil {
			t.Errorf("ServeUntil() = %v, want nil", err)
		}
		if got := time.Unix(0, shutdownAt.Load()).Sub(sig); got != delay {
			t.Errorf("Shutdown ran %v after the signal, want %v", got, delay)
		}
	})
}

func TestServeUntilDefaultDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		chk := ping.New(ping.Options{})
		srv := &http.Server{}
		stopped := make(chan struct{})
		srv.RegisterOnShutdown(func() { close(stopped) })
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		start := time.Now()
		err := chk.ServeUntil(ctx, srv, func() error { <-stopped; return http.ErrServerClosed })
		if err != nil {
			t.Errorf("ServeUntil() = %v, want nil", err)
		}
		if got := time.Since(start); got != ping.DefaultDrainDelay {
			t.Errorf("default drain delay = %v, want %v", got, ping.DefaultDrainDelay)
		}
	})
}

func TestServeUntilServeFails(t *testing.T) {
	chk := ping.New(ping.Options{})
	boom := errors.New("listen: address in use")
	err := chk.ServeUntil(context.Background(), &http.Server{}, func() error { return boom })
	if !errors.Is(err, boom) {
		t.Errorf("ServeUntil() = %v, want %v", err, boom)
	}
	if chk.Draining() {
		t.Errorf("Draining() = true after serve failed, want false")
	}
}

// TestServeUntilShutdownTimeout checks how long ServeUntil waits for a
// request that never ends: ShutdownTimeout, DefaultShutdownTimeout for 0,
// and for -1 until the request ends.
func TestServeUntilShutdownTimeout(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		want    time.Duration // 0: no bound
	}{
		{"set", 5 * time.Second, 5 * time.Second},
		{"zero means the default", 0, ping.DefaultShutdownTimeout},
		{"-1 waits for every request", -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				chk := ping.New(ping.Options{DrainDelay: -1, ShutdownTimeout: tt.timeout})
				release := make(chan struct{})
				ln := newPipeListener()
				srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					<-release
				})}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- chk.ServeUntil(ctx, srv, func() error { return srv.Serve(ln) }) }()

				conn := ln.dial()
				defer conn.Close()
				go io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				synctest.Wait() // the handler is now stuck
				start := time.Now()
				cancel()
				if tt.want == 0 {
					time.Sleep(24 * time.Hour)
					synctest.Wait()
					select {
					case err := <-done:
						t.Fatalf("ServeUntil() = %v with a request in flight, want it to wait", err)
					default:
					}
					close(release)
					go io.Copy(io.Discard, conn)
					if err := <-done; err != nil {
						t.Errorf("ServeUntil() = %v after the request ended, want nil", err)
					}
					return
				}
				err := <-done
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("ServeUntil() = %v, want context.DeadlineExceeded", err)
				}
				if got := time.Since(start); got != tt.want {
					t.Errorf("gave up after %v, want %v", got, tt.want)
				}
				close(release)
			})
		})
	}
}

// TestServeUntilLosesNoRequest runs a real server: a request in flight when
// the signal comes completes with 200, the ready path answers 503 during
// the delay, and ServeUntil returns only after the request finished.
func TestServeUntilLosesNoRequest(t *testing.T) {
	chk := ping.New(ping.Options{ReadyPath: "/ping", DrainDelay: 100 * time.Millisecond})
	entered, release := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		w.Write([]byte("done"))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: chk.Handler(mux)}
	ctx, signal := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- chk.ServeUntil(ctx, srv, func() error { return srv.Serve(ln) }) }()

	type result struct {
		code int
		body string
		err  error
	}
	slow := make(chan result, 1)
	go func() {
		res, err := http.Get(url + "/slow")
		if err != nil {
			slow <- result{err: err}
			return
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		slow <- result{res.StatusCode, string(b), err}
	}()
	<-entered
	signal()
	for !chk.Draining() {
		time.Sleep(time.Millisecond)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Get(url + "/ping")
	if err != nil {
		t.Fatalf("GET /ping while draining: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /ping while draining = %d, want 503", res.StatusCode)
	}
	select {
	case err := <-done:
		t.Fatalf("ServeUntil returned %v with a request in flight", err)
	default:
	}
	close(release)
	if r := <-slow; r.err != nil || r.code != 200 || r.body != "done" {
		t.Errorf("request in flight = %d %q %v, want 200 \"done\" <nil>", r.code, r.body, r.err)
	}
	if err := <-done; err != nil {
		t.Errorf("ServeUntil() = %v, want nil", err)
	}
	http.DefaultClient.CloseIdleConnections()
}
