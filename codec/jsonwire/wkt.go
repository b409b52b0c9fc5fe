package jsonwire

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	// The detail types errsvc writes resolve from the global registry on
	// the protojson fallback (see AnyFallbacks), whatever else the binary
	// links.
	_ "google.golang.org/genproto/googleapis/rpc/errdetails"
)

// ---- google.protobuf.Value, Struct, ListValue ----

// Value reads any JSON value as a google.protobuf.Value.
func (d *Decoder) Value() (*structpb.Value, error) {
	switch c := d.peek(); {
	case c == '{':
		s, err := d.Struct()
		if err != nil {
			return nil, err
		}
		return &structpb.Value{Kind: &structpb.Value_StructValue{StructValue: s}}, nil
	case c == '[':
		l, err := d.ListValue()
		if err != nil {
			return nil, err
		}
		return &structpb.Value{Kind: &structpb.Value_ListValue{ListValue: l}}, nil
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		sv := &stringValue{k: structpb.Value_StringValue{StringValue: d.text(s)}}
		sv.v.Kind = &sv.k
		return &sv.v, nil
	case c == 'n':
		if d.literal("null") {
			return &structpb.Value{Kind: &structpb.Value_NullValue{}}, nil
		}
	case c == 't' || c == 'f':
		if d.literal("true") {
			return boolVal(true), nil
		}
		if d.literal("false") {
			return boolVal(false), nil
		}
	case c == 0:
		return nil, d.eof()
	default:
		start := d.pos
		if s, ok := d.number(); ok {
			f, err := parseFloat(s)
			if err != nil {
				d.pos = start
				return nil, errorf("invalid google.protobuf.Value: a number out of the range of a double")
			}
			nv := &numberValue{k: structpb.Value_NumberValue{NumberValue: f}}
			nv.v.Kind = &nv.k
			return &nv.v, nil
		}
	}
	return nil, d.syntax("invalid value")
}

// stringValue, numberValue and boolValue hold a decoded Value and its kind
// in one allocation (the Value's Kind points at the k beside it), where
// &Value{Kind: &Value_StringValue{...}} takes two: a request's Struct is
// mostly scalars. The block lives as long as either is reachable; setting
// another Kind leaves k unused, nothing more.
type (
	stringValue struct {
		v structpb.Value
		k structpb.Value_StringValue
	}
	numberValue struct {
		v structpb.Value
		k structpb.Value_NumberValue
	}
	boolValue struct {
		v structpb.Value
		k structpb.Value_BoolValue
	}
)

func boolVal(b bool) *structpb.Value {
	bv := &boolValue{k: structpb.Value_BoolValue{BoolValue: b}}
	bv.v.Kind = &bv.k
	return &bv.v
}

// Struct reads an object as a google.protobuf.Struct.
func (d *Decoder) Struct() (*structpb.Struct, error) {
	if err := d.BeginObject(); err != nil {
		return nil, err
	}
	s := &structpb.Struct{}
	for n := 0; ; n++ {
		k, more, err := d.Key(n)
		if err != nil || !more {
			return s, err
		}
		key := d.text(k)
		if s.Fields == nil {
			s.Fields = make(map[string]*structpb.Value, 4)
		} else if _, dup := s.Fields[key]; dup {
			return s, At(errorf("duplicate map key"), key)
		}
		v, err := d.Value()
		if err != nil {
			return s, At(err, key)
		}
		s.Fields[key] = v
	}
}

// ListValue reads a list as a google.protobuf.ListValue.
func (d *Decoder) ListValue() (*structpb.ListValue, error) {
	if err := d.BeginArray("google.protobuf.Value"); err != nil {
		return nil, err
	}
	l := &structpb.ListValue{}
	for n := 0; ; n++ {
		more, err := d.Item(n)
		if err != nil || !more {
			return l, err
		}
		v, err := d.Value()
		if err != nil {
			return l, AtIndex(err, n)
		}
		l.Values = append(l.Values, v)
	}
}

// Value writes v; a Value with no kind, or a NaN or infinite number, is a
// failure (as in protojson).
func (e *Encoder) Value(v *structpb.Value) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		e.Buf = append(e.Buf, "null"...)
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			e.fail(errors.New("google.protobuf.Value.number_value: invalid value (NaN or infinite)"))
			e.Buf = append(e.Buf, '0')
			return
		}
		e.Buf = appendFloat(e.Buf, k.NumberValue, 64)
	case *structpb.Value_StringValue:
		e.String(k.StringValue)
	case *structpb.Value_BoolValue:
		e.Bool(k.BoolValue)
	case *structpb.Value_StructValue:
		e.Struct(k.StructValue)
	case *structpb.Value_ListValue:
		e.ListValue(k.ListValue)
	default:
		e.fail(errors.New("google.protobuf.Value: none of the oneof fields is set"))
		e.Buf = append(e.Buf, "null"...)
	}
}

// Struct writes s as an object, keys sorted.
func (e *Encoder) Struct(s *structpb.Struct) {
	fields := s.GetFields()
	var arr [16]string
	keys := arr[:0]
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.Buf = append(e.Buf, '{')
	first := true
	for _, k := range keys {
		e.Key(&first, k)
		e.Value(fields[k])
	}
	e.Buf = append(e.Buf, '}')
}

// ListValue writes l as a list.
func (e *Encoder) ListValue(l *structpb.ListValue) {
	e.Buf = append(e.Buf, '[')
	for i, v := range l.GetValues() {
		if i > 0 {
			e.Buf = append(e.Buf, ',')
		}
		e.Value(v)
	}
	e.Buf = append(e.Buf, ']')
}

// ---- additional_fields ----

// Extra gathers, while one open object is read, the members bound for its
// additional_fields: members the message does not declare, and wait fields
// whose value is not a whole number (openjson's rules, kept in one pass).
// Moved members win over an explicit additional_fields member of the same
// name; an explicit additional_fields that is not an object is dropped when
// something was moved beside it (the rewrite openjson did took its place),
// and refused otherwise.
type Extra struct {
	moved       *structpb.Struct
	badExplicit error
}

// Move reads the value that comes next into the member key.
func (x *Extra) Move(d *Decoder, key string) error {
	v, err := d.Value()
	if err != nil {
		return err
	}
	if x.moved == nil {
		x.moved = &structpb.Struct{Fields: make(map[string]*structpb.Value, 2)}
	}
	x.moved.Fields[key] = v
	d.Moved = true
	return nil
}

// Explicit reads an additional_fields member the caller wrote itself.
func (x *Extra) Explicit(d *Decoder, dst **structpb.Struct) error {
	if d.peek() == '{' {
		s, err := d.Struct()
		if err != nil {
			return err
		}
		*dst = s
		return nil
	}
	if _, err := d.Skip(); err != nil {
		return err
	}
	x.badExplicit = At(d.mismatch("google.protobuf.Struct", "not an object"), "additional_fields")
	return nil
}

// Err is the error to return for err found later in the same object: an
// invalid explicit additional_fields came first, unless a move dropped it.
func (x *Extra) Err(err error) error {
	if x.badExplicit != nil && x.moved == nil {
		if _, ok := err.(*Error); ok {
			return x.badExplicit
		}
	}
	return err
}

// Finish merges the moved members into *dst at the end of the object.
func (x *Extra) Finish(dst **structpb.Struct) error {
	if x.moved == nil {
		return x.badExplicit
	}
	if *dst == nil || (*dst).Fields == nil {
		if *dst == nil {
			*dst = x.moved
			return nil
		}
		(*dst).Fields = x.moved.Fields
		return nil
	}
	for k, v := range x.moved.Fields {
		(*dst).Fields[k] = v
	}
	return nil
}

// MoveLater moves the wait field name, already read as v, into *dst.
func MoveLater(dst **structpb.Struct, name, v string) {
	if *dst == nil {
		*dst = &structpb.Struct{}
	}
	if (*dst).Fields == nil {
		(*dst).Fields = map[string]*structpb.Value{}
	}
	(*dst).Fields[name] = structpb.NewStringValue(v)
}

// WaitFits is openjson's fitsWait for an integer wait field: the value
// that comes next is a whole number in [0, max], or a string of one, so
// protojson reads it (or refuses it, as a malformed request). Anything
// else goes into additional_fields. It consumes nothing.
func (d *Decoder) WaitFits(max float64) (bool, error) {
	start := d.Offset()
	raw, err := d.Skip()
	if err != nil {
		return false, err
	}
	d.pos = start
	s := unsafeString(raw)
	if len(raw) > 0 && raw[0] == '"' {
		t, err := d.str()
		d.pos = start
		if err != nil {
			return false, err
		}
		s = string(t)
	}
	n, perr := parseFloatString(s)
	if perr != nil || n != math.Trunc(n) || n < 0 {
		return false, nil
	}
	return n <= max, nil
}

// WaitString reads the string that comes next (FloatString said it is one).
func (d *Decoder) WaitString() string {
	start := d.pos
	s, err := d.String()
	if err != nil {
		d.pos = start
	}
	return s
}

// Lift writes the members of additional_fields af as members of the
// object being written, except those whose name the message declares
// (declared), which stay inside additional_fields (they can only have come
// from a gRPC caller and must not shadow the modelled field).
func (e *Encoder) Lift(first *bool, af *structpb.Struct, declared func(string) bool) {
	if af == nil {
		return
	}
	fields := af.GetFields()
	if len(fields) == 0 {
		e.Name(first, `"additional_fields":`, `"additionalFields":`)
		e.Buf = append(e.Buf, "{}"...)
		return
	}
	var arr [16]string
	keys := arr[:0]
	kept := 0
	for k := range fields {
		keys = append(keys, k)
		if declared(k) {
			kept++
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !declared(k) {
			e.Key(first, k)
			e.Value(fields[k])
		}
	}
	if kept == 0 {
		return
	}
	e.Name(first, `"additional_fields":`, `"additionalFields":`)
	e.Buf = append(e.Buf, '{')
	inner := true
	for _, k := range keys {
		if declared(k) {
			e.Key(&inner, k)
			e.Value(fields[k])
		}
	}
	e.Buf = append(e.Buf, '}')
}

// ---- google.protobuf.Timestamp ----

const (
	minTimestampSeconds = -62135596800 // 0001-01-01T00:00:00Z
	maxTimestampSeconds = 253402300799 // 9999-12-31T23:59:59Z
)

// Timestamp reads an RFC 3339 string as protojson does.
func (d *Decoder) Timestamp() (*timestamppb.Timestamp, error) {
	if d.peek() != '"' {
		return nil, d.badScalar("google.protobuf.Timestamp")
	}
	b, err := d.str()
	if err != nil {
		return nil, err
	}
	s := string(b)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, errorf("invalid google.protobuf.Timestamp value (want RFC 3339)")
	}
	secs := t.Unix()
	if secs < minTimestampSeconds || secs > maxTimestampSeconds {
		return nil, errorf("google.protobuf.Timestamp value out of range")
	}
	i := strings.LastIndexByte(s, '.')
	j := strings.LastIndexAny(s, "Z-+")
	if i >= 0 && j >= i && j-i > len(".999999999") {
		return nil, errorf("invalid google.protobuf.Timestamp value (more than 9 fractional digits)")
	}
	return &timestamppb.Timestamp{Seconds: secs, Nanos: int32(t.Nanosecond())}, nil
}

// Timestamp writes t as protojson does (Z, 0, 3, 6 or 9 fractional digits).
func (e *Encoder) Timestamp(t *timestamppb.Timestamp) {
	secs, nanos := t.GetSeconds(), t.GetNanos()
	if secs < minTimestampSeconds || secs > maxTimestampSeconds || nanos < 0 || nanos >= 1e9 {
		e.fail(errors.New("google.protobuf.Timestamp: out of range"))
		e.Buf = append(e.Buf, `""`...)
		return
	}
	x := time.Unix(secs, int64(nanos)).UTC().Format("2006-01-02T15:04:05.000000000")
	x = strings.TrimSuffix(x, "000")
	x = strings.TrimSuffix(x, "000")
	x = strings.TrimSuffix(x, ".000")
	e.Buf = append(e.Buf, '"')
	e.Buf = append(e.Buf, x...)
	e.Buf = append(e.Buf, 'Z', '"')
}

// ---- google.rpc.Status and its Any details ----

// Status reads a google.rpc.Status.
func (d *Decoder) Status() (*statuspb.Status, error) {
	if err := d.BeginObject(); err != nil {
		return nil, err
	}
	st := &statuspb.Status{}
	var seen [3]bool
	for n := 0; ; n++ {
		k, more, err := d.Key(n)
		if err != nil || !more {
			return st, err
		}
		i := -1
		switch string(k) {
		case "code":
			i = 0
		case "message":
			i = 1
		case "details":
			i = 2
		default:
			return st, At(Unknown(), string(k))
		}
		if seen[i] {
			return st, At(Duplicate(), string(k))
		}
		seen[i] = true
		if d.Null() {
			continue
		}
		switch i {
		case 0:
			st.Code, err = d.Int32()
		case 1:
			st.Message, err = d.String()
		case 2:
			err = d.anyList(&st.Details)
		}
		if err != nil {
			return st, At(err, string(k))
		}
	}
}

func (d *Decoder) anyList(dst *[]*anypb.Any) error {
	if err := d.BeginArray("google.protobuf.Any"); err != nil {
		return err
	}
	for n := 0; ; n++ {
		more, err := d.Item(n)
		if err != nil || !more {
			return err
		}
		a, err := d.Any()
		if err != nil {
			return AtIndex(err, n)
		}
		*dst = append(*dst, a)
	}
}

// AnyFallbacks counts the Any values read or written by protojson (with
// the global type registry) rather than natively: every Any on read, and
// on write each detail other than google.rpc.ErrorInfo and RetryInfo.
var AnyFallbacks atomic.Int64

// Any reads a google.protobuf.Any with protojson and the global registry
// (errsvc reads Any only in answers, never in requests).
func (d *Decoder) Any() (*anypb.Any, error) {
	if d.peek() != '{' {
		return nil, d.badScalar("google.protobuf.Any")
	}
	raw, err := d.Skip()
	if err != nil {
		return nil, err
	}
	AnyFallbacks.Add(1)
	a := &anypb.Any{}
	if err := protojson.Unmarshal(raw, a); err != nil {
		// protojson read it, and names what is wrong inside it.
		return nil, errorf("invalid google.protobuf.Any value: " + err.Error())
	}
	return a, nil
}

// Status writes a google.rpc.Status.
func (e *Encoder) Status(st *statuspb.Status) {
	e.Buf = append(e.Buf, '{')
	first := true
	if st.GetCode() != 0 {
		e.Name(&first, `"code":`, `"code":`)
		e.Int32(st.GetCode())
	}
	if st.GetMessage() != "" {
		e.Name(&first, `"message":`, `"message":`)
		e.String(st.GetMessage())
	}
	if len(st.GetDetails()) > 0 {
		e.Name(&first, `"details":`, `"details":`)
		e.Buf = append(e.Buf, '[')
		for i, a := range st.GetDetails() {
			if i > 0 {
				e.Buf = append(e.Buf, ',')
			}
			e.Any(a)
		}
		e.Buf = append(e.Buf, ']')
	}
	e.Buf = append(e.Buf, '}')
}

// Any writes a google.protobuf.Any: google.rpc.ErrorInfo and RetryInfo (in
// every answer) natively from their wire bytes, anything else, and any
// value whose bytes are not plain, with protojson and the global registry.
func (e *Encoder) Any(a *anypb.Any) {
	url := a.GetTypeUrl()
	name := url[strings.LastIndexByte(url, '/')+1:]
	mark := len(e.Buf)
	ok := false
	switch name {
	case "google.rpc.ErrorInfo":
		ok = e.errorInfo(url, a.GetValue())
	case "google.rpc.RetryInfo":
		ok = e.retryInfo(url, a.GetValue())
	}
	if ok {
		return
	}
	e.Buf = e.Buf[:mark]
	AnyFallbacks.Add(1)
	b, err := protojson.MarshalOptions{UseProtoNames: e.ProtoNames}.Marshal(a)
	if err != nil {
		e.fail(err)
		e.Buf = append(e.Buf, "{}"...)
		return
	}
	e.Buf = append(e.Buf, b...)
}

// wireString consumes a length-delimited field's value as valid UTF-8.
// wireString reads a length-prefixed string of b as a view of b's bytes,
// not a copy: its callers write it out before they return and keep nothing,
// and the detail's bytes are not written while an answer is encoded.
func wireString(b []byte) (string, int, bool) {
	v, n := protowire.ConsumeBytes(b)
	if n < 0 || !utfValid(v) {
		return "", 0, false
	}
	return unsafe.String(unsafe.SliceData(v), len(v)), n, true
}

func utfValid(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return validUTF8(b)
		}
	}
	return true
}

type kv struct{ k, v string }

// errorInfo writes google.rpc.ErrorInfo {reason=1, domain=2, metadata=3}
// from its wire bytes; false (nothing decided) on anything but the plain
// encoding errsvc and protobuf-go write, for protojson to handle.
func (e *Encoder) errorInfo(url string, b []byte) bool {
	var reason, domain string
	var arr [8]kv
	meta := arr[:0]
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return false
		}
		b = b[n:]
		switch num {
		case 1, 2:
			s, m, ok := wireString(b)
			if !ok {
				return false
			}
			b = b[m:]
			if num == 1 {
				reason = s
			} else {
				domain = s
			}
		case 3:
			entry, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return false
			}
			b = b[m:]
			var p kv
			for len(entry) > 0 {
				enum, etyp, en := protowire.ConsumeTag(entry)
				if en < 0 || etyp != protowire.BytesType || (enum != 1 && enum != 2) {
					return false
				}
				entry = entry[en:]
				s, sm, ok := wireString(entry)
				if !ok {
					return false
				}
				entry = entry[sm:]
				if enum == 1 {
					p.k = s
				} else {
					p.v = s
				}
			}
			meta = append(meta, p)
		default:
			return false
		}
	}
	// Sorted by key; of a key given twice, the last one (protobuf's rule).
	slices.SortStableFunc(meta, func(x, y kv) int { return strings.Compare(x.k, y.k) })
	e.Buf = append(e.Buf, `{"@type":`...)
	e.String(url)
	if reason != "" {
		e.Buf = append(e.Buf, `,"reason":`...)
		e.String(reason)
	}
	if domain != "" {
		e.Buf = append(e.Buf, `,"domain":`...)
		e.String(domain)
	}
	if len(meta) > 0 {
		e.Buf = append(e.Buf, `,"metadata":{`...)
		first := true
		for i, p := range meta {
			if i+1 < len(meta) && meta[i+1].k == p.k {
				continue
			}
			e.Key(&first, p.k)
			e.String(p.v)
		}
		e.Buf = append(e.Buf, '}')
	}
	e.Buf = append(e.Buf, '}')
	return true
}

const maxDurationSeconds = 315576000000

// retryInfo writes google.rpc.RetryInfo {retry_delay=1 Duration} from its
// wire bytes, as retryInfo's sibling errorInfo does.
func (e *Encoder) retryInfo(url string, b []byte) bool {
	var secs, nanos int64
	has := false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num != 1 || typ != protowire.BytesType || has {
			return false
		}
		b = b[n:]
		dur, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return false
		}
		b = b[m:]
		has = true
		for len(dur) > 0 {
			dnum, dtyp, dn := protowire.ConsumeTag(dur)
			if dn < 0 || dtyp != protowire.VarintType || (dnum != 1 && dnum != 2) {
				return false
			}
			dur = dur[dn:]
			v, vm := protowire.ConsumeVarint(dur)
			if vm < 0 {
				return false
			}
			dur = dur[vm:]
			if dnum == 1 {
				secs = int64(v)
			} else {
				nanos = int64(int32(v))
			}
		}
	}
	e.Buf = append(e.Buf, `{"@type":`...)
	e.String(url)
	if has {
		if secs < -maxDurationSeconds || secs > maxDurationSeconds || nanos <= -1e9 || nanos >= 1e9 ||
			(secs > 0 && nanos < 0) || (secs < 0 && nanos > 0) {
			return false // protojson's refusal, in its words
		}
		if e.ProtoNames {
			e.Buf = append(e.Buf, `,"retry_delay":"`...)
		} else {
			e.Buf = append(e.Buf, `,"retryDelay":"`...)
		}
		e.Buf = appendDuration(e.Buf, secs, nanos)
		e.Buf = append(e.Buf, '"')
	}
	e.Buf = append(e.Buf, '}')
	return true
}

func appendDuration(b []byte, secs, nanos int64) []byte {
	if secs < 0 || nanos < 0 {
		b = append(b, '-')
		secs, nanos = -secs, -nanos
	}
	b = appendInt(b, secs)
	if nanos != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i, v := 9, nanos; i >= 1; i-- {
			frac[i] = byte('0' + v%10)
			v /= 10
		}
		n := 10
		for k := 0; k < 2 && frac[n-1] == '0' && frac[n-2] == '0' && frac[n-3] == '0'; k++ {
			n -= 3
		}
		b = append(b, frac[:n]...)
	}
	return append(b, 's')
}
