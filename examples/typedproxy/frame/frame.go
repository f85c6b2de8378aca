package frame

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
)

// HeaderSize is the size of the length prefix in front of every payload:
// an unsigned 32-bit integer in big-endian (network) byte order.
const HeaderSize = 4

// DefaultMaxSize is the largest payload a reader accepts when the caller
// has no better idea: 4 MiB.
const DefaultMaxSize = 4 << 20

// growStep bounds how much Read allocates ahead of the bytes that actually
// arrived, so a peer announcing a large frame and sending nothing costs
// little memory.
const growStep = 64 << 10

// A SizeError reports a frame whose payload is longer than the limit in
// force. Read returns it before reading (or allocating for) the payload;
// End returns it for a payload that was built too large.
type SizeError struct {
	Size uint64 // payload length announced or built
	Max  int    // limit in force
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("frame: payload of %d bytes over the limit of %d", e.Size, e.Max)
}

// Begin appends room for a frame header to b and returns the result.
// Append the payload to it, then call End with the slice that starts at
// the header.
func Begin(b []byte) []byte {
	return append(b, 0, 0, 0, 0)
}

// End writes the payload length into the header at the start of f, which
// is the slice Begin returned with the payload appended. It returns a
// *SizeError, and leaves f unchanged, if the payload is longer than limit.
func End(f []byte, limit int) error {
	if len(f) < HeaderSize {
		panic("frame: End on a slice without a header")
	}
	n := len(f) - HeaderSize
	if n > limit || n > math.MaxUint32 {
		return &SizeError{Size: uint64(n), Max: limit}
	}
	binary.BigEndian.PutUint32(f, uint32(n))
	return nil
}

// Read reads one frame from r and returns its payload. The payload is
// stored in buf's array when it fits and in a larger one otherwise; the
// returned slice (also on error, then with length 0) is the one to reuse.
//
// Read returns io.EOF if r ended cleanly before the first byte of a frame,
// io.ErrUnexpectedEOF if it ended inside one, and a *SizeError, without
// reading on, if the announced payload is longer than limit. Short reads
// and frames split across packets are handled: Read reads until the frame
// is complete or r fails. Wrap a net.Conn in a bufio.Reader so a small
// frame costs one system call.
func Read(r io.Reader, buf []byte, limit int) ([]byte, error) {
	if cap(buf) < HeaderSize {
		buf = make([]byte, 0, 512)
	}
	hdr := buf[:HeaderSize]
	if _, err := io.ReadFull(r, hdr); err != nil {
		return buf[:0], err
	}
	size := binary.BigEndian.Uint32(hdr)
	if uint64(size) > uint64(limit) {
		return buf[:0], &SizeError{Size: uint64(size), Max: limit}
	}
	n := int(size)
	if n <= cap(buf) {
		p := buf[:n]
		if _, err := io.ReadFull(r, p); err != nil {
			return buf[:0], unexpected(err)
		}
		return p, nil
	}
	// Grow as the bytes arrive instead of trusting the announced size.
	p := buf[:0]
	for len(p) < n {
		if len(p) == cap(p) {
			p = slices.Grow(p, min(n-len(p), max(len(p), growStep)))
		}
		m, err := io.ReadFull(r, p[len(p):min(n, cap(p))])
		p = p[:len(p)+m]
		if err != nil {
			return p[:0], unexpected(err)
		}
	}
	return p, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
