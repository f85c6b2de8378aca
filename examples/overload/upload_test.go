package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain checks for leaks, apart from the goroutines the peers' packages
// start in their init (go-zero's and kratos' CPU samplers, go-zero's
// signal handler), which run before it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }

// small is a slow upload of 4 chunks, 3 pauses of 20 ms.
var small = uploadSpec{size: 4 << 10, chunk: 1 << 10, gap: 20 * time.Millisecond, timeout: 5 * time.Second, max: 4}

func TestSlowUpload(t *testing.T) {
	tests := []struct {
		name string
		h    http.HandlerFunc
		want int
	}{
		{"read all", func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			if len(b) != small.size {
				t.Errorf("server read %d bytes, want %d", len(b), small.size)
			}
		}, http.StatusOK},
		{"refused before the body", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}, http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.h)
			defer srv.Close()
			code, _, err := slowUpload(strings.TrimPrefix(srv.URL, "http://"), small)
			if err != nil || code != tt.want {
				t.Errorf("slowUpload() = %d, %v, want %d, nil", code, err, tt.want)
			}
		})
	}
}

func TestSlowUploadsCount(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	o := slowUploads(strings.TrimPrefix(srv.URL, "http://"), 200, 100*time.Millisecond, 0, small, 1)
	if o.started == 0 || o.ok != o.started || o.refused+o.failed() != 0 {
		t.Errorf("slowUploads() = %+v, want every started upload ok", o)
	}
}

// large is a slow upload over bigBody, 4 chunks, 3 pauses of 20 ms.
var large = uploadSpec{size: bigBody + 16<<10, chunk: (bigBody + 16<<10) / 4, gap: 20 * time.Millisecond,
	timeout: 5 * time.Second, max: 4}

// TestUploadChain checks what the table reads from a child server: the
// handler's body reads hold the slot for the whole upload with
// concurrency alone, and run on a complete body behind bodybuffer, with
// or without shed in front.
func TestUploadChain(t *testing.T) {
	upload := 3 * large.gap // the client sends its last chunk after 3 pauses
	for _, variant := range []string{"concurrency", "bodybuffer", "frontdoor", "split"} {
		t.Run(variant, func(t *testing.T) {
			s := newTestServer(t, serverConfig{scenario: "upload", variant: variant, limit: 1, iters: 1,
				backlog: 8, queueTimeout: time.Second})
			srv := httptest.NewServer(s.h)
			code, _, err := slowUpload(strings.TrimPrefix(srv.URL, "http://"), large)
			srv.Close()
			if err != nil || code != http.StatusOK {
				t.Fatalf("slowUpload() = %d, %v, want 200, nil", code, err)
			}
			st := s.stats()
			if st.Handled != 1 || st.Admitted != 1 || st.BigHandled != 1 {
				t.Errorf("Handled, Admitted, BigHandled = %d, %d, %d, want 1, 1, 1", st.Handled, st.Admitted, st.BigHandled)
			}
			inSlot := time.Duration(st.ReadNanos) >= upload
			if want := variant == "concurrency"; inSlot != want {
				t.Errorf("body read %v in the slot, upload took >= %v: read in slot = %v, want %v",
					time.Duration(st.ReadNanos), upload, inSlot, want)
			}
			buffered := variant != "concurrency"
			if buffered && (st.Buffered != 1 || st.BufMemPeak == 0 || st.BufBytes != uint64(large.size) || st.BigIn != 1) {
				t.Errorf("Buffered, MemPeak, Bytes, BigIn = %d, %d, %d, %d, want 1, > 0, %d, 1",
					st.Buffered, st.BufMemPeak, st.BufBytes, st.BigIn, large.size)
			}
			if shedded := variant == "frontdoor" || variant == "split"; shedded != (st.ShedAdmitted == 1) {
				t.Errorf("shed Admitted = %d with variant %s", st.ShedAdmitted, variant)
			}
		})
	}
}

// testServer is a server built as a child builds it, and its handler.
type testServer struct {
	*server
	h http.Handler
}

// newTestServer builds the server of c.
func newTestServer(t *testing.T, c serverConfig) testServer {
	t.Helper()
	s := &server{serverConfig: c}
	h, err := s.build()
	if err != nil {
		t.Fatalf("build() error %v", err)
	}
	return testServer{s, h}
}

// TestUploadShed checks the frontdoor variant's point: with shed's limit
// taken by uploads in progress, the next upload is refused with 503 on its
// headers, and bodybuffer never reads it.
func TestUploadShed(t *testing.T) {
	c := serverConfig{scenario: "upload", variant: "frontdoor", limit: 1, iters: 1,
		backlog: 1, queueTimeout: time.Second}
	s := newTestServer(t, c)
	limit := uploadShedLimit(c)
	if limit != 4 {
		t.Fatalf("uploadShedLimit() = %d, want 2 × (1 + 1) = 4", limit)
	}
	srv := httptest.NewServer(s.h)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	// Uploads that send one chunk, then wait far longer than the test.
	hold := uploadSpec{size: 4 << 10, chunk: 1 << 10, gap: time.Minute, timeout: 30 * time.Second, max: 1}
	var wg sync.WaitGroup
	for range limit {
		wg.Go(func() { slowUpload(addr, hold) })
	}
	for deadline := time.Now().Add(5 * time.Second); s.stats().ShedAdmitted < uint64(limit); {
		if time.Now().After(deadline) {
			t.Fatalf("shed Admitted = %d after 5 s, want %d", s.stats().ShedAdmitted, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	before := s.stats().BufBytes
	code, _, err := slowUpload(addr, large)
	after := s.stats()
	srv.CloseClientConnections() // ends the held uploads
	wg.Wait()
	if err != nil || code != http.StatusServiceUnavailable {
		t.Errorf("slowUpload() past the limit = %d, %v, want 503, nil", code, err)
	}
	if after.Shed != 1 || after.BigIn != 0 || after.BufBytes-before >= uint64(large.size) {
		t.Errorf("Shed, BigIn, bytes read = %d, %d, %d, want 1, 0, < %d",
			after.Shed, after.BigIn, after.BufBytes-before, large.size)
	}
}

// TestUploadSplit checks the split variant's point: with the uploads'
// Shedder full of uploads in progress, a short request still gets through
// and the next upload is refused on its headers.
func TestUploadSplit(t *testing.T) {
	c := serverConfig{scenario: "upload", variant: "split", limit: 1, iters: 1,
		backlog: 1, queueTimeout: time.Second}
	s := newTestServer(t, c)
	limit := uploadShedLimit(c)
	srv := httptest.NewServer(s.h)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	// Uploads over bigBody that send one chunk, then wait far longer than the test.
	hold := uploadSpec{size: bigBody + 16<<10, chunk: 1 << 10, gap: time.Minute, timeout: 30 * time.Second, max: 1}
	var wg sync.WaitGroup
	for range limit {
		wg.Go(func() { slowUpload(addr, hold) })
	}
	for deadline := time.Now().Add(5 * time.Second); s.stats().ShedAdmitted < uint64(limit); {
		if time.Now().After(deadline) {
			t.Fatalf("shed Admitted = %d after 5 s, want %d", s.stats().ShedAdmitted, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	resp, err := srv.Client().Post(srv.URL, "application/octet-stream", strings.NewReader(strings.Repeat("x", 1<<10)))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	code, _, err := slowUpload(addr, large)
	after := s.stats()
	srv.CloseClientConnections() // ends the held uploads
	wg.Wait()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("short request with the uploads' Shedder full: status %d, want 200", resp.StatusCode)
	}
	if err != nil || code != http.StatusServiceUnavailable {
		t.Errorf("slowUpload() past the uploads' limit = %d, %v, want 503, nil", code, err)
	}
	if after.Shed != 1 {
		t.Errorf("Shed = %d, want 1", after.Shed)
	}
}
