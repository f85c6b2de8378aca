package frame

import (
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// Request is the typed form of an HTTP request: the fields the front
// knows matter, and the body. It follows message Request in
// messages.proto. The zero value is an empty request.
type Request struct {
	Version     int32  // API version, e.g. 2 for a "/v2/..." path; 0 if none
	URL         string // request target: path and query, as received
	Method      string
	Host        string
	RemoteAddr  string
	ContentType string
	Accept      string
	RequestID   string   // X-Request-Id
	Header      []Header // further headers the front forwards by name
	Body        []byte
}

// Header is one forwarded HTTP header.
type Header struct {
	Name, Value string
}

// Field numbers of message Request and message Header.
const (
	reqVersion     = 1
	reqURL         = 2
	reqMethod      = 3
	reqHost        = 4
	reqRemoteAddr  = 5
	reqContentType = 6
	reqAccept      = 7
	reqRequestID   = 8
	reqHeader      = 9
	reqBody        = 10

	hdrName  = 1
	hdrValue = 2
)

// Append appends the protobuf encoding of m to b and returns the result.
// Fields at their zero value are left out, as in proto3. String fields are
// written as they are; the receiving Unmarshal rejects invalid UTF-8, so a
// sender that cannot vouch for its strings checks them first (Valid).
func (m *Request) Append(b []byte) []byte {
	b = appendInt32(b, reqVersion, m.Version)
	b = appendString(b, reqURL, m.URL)
	b = appendString(b, reqMethod, m.Method)
	b = appendString(b, reqHost, m.Host)
	b = appendString(b, reqRemoteAddr, m.RemoteAddr)
	b = appendString(b, reqContentType, m.ContentType)
	b = appendString(b, reqAccept, m.Accept)
	b = appendString(b, reqRequestID, m.RequestID)
	for i := range m.Header {
		h := &m.Header[i]
		b = protowire.AppendTag(b, reqHeader, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(h.size()))
		b = appendString(b, hdrName, h.Name)
		b = appendString(b, hdrValue, h.Value)
	}
	return appendBytes(b, reqBody, m.Body)
}

// Size returns the length of m's encoding.
func (m *Request) Size() int {
	n := sizeInt32(reqVersion, m.Version) +
		sizeString(reqURL, len(m.URL)) +
		sizeString(reqMethod, len(m.Method)) +
		sizeString(reqHost, len(m.Host)) +
		sizeString(reqRemoteAddr, len(m.RemoteAddr)) +
		sizeString(reqContentType, len(m.ContentType)) +
		sizeString(reqAccept, len(m.Accept)) +
		sizeString(reqRequestID, len(m.RequestID)) +
		sizeString(reqBody, len(m.Body))
	for i := range m.Header {
		n += protowire.SizeTag(reqHeader) + protowire.SizeBytes(m.Header[i].size())
	}
	return n
}

func (h *Header) size() int {
	return sizeString(hdrName, len(h.Name)) + sizeString(hdrValue, len(h.Value))
}

// Reset sets m to the zero Request, keeping the capacity of m.Header.
func (m *Request) Reset() {
	*m = Request{Header: m.Header[:0]}
}

// Unmarshal resets m and decodes b into it. Body aliases b: copy it to keep
// it after b is reused. Strings are copied. Unknown fields are skipped; a
// repeated scalar field keeps its last value, as in protobuf. Errors wrap
// ErrMalformed.
func (m *Request) Unmarshal(b []byte) error {
	m.Reset()
	d := decoder{msg: "Request", b: b}
	for d.next() {
		switch d.num {
		case reqVersion:
			m.Version = d.int32()
		case reqURL:
			m.URL = d.string()
		case reqMethod:
			m.Method = d.string()
		case reqHost:
			m.Host = d.string()
		case reqRemoteAddr:
			m.RemoteAddr = d.string()
		case reqContentType:
			m.ContentType = d.string()
		case reqAccept:
			m.Accept = d.string()
		case reqRequestID:
			m.RequestID = d.string()
		case reqHeader:
			if v := d.bytes(); d.err == nil {
				var h Header
				d.err = h.unmarshal(v)
				m.Header = append(m.Header, h)
			}
		case reqBody:
			m.Body = d.bytes()
		default:
			d.skip()
		}
	}
	if d.err != nil {
		m.Reset()
	}
	return d.err
}

func (h *Header) unmarshal(b []byte) error {
	d := decoder{msg: "Header", b: b}
	for d.next() {
		switch d.num {
		case hdrName:
			h.Name = d.string()
		case hdrValue:
			h.Value = d.string()
		default:
			d.skip()
		}
	}
	return d.err
}

// Valid reports whether every string field of m is valid UTF-8, which
// protobuf requires of proto3 strings.
func (m *Request) Valid() bool {
	for _, s := range [...]string{m.URL, m.Method, m.Host, m.RemoteAddr, m.ContentType, m.Accept, m.RequestID} {
		if !utf8.ValidString(s) {
			return false
		}
	}
	for _, h := range m.Header {
		if !utf8.ValidString(h.Name) || !utf8.ValidString(h.Value) {
			return false
		}
	}
	return true
}
