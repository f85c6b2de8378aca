package bodybuffer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func serveOnce(t *testing.T, b *Buffer, r *http.Request, next http.HandlerFunc) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	b.Handler(next).ServeHTTP(w, r)
	return w
}

func TestPassThrough(t *testing.T) {
	tests := []struct {
		name   string
		method string
		header http.Header
		body   io.Reader
		exempt bool
		passed uint64
	}{
		{"no body", "GET", nil, nil, false, 0},
		{"connect", "CONNECT", nil, strings.NewReader("x"), false, 1},
		{"upgrade", "GET", http.Header{"Upgrade": {"websocket"}}, strings.NewReader("x"), false, 1},
		{"grpc", "POST", http.Header{"Content-Type": {"application/grpc+proto"}}, strings.NewReader("x"), false, 1},
		{"event-stream body", "POST", http.Header{"Content-Type": {"text/event-stream"}}, strings.NewReader("x"), false, 1},
		{"event-stream accept", "POST", http.Header{"Accept": {"text/html, text/event-stream"}}, strings.NewReader("x"), false, 1},
		{"exempt", "POST", nil, strings.NewReader("x"), true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(Options{Exempt: func(*http.Request) bool { return tt.exempt }})
			r := httptest.NewRequest(tt.method, "/", tt.body)
			for k, v := range tt.header {
				r.Header[k] = v
			}
			orig := r.Body
			called := false
			serveOnce(t, b, r, func(w http.ResponseWriter, r *http.Request) {
				called = true
				if r.Body != orig {
					t.Errorf("handler: Body = %T, want the original %T", r.Body, orig)
				}
			})
			if !called {
				t.Fatal("handler not called")
			}
			if s := b.Stats(); s.Passed != tt.passed || s.Buffered != 0 {
				t.Errorf("Stats() Passed, Buffered = %d, %d, want %d, 0", s.Passed, s.Buffered, tt.passed)
			}
		})
	}
}

// TestWhatNextSees: body, length, transfer encoding, GetBody, Close, and
// the request fields put back afterwards, for bodies in memory and
// spooled.
func TestWhatNextSees(t *testing.T) {
	for _, tt := range []struct {
		name  string
		mem   int64
		spill uint64
	}{{"memory", 0, 0}, {"spooled", 16, 1}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			b := New(Options{MemBytes: tt.mem, Dir: dir})
			const want = "the quick brown fox jumps over the lazy dog"
			r := httptest.NewRequest("POST", "/", io.NopCloser(strings.NewReader(want)))
			r.ContentLength = -1
			r.TransferEncoding = []string{"chunked"}
			orig := r.Body
			serveOnce(t, b, r, func(w http.ResponseWriter, r *http.Request) {
				if r.ContentLength != int64(len(want)) || r.TransferEncoding != nil {
					t.Errorf("ContentLength, TransferEncoding = %d, %v, want %d, nil", r.ContentLength, r.TransferEncoding, len(want))
				}
				for i := range 2 {
					rc, err := r.GetBody()
					if err != nil {
						t.Fatalf("GetBody() error = %v", err)
					}
					if got, _ := io.ReadAll(rc); string(got) != want {
						t.Errorf("GetBody() #%d read %q, want %q", i, got, want)
					}
				}
				if err := iotest.TestReader(r.Body, []byte(want)); err != nil {
					t.Errorf("Body: %v", err)
				}
				r.Body.Close()
				if _, err := r.Body.Read(make([]byte, 1)); err != http.ErrBodyReadAfterClose {
					t.Errorf("Read after Close error = %v, want ErrBodyReadAfterClose", err)
				}
			})
			if r.Body != orig || r.ContentLength != -1 || len(r.TransferEncoding) != 1 || r.GetBody != nil {
				t.Errorf("request fields not restored after next returned")
			}
			if s := b.Stats(); s.Buffered != 1 || s.Spilled != tt.spill || s.MemHeld != 0 {
				t.Errorf("Stats() Buffered, Spilled, MemHeld = %d, %d, %d, want 1, %d, 0", s.Buffered, s.Spilled, s.MemHeld, tt.spill)
			}
			checkSpoolDir(t, dir)
		})
	}
}

// TestWriteTo: io.Copy from the body uses WriteTo, memory and file.
func TestWriteTo(t *testing.T) {
	for _, mem := range []int64{0, 8} {
		b := New(Options{MemBytes: mem, Dir: t.TempDir()})
		want := strings.Repeat("w", 100)
		serveOnce(t, b, httptest.NewRequest("POST", "/", strings.NewReader(want)), func(w http.ResponseWriter, r *http.Request) {
			var buf bytes.Buffer
			if n, err := io.Copy(&buf, r.Body); err != nil || buf.String() != want {
				t.Errorf("MemBytes %d: io.Copy() = %d, %v, want %d, nil", mem, n, err, len(want))
			}
		})
	}
}

func TestPanicReleases(t *testing.T) {
	dir := t.TempDir()
	b := New(Options{MemBytes: 8, Dir: dir})
	r := httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("p", 100)))
	orig := r.Body
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("recover() = %v, want boom", v)
			}
		}()
		serveOnce(t, b, r, func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	}()
	if r.Body != orig {
		t.Error("Body not restored after panic")
	}
	if s := b.Stats(); s.MemHeld != 0 || s.Spilled != 1 {
		t.Errorf("Stats() MemHeld, Spilled = %d, %d, want 0, 1", s.MemHeld, s.Spilled)
	}
	checkSpoolDir(t, dir)
}

// TestReadErrors classifies errors from the body reader.
func TestReadErrors(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	deadlineCause, cancel3 := context.WithCancelCause(context.Background())
	cancel3(context.DeadlineExceeded)
	ownCause, cancel4 := context.WithCancelCause(context.Background())
	cancel4(errors.New("shutting down"))
	tests := []struct {
		name   string
		o      Options
		ctx    context.Context
		hangUp bool // the writer reports the connection closed
		body   io.Reader
		cl     int64
		status int // 0: aborted with http.ErrAbortHandler
		want   func(Stats) bool
	}{
		{"timeout", Options{}, nil, false, iotest.ErrReader(os.ErrDeadlineExceeded), -1, 408,
			func(s Stats) bool { return s.TimedOut == 1 }},
		{"timeout before canceled", Options{}, canceled, false, iotest.ErrReader(os.ErrDeadlineExceeded), -1, 408,
			func(s Stats) bool { return s.TimedOut == 1 }},
		{"client gone while reading", Options{}, canceled, true, iotest.ErrReader(io.ErrUnexpectedEOF), -1, 0,
			func(s Stats) bool { return s.ClientGone == 1 }},
		{"gone after EOF", Options{}, canceled, true, strings.NewReader("complete"), 8, 0,
			func(s Stats) bool { return s.ClientGone == 1 && s.Buffered == 0 }},
		{"canceled while reading, client connected", Options{}, canceled, false, iotest.ErrReader(io.ErrUnexpectedEOF), -1, 503,
			func(s Stats) bool { return s.Canceled == 1 && s.ClientGone == 0 }},
		{"canceled after EOF, client connected", Options{}, canceled, false, strings.NewReader("complete"), 8, 503,
			func(s Stats) bool { return s.Canceled == 1 && s.ClientGone == 0 && s.Buffered == 0 }},
		{"canceled with a cause of its own", Options{}, ownCause, true, strings.NewReader("complete"), 8, 503,
			func(s Stats) bool { return s.Canceled == 1 && s.ClientGone == 0 }},
		{"context deadline passed", Options{}, expired, false, strings.NewReader("complete"), 8, 408,
			func(s Stats) bool { return s.TimedOut == 1 && s.ClientGone == 0 }},
		{"context deadline while reading", Options{}, expired, false, iotest.ErrReader(context.DeadlineExceeded), -1, 408,
			func(s Stats) bool { return s.TimedOut == 1 && s.ClientGone == 0 }},
		{"context canceled with a deadline cause", Options{}, deadlineCause, false, iotest.ErrReader(context.Canceled), -1, 408,
			func(s Stats) bool { return s.TimedOut == 1 && s.ClientGone == 0 }},
		{"unexpected EOF", Options{}, nil, false, iotest.ErrReader(io.ErrUnexpectedEOF), -1, 400,
			func(s Stats) bool { return s.Truncated == 1 }},
		{"longer than declared", Options{}, nil, false, strings.NewReader("12345"), 3, 400,
			func(s Stats) bool { return s.Truncated == 1 }},
		{"too large after spool", Options{MaxBytes: 10, MemBytes: 4}, nil, false, strings.NewReader(strings.Repeat("x", 11)), -1, 413,
			func(s Stats) bool { return s.TooLarge == 1 && s.Bytes == 11 }},
		{"spool dir missing", Options{MemBytes: 4, Dir: "/nonexistent/bodybuffer"}, nil, false, strings.NewReader("123456"), -1, 500,
			func(s Stats) bool { return s.SpoolErrors == 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.o.Dir == "" {
				tt.o.Dir = t.TempDir()
			}
			b := New(tt.o)
			r := httptest.NewRequest("POST", "/", io.NopCloser(tt.body))
			r.ContentLength = tt.cl
			if tt.ctx != nil {
				r = r.WithContext(tt.ctx)
			}
			w := httptest.NewRecorder()
			var rw http.ResponseWriter = w
			if tt.hangUp {
				rw = closedWriter{w}
			}
			aborted := func() (v any) {
				defer func() { v = recover() }()
				b.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
					t.Error("handler called")
				})).ServeHTTP(rw, r)
				return nil
			}()
			if tt.status == 0 {
				if aborted != http.ErrAbortHandler || w.Code != 200 || w.Body.Len() != 0 {
					t.Errorf("got panic %v, %d %q, want ErrAbortHandler and nothing written", aborted, w.Code, w.Body)
				}
			} else if w.Code != tt.status || w.Header().Get("Connection") != "close" {
				t.Errorf("status = %d, Connection = %q, want %d, close", w.Code, w.Header().Get("Connection"), tt.status)
			}
			// Only the 503 says when to come back.
			if got, want := w.Header().Get("Retry-After") != "", tt.status == 503; got != want {
				t.Errorf("status %d with Retry-After %q", w.Code, w.Header().Get("Retry-After"))
			}
			if s := b.Stats(); !tt.want(s) || s.MemHeld != 0 {
				t.Errorf("Stats() = %+v, not as expected", s)
			}
			wantRefused := uint64(1)
			if tt.status == 0 {
				wantRefused = 0 // a client gone is aborted, not refused
			}
			if got := b.Stats().Refused; got != wantRefused {
				t.Errorf("Stats().Refused = %d, want %d", got, wantRefused)
			}
		})
	}
}

// closedWriter is a ResponseWriter whose connection has closed, as
// net/http reports a client that hung up: CloseNotify has fired.
type closedWriter struct{ http.ResponseWriter }

func (closedWriter) CloseNotify() <-chan bool {
	c := make(chan bool, 1)
	c <- true
	return c
}

// A Reject handler learns why the request was refused, and finds set
// Connection: close (HTTP/1) and, only for a context canceled while the
// client is still connected, Retry-After.
func TestRejectCause(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		ctx   context.Context
		body  io.Reader
		cl    int64
		is    error
		retry string // the Retry-After Reject finds
	}{
		{"declared too large", nil, strings.NewReader(""), 11, nil, ""},
		{"read too large", nil, strings.NewReader(strings.Repeat("x", 11)), -1, nil, ""},
		{"timeout", nil, iotest.ErrReader(os.ErrDeadlineExceeded), -1, ErrTimeout, ""},
		{"truncated", nil, iotest.ErrReader(io.ErrUnexpectedEOF), -1, ErrTruncated, ""},
		{"canceled, client connected", canceled, strings.NewReader("complete"), 8, ErrCanceled, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cause error
			var retry string
			b := New(Options{MaxBytes: 10, Reject: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				cause = Cause(r)
				retry = w.Header().Get("Retry-After")
				w.WriteHeader(http.StatusTeapot)
			})})
			r := httptest.NewRequest("POST", "/", io.NopCloser(tt.body))
			r.ContentLength = tt.cl
			if tt.ctx != nil {
				r = r.WithContext(tt.ctx)
			}
			w := serveOnce(t, b, r, func(http.ResponseWriter, *http.Request) { t.Error("handler called") })
			if w.Code != http.StatusTeapot || w.Header().Get("Connection") != "close" {
				t.Errorf("status = %d, Connection = %q, want 418, close", w.Code, w.Header().Get("Connection"))
			}
			if retry != tt.retry {
				t.Errorf("Reject found Retry-After %q, want %q", retry, tt.retry)
			}
			if tt.is == nil {
				var mbe *http.MaxBytesError
				if !errors.As(cause, &mbe) || mbe.Limit != 10 {
					t.Errorf("Cause() = %v, want *http.MaxBytesError{Limit: 10}", cause)
				}
			} else if !errors.Is(cause, tt.is) {
				t.Errorf("Cause() = %v, want %v", cause, tt.is)
			}
		})
	}
	if err := Cause(httptest.NewRequest("GET", "/", nil)); err != nil {
		t.Errorf("Cause(plain request) = %v, want nil", err)
	}
}

// TestCallerRequestUntouched: next gets a request of its own; the
// caller's request keeps its body and fields while next runs and after.
func TestCallerRequestUntouched(t *testing.T) {
	b := New(Options{})
	r := httptest.NewRequest("POST", "/", io.NopCloser(strings.NewReader("body")))
	r.ContentLength = -1
	r.TransferEncoding = []string{"chunked"}
	orig := r.Body
	check := func(when string) {
		if r.Body != orig || r.ContentLength != -1 || len(r.TransferEncoding) != 1 || r.GetBody != nil {
			t.Errorf("%s: caller's request modified: Body %T, ContentLength %d, TransferEncoding %v, GetBody set %v",
				when, r.Body, r.ContentLength, r.TransferEncoding, r.GetBody != nil)
		}
	}
	serveOnce(t, b, r, func(w http.ResponseWriter, r2 *http.Request) {
		if r2 == r {
			t.Error("next got the caller's *http.Request")
		}
		if r2.Context() != r.Context() || r2.URL != r.URL {
			t.Error("next's request is not a shallow copy of the caller's")
		}
		check("while next runs")
	})
	check("after next returned")
}

// TestMultipartFilesRemoved: files of a multipart form that next parsed
// from the buffered body are removed when next returns.
func TestMultipartFilesRemoved(t *testing.T) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("f", "f.bin")
	fw.Write(bytes.Repeat([]byte("f"), 4096))
	mw.Close()
	r := httptest.NewRequest("POST", "/", &buf)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	var path string
	serveOnce(t, New(Options{}), r, func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(100); err != nil {
			t.Fatal(err)
		}
		f, _ := r.MultipartForm.File["f"][0].Open()
		if osf, ok := f.(*os.File); ok {
			path = osf.Name()
		}
		f.Close()
	})
	if path == "" {
		t.Fatal("the form file was not stored on disk")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("form file %s still exists after next returned (%v)", path, err)
	}
}

// TestRejectHandlerOwnsItsHeaders: a Reject handler that changes the
// header values it finds changes its own response only, never a later
// default refusal.
func TestRejectHandlerOwnsItsHeaders(t *testing.T) {
	tamper := New(Options{MaxBytes: 1, Reject: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, v := range w.Header() {
			v[0] = "tampered"
		}
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	})})
	plain := New(Options{MaxBytes: 1})
	for _, b := range []*Buffer{plain, tamper, plain} {
		r := httptest.NewRequest("POST", "/", strings.NewReader("too large"))
		w := serveOnce(t, b, r, func(http.ResponseWriter, *http.Request) { t.Error("handler called") })
		if b == tamper {
			continue
		}
		if got := w.Header().Get("Connection"); got != "close" {
			t.Errorf("default refusal: Connection = %q, want close", got)
		}
		if got := w.Header().Get("Content-Type"); got != "text/plain; charset=utf-8" {
			t.Errorf("default refusal: Content-Type = %q, want text/plain", got)
		}
	}
}
