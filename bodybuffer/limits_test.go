package bodybuffer

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAnyAcceptedLimitWorks: every size New accepts buffers a body like
// any other (a declared length alone never sizes an allocation), and the
// counters come back to zero.
func TestAnyAcceptedLimitWorks(t *testing.T) {
	const body = "hello"
	tests := []struct {
		o      Options
		cl     int64
		status int
	}{
		{Options{MaxBytes: math.MaxInt64}, -1, 200},
		{Options{MaxBytes: math.MaxInt64}, 5, 200},
		{Options{MaxBytes: math.MaxInt64, MemBytes: math.MaxInt64}, -1, 200},
		{Options{MaxBytes: -1, MemBytes: math.MaxInt64}, 5, 200},
		{Options{MaxBytes: -1, MemBytes: math.MaxInt64}, 1 << 50, 400}, // shorter than declared
		{Options{MaxBytes: math.MaxInt64 - 1, MemBytes: 2}, -1, 200},
		{Options{MaxBytes: 1}, -1, 413},
		{Options{MemBytes: 1}, 5, 200},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v/%d", tt.o, tt.cl), func(t *testing.T) {
			tt.o.Dir = t.TempDir()
			b := New(tt.o)
			r := httptest.NewRequest("POST", "/", io.NopCloser(strings.NewReader(body)))
			r.ContentLength = tt.cl
			var seen string
			w := serveOnce(t, b, r, func(w http.ResponseWriter, r *http.Request) {
				data, _ := io.ReadAll(r.Body)
				seen = string(data)
			})
			if w.Code != tt.status {
				t.Errorf("status = %d, want %d", w.Code, tt.status)
			}
			if tt.status == 200 && seen != body {
				t.Errorf("handler read %q, want %q", seen, body)
			}
			if s := b.Stats(); s.Reading != 0 || s.MemHeld != 0 {
				t.Errorf("Stats() Reading, MemHeld = %d, %d, want 0, 0", s.Reading, s.MemHeld)
			}
			checkSpoolDir(t, tt.o.Dir)
		})
	}
}

// panicReader panics on Read, as a broken body wrapper would.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("broken body") }

// TestCountersReturnWhenReadPanics: an upload whose body panics is no
// longer counted as reading, and its memory is released.
func TestCountersReturnWhenReadPanics(t *testing.T) {
	b := New(Options{})
	r := httptest.NewRequest("POST", "/", io.NopCloser(panicReader{}))
	r.ContentLength = -1
	func() {
		defer func() {
			if v := recover(); v != "broken body" {
				t.Errorf("recover() = %v, want the body's panic", v)
			}
		}()
		serveOnce(t, b, r, func(http.ResponseWriter, *http.Request) { t.Error("handler called") })
	}()
	if s := b.Stats(); s.Reading != 0 || s.MemHeld != 0 {
		t.Errorf("Stats() Reading, MemHeld = %d, %d, want 0, 0", s.Reading, s.MemHeld)
	}
}

// TestUnknownLengthUpToMemBytesStaysInMemory: a body of unknown length
// that fits MemBytes exactly (its end seen by a later read) is never
// spooled, so an unwritable Dir does not matter; one byte more than
// MaxBytes = MemBytes is refused with 413, also without a file.
func TestUnknownLengthUpToMemBytesStaysInMemory(t *testing.T) {
	const mem = 64
	tests := []struct {
		name   string
		o      Options
		size   int
		status int
	}{
		{"exactly MemBytes", Options{MemBytes: mem}, mem, 200},
		{"exactly MemBytes = MaxBytes", Options{MaxBytes: mem}, mem, 200},
		{"one byte over MemBytes = MaxBytes", Options{MaxBytes: mem}, mem + 1, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Dir = "/nonexistent/bodybuffer"
			b := New(tt.o)
			want := strings.Repeat("m", tt.size)
			// Pieces of 10 bytes, then EOF on a read of its own, as a
			// chunked body whose last chunk comes later.
			r := httptest.NewRequest("POST", "/", io.NopCloser(&pieces{s: want, n: 10}))
			r.ContentLength = -1
			var seen string
			w := serveOnce(t, b, r, func(w http.ResponseWriter, r *http.Request) {
				data, _ := io.ReadAll(r.Body)
				seen = string(data)
			})
			if w.Code != tt.status {
				t.Fatalf("status = %d, want %d", w.Code, tt.status)
			}
			if tt.status == 200 && seen != want {
				t.Errorf("handler read %d bytes, want %d", len(seen), len(want))
			}
			if s := b.Stats(); s.Spilled != 0 || s.SpoolErrors != 0 {
				t.Errorf("Stats() Spilled, SpoolErrors = %d, %d, want 0, 0", s.Spilled, s.SpoolErrors)
			}
		})
	}
}

// pieces returns s at most n bytes per Read, and EOF on a Read of its own.
type pieces struct {
	s string
	n int
}

func (p *pieces) Read(b []byte) (int, error) {
	if p.s == "" {
		return 0, io.EOF
	}
	k := copy(b[:min(len(b), p.n)], p.s)
	p.s = p.s[k:]
	return k, nil
}
