package metrics

import (
	"io"

	"github.com/felixge/httpsnoop"
)

// numClasses is the number of status classes: "other" (codes 600–999,
// which net/http lets a handler send) at index 0, then 1xx to 5xx.
const numClasses = 6

var classNames = [numClasses]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

// classOf returns the index of status's class; 0 (no status sent) counts
// as the 200 net/http sends for a handler that wrote nothing.
func classOf(status int) int {
	switch {
	case status == 0:
		return 2
	case status >= 100 && status < 600:
		return status / 100
	default:
		return 0
	}
}

// recorder keeps what the hooks see of one response. It is used by the
// request's goroutine only (a ResponseWriter is not safe for concurrent
// use), so its fields need no atomics.
type recorder struct {
	status int   // first final status sent, 0 until then
	bytes  int64 // body bytes written
}

// sent notes that a response started with status code, if none had.
// Informational responses other than 101 are not final: net/http sends
// them at once and keeps the real status to come.
func (rec *recorder) sent(code int) {
	if rec.status == 0 && (code >= 200 || code == 101 || code < 100) {
		rec.status = code
	}
}

func (rec *recorder) hooks() httpsnoop.Hooks {
	return httpsnoop.Hooks{
		WriteHeader: func(next httpsnoop.WriteHeaderFunc) httpsnoop.WriteHeaderFunc {
			return func(code int) {
				next(code)
				rec.sent(code)
			}
		},
		Write: func(next httpsnoop.WriteFunc) httpsnoop.WriteFunc {
			return func(p []byte) (int, error) {
				n, err := next(p)
				rec.sent(200)
				rec.bytes += int64(n)
				return n, err
			}
		},
		WriteString: func(next httpsnoop.WriteStringFunc) httpsnoop.WriteStringFunc {
			return func(s string) (int, error) {
				n, err := next(s)
				rec.sent(200)
				rec.bytes += int64(n)
				return n, err
			}
		},
		ReadFrom: func(next httpsnoop.ReadFromFunc) httpsnoop.ReadFromFunc {
			return func(src io.Reader) (int64, error) {
				n, err := next(src)
				rec.sent(200)
				rec.bytes += n
				return n, err
			}
		},
	}
}
