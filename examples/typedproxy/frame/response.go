package frame

// Response is the typed form of an HTTP response: status, content type and
// body. It follows message Response in messages.proto. The zero value is an
// empty response; a status of 0 means the sender did not set one.
type Response struct {
	Status      int32
	ContentType string
	Body        []byte
}

// Field numbers of message Response.
const (
	respStatus      = 1
	respContentType = 2
	respBody        = 3
)

// Append appends the protobuf encoding of m to b and returns the result.
func (m *Response) Append(b []byte) []byte {
	b = appendInt32(b, respStatus, m.Status)
	b = appendString(b, respContentType, m.ContentType)
	return appendBytes(b, respBody, m.Body)
}

// Size returns the length of m's encoding.
func (m *Response) Size() int {
	return sizeInt32(respStatus, m.Status) +
		sizeString(respContentType, len(m.ContentType)) +
		sizeString(respBody, len(m.Body))
}

// Reset sets m to the zero Response.
func (m *Response) Reset() { *m = Response{} }

// Unmarshal resets m and decodes b into it. Body aliases b: copy it to keep
// it after b is reused. Unknown fields are skipped. Errors wrap
// ErrMalformed.
func (m *Response) Unmarshal(b []byte) error {
	m.Reset()
	d := decoder{msg: "Response", b: b}
	for d.next() {
		switch d.num {
		case respStatus:
			m.Status = d.int32()
		case respContentType:
			m.ContentType = d.string()
		case respBody:
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
