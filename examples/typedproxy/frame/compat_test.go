package frame_test

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
)

// schema builds messages.proto as a descriptor, so the protobuf runtime
// can check the hand-written encoding without generated code.
func schema(t testing.TB) protoreflect.FileDescriptor {
	t.Helper()
	field := func(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type, label descriptorpb.FieldDescriptorProto_Label, typeName string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{
			Name: proto.String(name), Number: proto.Int32(num), Type: typ.Enum(), Label: label.Enum(),
			JsonName: proto.String(name),
		}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		return f
	}
	const (
		opt = descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
		rep = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
		i32 = descriptorpb.FieldDescriptorProto_TYPE_INT32
		str = descriptorpb.FieldDescriptorProto_TYPE_STRING
		byt = descriptorpb.FieldDescriptorProto_TYPE_BYTES
		msg = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
	)
	fd := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("messages.proto"),
		Package: proto.String("frontdoor.typedproxy"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Header"), Field: []*descriptorpb.FieldDescriptorProto{
				field("name", 1, str, opt, ""), field("value", 2, str, opt, ""),
			}},
			{Name: proto.String("Request"), Field: []*descriptorpb.FieldDescriptorProto{
				field("version", 1, i32, opt, ""), field("url", 2, str, opt, ""),
				field("method", 3, str, opt, ""), field("host", 4, str, opt, ""),
				field("remote_addr", 5, str, opt, ""), field("content_type", 6, str, opt, ""),
				field("accept", 7, str, opt, ""), field("request_id", 8, str, opt, ""),
				field("headers", 9, msg, rep, ".frontdoor.typedproxy.Header"),
				field("body", 10, byt, opt, ""),
			}},
			{Name: proto.String("Response"), Field: []*descriptorpb.FieldDescriptorProto{
				field("status", 1, i32, opt, ""), field("content_type", 2, str, opt, ""),
				field("body", 3, byt, opt, ""),
			}},
		},
	}
	f, err := protodesc.NewFile(fd, nil)
	if err != nil {
		t.Fatalf("protodesc.NewFile() = %v", err)
	}
	return f
}

// TestProtobufCompat checks that the protobuf runtime reads what Append
// writes, field by field, and that Unmarshal reads what the runtime writes.
func TestProtobufCompat(t *testing.T) {
	msgs := schema(t).Messages()
	for _, want := range requests {
		m := dynamicpb.NewMessage(msgs.ByName("Request"))
		if err := proto.Unmarshal(want.Append(nil), m); err != nil {
			t.Fatalf("proto.Unmarshal(Request) = %v", err)
		}
		get := func(name string) protoreflect.Value {
			return m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name)))
		}
		if got := int32(get("version").Int()); got != want.Version {
			t.Errorf("runtime version = %d, want %d", got, want.Version)
		}
		if got := get("url").String(); got != want.URL {
			t.Errorf("runtime url = %q, want %q", got, want.URL)
		}
		if got := get("request_id").String(); got != want.RequestID {
			t.Errorf("runtime request_id = %q, want %q", got, want.RequestID)
		}
		if got := get("headers").List().Len(); got != len(want.Header) {
			t.Errorf("runtime headers = %d, want %d", got, len(want.Header))
		}
		if got := len(get("body").Bytes()); got != len(want.Body) {
			t.Errorf("runtime body = %d bytes, want %d", got, len(want.Body))
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatalf("proto.Marshal(Request) = %v", err)
		}
		var got frame.Request
		if err := got.Unmarshal(b); err != nil || !equalRequest(&got, &want) {
			t.Errorf("Unmarshal(runtime bytes) = %+v, %v; want %+v", got, err, want)
		}
	}
	for _, want := range responses {
		m := dynamicpb.NewMessage(msgs.ByName("Response"))
		if err := proto.Unmarshal(want.Append(nil), m); err != nil {
			t.Fatalf("proto.Unmarshal(Response) = %v", err)
		}
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatalf("proto.Marshal(Response) = %v", err)
		}
		var got frame.Response
		if err := got.Unmarshal(b); err != nil || got.Status != want.Status || got.ContentType != want.ContentType || string(got.Body) != string(want.Body) {
			t.Errorf("Unmarshal(runtime bytes) = %d, %v; want %d", got.Status, err, want.Status)
		}
	}
	// The runtime rejects invalid UTF-8 in proto3 strings, and so does Unmarshal.
	bad := (&frame.Request{URL: "/\xff"}).Append(nil)
	if err := proto.Unmarshal(bad, dynamicpb.NewMessage(msgs.ByName("Request"))); err == nil {
		t.Errorf("runtime accepted invalid UTF-8; the schema test is not testing proto3")
	}
}

// FuzzRuntimeAgreement decodes arbitrary payloads with Unmarshal and with
// the protobuf runtime (dynamicpb, built from messages.proto): Unmarshal
// accepts exactly what the runtime accepts, and both read the same values.
// One difference is by design: Unmarshal refuses a known field sent with
// another wire type, which the runtime keeps as an unknown field.
func FuzzRuntimeAgreement(f *testing.F) {
	msgs := schema(f).Messages()
	reqDesc, respDesc := msgs.ByName("Request"), msgs.ByName("Response")
	for _, r := range requests[:3] {
		f.Add(r.Append(nil))
	}
	for _, r := range responses[:3] {
		f.Add(r.Append(nil))
	}
	f.Add([]byte{0xa0, 0x06, 0x2a})                   // unknown field 100, varint
	f.Add([]byte{0xab, 0x06, 0x08, 0x01, 0xac, 0x06}) // unknown group 101
	f.Add([]byte{0x0a, 0x01, 'a'})                    // field 1 (int32) as bytes
	f.Add([]byte{0x4a, 0x02, 0x08, 0x01})             // Header.name as varint
	f.Add(protowire.AppendTag(nil, protowire.MaxValidNumber, protowire.VarintType))
	f.Add(append(protowire.AppendTag(nil, protowire.MaxValidNumber+1, protowire.VarintType), 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		rt := dynamicpb.NewMessage(reqDesc)
		rerr := proto.Unmarshal(b, rt)
		var req frame.Request
		err := req.Unmarshal(b)
		agree(t, "Request", b, err, rerr, rt)
		if err == nil && rerr == nil {
			if want := requestOf(rt); !equalRequest(&req, &want) {
				t.Fatalf("Request.Unmarshal(% x) = %+v, runtime read %+v", b, req, want)
			}
		}

		rt = dynamicpb.NewMessage(respDesc)
		rerr = proto.Unmarshal(b, rt)
		var resp frame.Response
		err = resp.Unmarshal(b)
		agree(t, "Response", b, err, rerr, rt)
		if err == nil && rerr == nil {
			get := fieldGetter(rt)
			if resp.Status != int32(get("status").Int()) || resp.ContentType != get("content_type").String() ||
				string(resp.Body) != string(get("body").Bytes()) {
				t.Fatalf("Response.Unmarshal(% x) = %+v, runtime read %v", b, resp, rt)
			}
		}
	})
}

// agree fails t unless Unmarshal's error err and the runtime's rerr say
// the same about b, given what the runtime decoded into rt.
func agree(t *testing.T, msg string, b []byte, err, rerr error, rt protoreflect.Message) {
	t.Helper()
	switch {
	case rerr != nil && err == nil:
		t.Fatalf("%s.Unmarshal(% x) = nil, runtime refused it: %v", msg, b, rerr)
	case rerr == nil && hasMistypedField(rt):
		if err == nil {
			t.Fatalf("%s.Unmarshal(% x) = nil, want an error for a known field of another wire type", msg, b)
		}
	case rerr == nil && err != nil:
		t.Fatalf("%s.Unmarshal(% x) = %v, runtime accepted it", msg, b, err)
	}
}

// hasMistypedField reports whether m or a message in it holds, among its
// unknown fields, the number of a known field: the runtime's way of
// keeping a known field sent with another wire type.
func hasMistypedField(m protoreflect.Message) bool {
	fields := m.Descriptor().Fields()
	for b := m.GetUnknown(); len(b) > 0; {
		num, _, n := protowire.ConsumeField(b)
		if fields.ByNumber(num) != nil {
			return true
		}
		b = b[n:]
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() != nil && fd.IsList() {
			for i := range v.List().Len() {
				found = found || hasMistypedField(v.List().Get(i).Message())
			}
		}
		return !found
	})
	return found
}

func fieldGetter(m protoreflect.Message) func(name string) protoreflect.Value {
	return func(name string) protoreflect.Value {
		return m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name)))
	}
}

// requestOf returns what the runtime decoded into m as a frame.Request.
func requestOf(m protoreflect.Message) frame.Request {
	get := fieldGetter(m)
	r := frame.Request{
		Version: int32(get("version").Int()), URL: get("url").String(), Method: get("method").String(),
		Host: get("host").String(), RemoteAddr: get("remote_addr").String(),
		ContentType: get("content_type").String(), Accept: get("accept").String(),
		RequestID: get("request_id").String(), Body: get("body").Bytes(),
	}
	hs := get("headers").List()
	for i := range hs.Len() {
		hget := fieldGetter(hs.Get(i).Message())
		r.Header = append(r.Header, frame.Header{Name: hget("name").String(), Value: hget("value").String()})
	}
	return r
}
