package frame

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrMalformed is wrapped by every error Unmarshal returns: the bytes are
// not a valid encoding of the message (bad varint, length past the end,
// field number out of range, wrong wire type for a known field, invalid
// UTF-8 in a string field).
var ErrMalformed = errors.New("frame: malformed message")

func malformed(msg string, num protowire.Number, why any) error {
	return fmt.Errorf("%w: %s field %d: %v", ErrMalformed, msg, num, why)
}

// appendString appends field num unless s is empty (proto3 default).
func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// appendInt32 encodes like protobuf int32: negative values sign-extend to
// ten bytes.
func appendInt32(b []byte, num protowire.Number, v int32) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(int64(v)))
}

func sizeString(num protowire.Number, n int) int {
	if n == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

func sizeInt32(num protowire.Number, v int32) int {
	if v == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeVarint(uint64(int64(v)))
}

// A decoder walks the fields of one message. Each consume method checks
// the wire type, returns the value and advances; the first error sticks.
type decoder struct {
	msg string
	b   []byte
	num protowire.Number
	typ protowire.Type
	err error
}

// next reads the next tag; it reports false at the end or on error.
// Field numbers outside 1..2^29-1 are malformed, as in the protobuf
// runtime (ConsumeTag alone lets numbers up to 2^31-1 through).
func (d *decoder) next() bool {
	if len(d.b) == 0 || d.err != nil {
		return false
	}
	num, typ, n := protowire.ConsumeTag(d.b)
	if n < 0 {
		d.err = malformed(d.msg, 0, protowire.ParseError(n))
		return false
	}
	if num > protowire.MaxValidNumber {
		d.err = malformed(d.msg, num, "field number above 2^29-1")
		return false
	}
	d.num, d.typ, d.b = num, typ, d.b[n:]
	return true
}

func (d *decoder) bytes() []byte {
	if d.typ != protowire.BytesType {
		d.err = malformed(d.msg, d.num, "wire type is not bytes")
		return nil
	}
	v, n := protowire.ConsumeBytes(d.b)
	if n < 0 {
		d.err = malformed(d.msg, d.num, protowire.ParseError(n))
		return nil
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	v := d.bytes()
	if !utf8.Valid(v) {
		d.err = malformed(d.msg, d.num, "invalid UTF-8")
		return ""
	}
	return string(v)
}

func (d *decoder) int32() int32 {
	if d.typ != protowire.VarintType {
		d.err = malformed(d.msg, d.num, "wire type is not varint")
		return 0
	}
	v, n := protowire.ConsumeVarint(d.b)
	if n < 0 {
		d.err = malformed(d.msg, d.num, protowire.ParseError(n))
		return 0
	}
	d.b = d.b[n:]
	return int32(v)
}

// skip passes over a field this version does not know, as protobuf
// requires for forward compatibility.
func (d *decoder) skip() {
	n := protowire.ConsumeFieldValue(d.num, d.typ, d.b)
	if n < 0 {
		d.err = malformed(d.msg, d.num, protowire.ParseError(n))
		return
	}
	d.b = d.b[n:]
}
