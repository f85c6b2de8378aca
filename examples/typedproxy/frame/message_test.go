package frame_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
)

var requests = []frame.Request{
	{},
	{Version: 2, URL: "/v2/users?id=7", Method: "GET"},
	{Version: -1, URL: "/ü", Method: "POST", Host: "example.com", RemoteAddr: "127.0.0.1:1234",
		ContentType: "application/json", Accept: "*/*", RequestID: "abc",
		Header: []frame.Header{{Name: "Authorization", Value: "Bearer x"}, {Name: "X-Empty"}, {}},
		Body:   []byte(`{"a":1}`)},
	{Body: bytes.Repeat([]byte{0}, 1<<20)},
}

var responses = []frame.Response{
	{},
	{Status: 200, Body: []byte("hello")},
	{Status: 503, ContentType: "text/plain; charset=utf-8"},
	{Status: -7, Body: bytes.Repeat([]byte("z"), 300000)},
}

func TestRequestRoundTrip(t *testing.T) {
	for _, want := range requests {
		b := want.Append(nil)
		if got := want.Size(); got != len(b) {
			t.Errorf("Size() = %d, want %d", got, len(b))
		}
		var got frame.Request
		got.Header = make([]frame.Header, 3) // stale state must be reset
		got.URL = "stale"
		if err := got.Unmarshal(b); err != nil {
			t.Fatalf("Unmarshal() = %v, want nil", err)
		}
		if !equalRequest(&got, &want) {
			t.Errorf("Unmarshal(Append(%+v)) = %+v", want, got)
		}
	}
}

func TestResponseRoundTrip(t *testing.T) {
	for _, want := range responses {
		b := want.Append(nil)
		if got := want.Size(); got != len(b) {
			t.Errorf("Size() = %d, want %d", got, len(b))
		}
		got := frame.Response{Status: 1, ContentType: "stale"}
		if err := got.Unmarshal(b); err != nil {
			t.Fatalf("Unmarshal() = %v, want nil", err)
		}
		if got.Status != want.Status || got.ContentType != want.ContentType || !bytes.Equal(got.Body, want.Body) {
			t.Errorf("Unmarshal(Append(%v)) = %v", want.Status, got.Status)
		}
	}
}

// equalRequest compares treating nil and empty slices alike.
func equalRequest(a, b *frame.Request) bool {
	x, y := *a, *b
	if !bytes.Equal(x.Body, y.Body) || len(x.Header) != len(y.Header) {
		return false
	}
	for i := range x.Header {
		if x.Header[i] != y.Header[i] {
			return false
		}
	}
	x.Body, y.Body, x.Header, y.Header = nil, nil, nil, nil
	return reflect.DeepEqual(x, y)
}

func TestUnmarshalMalformed(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{"truncated tag", []byte{0x80}},
		{"truncated varint", []byte{0x08, 0x80}},
		{"length past end", []byte{0x12, 0x05, 'a'}},
		{"wrong wire type", []byte{0x0a, 0x01, 'a'}},         // field 1 (int32) as bytes
		{"string as varint", []byte{0x10, 0x01}},             // field 2 (string) as varint
		{"invalid utf8", []byte{0x12, 0x02, 0xff, 0xfe}},     // field 2 not UTF-8
		{"field zero", []byte{0x00, 0x00}},                   // field number 0
		{"bad unknown field", []byte{0xf8, 0x01, 0x80}},      // field 31 varint cut short
		{"end group without start", []byte{0xfc, 0x01}},      // field 31 end group
		{"bad header", []byte{0x4a, 0x02, 0x0a, 0x05}},       // Header.name past end
		{"garbage", []byte("GET / HTTP/1.1\r\nHost: x\r\n")}, // not protobuf
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req frame.Request
			if err := req.Unmarshal(tt.in); !errors.Is(err, frame.ErrMalformed) {
				t.Errorf("Request.Unmarshal(% x) = %v, want ErrMalformed", tt.in, err)
			}
			if !equalRequest(&req, &frame.Request{}) {
				t.Errorf("Request after error = %+v, want zero", req)
			}
			var resp frame.Response
			if err := resp.Unmarshal(tt.in); err == nil && tt.name != "bad header" { // field 9 is unknown to Response
				t.Errorf("Response.Unmarshal(% x) = nil, want error", tt.in)
			}
		})
	}
}

func TestUnmarshalSkipsUnknownFields(t *testing.T) {
	b := (&frame.Response{Status: 201, Body: []byte("x")}).Append(nil)
	b = append(b, 0xa0, 0x06, 0x2a)      // field 100, varint 42
	b = append(b, 0xaa, 0x06, 0x01, 'y') // field 101, bytes "y"
	var resp frame.Response
	if err := resp.Unmarshal(b); err != nil || resp.Status != 201 || string(resp.Body) != "x" {
		t.Errorf("Unmarshal() = %+v, %v; want status 201 body x", resp, err)
	}
}

func TestRequestValid(t *testing.T) {
	if !requests[2].Valid() {
		t.Errorf("Valid() = false, want true")
	}
	bad := []frame.Request{{URL: "/\xff"}, {Header: []frame.Header{{Name: "X", Value: "\xc3"}}}}
	for _, r := range bad {
		if r.Valid() {
			t.Errorf("Valid(%q) = true, want false", r.URL)
		}
	}
}

// TestUnmarshalFieldNumberRange checks that field numbers above
// 2^29-1, which protobuf does not allow, are refused like the runtime
// refuses them, and that the largest valid one is skipped as unknown.
func TestUnmarshalFieldNumberRange(t *testing.T) {
	field := func(num protowire.Number) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), 1)
	}
	tests := []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"largest valid", field(protowire.MaxValidNumber), true},
		{"one above", field(protowire.MaxValidNumber + 1), false},
		{"largest int32", field(math.MaxInt32), false},
		{"after a known field", append([]byte{0x08, 0x01}, field(1<<30)...), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req frame.Request
			if err := req.Unmarshal(tt.in); (err == nil) != tt.ok || (err != nil && !errors.Is(err, frame.ErrMalformed)) {
				t.Errorf("Request.Unmarshal(% x) = %v, want ok %v (or ErrMalformed)", tt.in, err, tt.ok)
			}
			var resp frame.Response
			if err := resp.Unmarshal(tt.in); (err == nil) != tt.ok || (err != nil && !errors.Is(err, frame.ErrMalformed)) {
				t.Errorf("Response.Unmarshal(% x) = %v, want ok %v (or ErrMalformed)", tt.in, err, tt.ok)
			}
		})
	}
}
