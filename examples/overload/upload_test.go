package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

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

// TestUploadChain checks what the table reads from a child server: the
// handler's body reads hold the slot for the whole upload with
// concurrency alone, and run on a complete body behind bodybuffer.
func TestUploadChain(t *testing.T) {
	upload := 3 * small.gap // the client sends its last chunk after 3 pauses
	for _, variant := range []string{"concurrency", "bodybuffer"} {
		t.Run(variant, func(t *testing.T) {
			collect = nil
			c := serverConfig{scenario: "upload", variant: variant, limit: 1, iters: 1,
				backlog: 8, queueTimeout: time.Second}
			srv := httptest.NewServer(c.protect(c.handler()))
			code, _, err := slowUpload(strings.TrimPrefix(srv.URL, "http://"), small)
			srv.Close()
			if err != nil || code != http.StatusOK {
				t.Fatalf("slowUpload() = %d, %v, want 200, nil", code, err)
			}
			var st serverStats
			for _, f := range collect {
				f(&st)
			}
			if st.Handled != 1 || st.Admitted != 1 {
				t.Errorf("Handled, Admitted = %d, %d, want 1, 1", st.Handled, st.Admitted)
			}
			inSlot := time.Duration(st.ReadNanos) >= upload
			if want := variant == "concurrency"; inSlot != want {
				t.Errorf("body read %v in the slot, upload took >= %v: read in slot = %v, want %v",
					time.Duration(st.ReadNanos), upload, inSlot, want)
			}
			if variant == "bodybuffer" && (st.Buffered != 1 || st.BufMemPeak == 0) {
				t.Errorf("Buffered, MemPeak = %d, %d, want 1, > 0", st.Buffered, st.BufMemPeak)
			}
		})
	}
}
