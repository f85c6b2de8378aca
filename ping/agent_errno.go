//go:build !plan9

package ping

import "syscall"

// exhausted are the Accept errors of a kernel short of buffers or memory,
// which the agent retries besides temporary errors.
var exhausted = []error{syscall.ENOBUFS, syscall.ENOMEM}
