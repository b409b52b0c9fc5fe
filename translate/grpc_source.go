package translate

import (
	"math"
	"slices"
	"time"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// maxStatusDetails bounds how many details of one status are read.
const maxStatusDetails = 32

func grpcCodeRow(name string) *errsvcv1.GrpcCodeRow {
	if t, ok := GrpcCodes.byWire[name]; ok {
		return t.Row.(*errsvcv1.GrpcCodeRow)
	}
	return nil
}

// statusDetails are the details of a google.rpc.Status that decide or
// diagnose: the first of each type (AIP-193: each type at most once).
type statusDetails struct {
	info  *errdetails.ErrorInfo
	retry *errdetails.RetryInfo
	quota *errdetails.QuotaFailure
	// kept are every readable detail in its JSON form, for the envelope's
	// detail (diagnostics only, sanitised).
	kept []*structpb.Value
}

// decodeGRPCStatusSource reads a google.rpc.Status. errsvc's own (an
// ErrorInfo in the errsvc.dev domain) is read back from the metadata errsvc
// wrote, so it round-trips exactly; any other is classed at the producer
// from the code's row (AIP-194 and the Error Class Contract), its message
// untrusted.
func decodeGRPCStatusSource(m *model, g *errsvcv1.GrpcStatusError) error {
	c, msg := g.GetCode(), g.GetMessage()
	var details []*anypb.Any
	var unread []*structpb.Value
	if bin := g.GetStatusBin(); len(bin) > 0 {
		st := &status.Status{}
		if err := proto.Unmarshal(bin, st); err != nil {
			return &RequestError{Field: "grpc_status.status_bin", Description: "is not a serialized google.rpc.Status"}
		}
		c, msg, details = st.GetCode(), st.GetMessage(), st.GetDetails()
	} else {
		details, unread = anyDetails(m, g.GetDetails())
	}
	if c == 0 {
		return &RequestError{Field: "grpc_status.code", Description: "0 (OK) is not an error: set the google.rpc.Code of the failure"}
	}
	name, known := code.Code_name[c]
	if !known {
		name = "UNKNOWN"
		m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_CODE, "gRPC code %d is not a google.rpc.Code; read as UNKNOWN", c)
	}
	d := readStatusDetails(m, details)
	d.kept = append(d.kept, unread...)
	if d.info.GetDomain() == ErrorInfoDomain {
		return decodeOwnStatus(m, name, msg, d)
	}
	row := grpcCodeRow(name)
	kind, class := row.GetLabbyKind(), row.GetClass()
	reason := d.info.GetReason()
	if reason != "" && slices.Contains(row.GetPermanentReasons(), reason) {
		kind, class = row.GetPermanentKind(), "permanent"
	}
	detail := &structpb.Struct{Fields: map[string]*structpb.Value{"grpc_code": grpcCodeValue(name)}}
	if len(d.kept) > 0 {
		detail.Fields["details"] = structpb.NewListValue(&structpb.ListValue{Values: d.kept})
	}
	ce := &errsvcv1.ClassifiedError{Code: kind, Class: class, Message: msg, Detail: detail, ProviderCode: reason}
	// RetryInfo is kept whatever the class, to the millisecond, before the
	// classified path derives the agent details from it: grpc_status carries
	// it on (a wait is never dropped); the retry hints send it only with a
	// transient answer, with a note when they do not (noteWaitWithheld).
	if delay := d.retry.GetRetryDelay(); delay != nil {
		if err := setRetryDelay(m, delay.AsDuration()); err != nil {
			return err
		}
	}
	if err := decodeClassified(m, ce); err != nil {
		return err
	}
	m.grpcCode, m.originalTerm, m.grpcCodeFromSource = name, name, true
	limitFromQuotaFailure(m, d.quota)
	return nil
}

// anyDetails reads details in their JSON form. A type errsvc does not know
// (or a malformed detail) is noted and kept, sanitised, as producer detail:
// a service's own detail types never fail the request.
func anyDetails(m *model, in []*structpb.Struct) (read []*anypb.Any, unread []*structpb.Value) {
	if len(in) > maxStatusDetails {
		m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "grpc_status.details beyond %d were not read", maxStatusDetails)
		in = in[:maxStatusDetails]
	}
	for i, s := range in {
		a := &anypb.Any{}
		b, err := protojson.Marshal(s)
		if err == nil {
			err = protojson.Unmarshal(b, a)
		}
		if err != nil {
			m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_TERM, "grpc_status.details[%d] of type %q is not a detail type errsvc reads; kept as producer detail", i, clip(stringField(s, "@type")))
			unread = append(unread, structpb.NewStructValue(sanitizeStruct(m, "grpc_status.details", s)))
			continue
		}
		read = append(read, a)
	}
	return read, unread
}

func readStatusDetails(m *model, details []*anypb.Any) statusDetails {
	var d statusDetails
	for i, a := range details {
		if i == maxStatusDetails {
			m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "grpc_status.details beyond %d were not read", maxStatusDetails)
			break
		}
		msg, err := a.UnmarshalNew()
		if err != nil {
			m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_TERM, "grpc_status.details[%d] of type %q is not a known detail type; not read", i, clip(a.GetTypeUrl()))
			continue
		}
		switch v := msg.(type) {
		case *errdetails.ErrorInfo:
			if d.info == nil {
				d.info = v
			}
		case *errdetails.RetryInfo:
			if d.retry == nil {
				d.retry = v
			}
		case *errdetails.QuotaFailure:
			if d.quota == nil {
				d.quota = v
			}
		}
		if b, err := protojson.Marshal(a); err == nil {
			val := &structpb.Value{}
			if protojson.Unmarshal(b, val) == nil {
				d.kept = append(d.kept, sanitizeValue(m, "grpc_status.details", val))
			}
		}
	}
	return d
}

// decodeOwnStatus reads back a status errsvc wrote: the kind, class, agent
// code and retry hint from the ErrorInfo's metadata, the wait from
// RetryInfo to the millisecond, the code as it was. The message is errsvc's
// agent-safe message, still sanitised like any input.
func decodeOwnStatus(m *model, name, msg string, d statusDetails) error {
	md := d.info.GetMetadata()
	const prefix = "grpc_status.details.ErrorInfo.metadata."
	m.kind = term(m, md["kind"], prefix+"kind")
	if m.kind == "" {
		m.kind = grpcCodeRow(name).GetLabbyKind()
		if m.kind == "" {
			m.kind = "internal_error"
		}
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "errsvc's ErrorInfo carries no kind; %q assumed from %s", m.kind, name)
	}
	m.originalTerm = term(m, md["originalTerm"], prefix+"originalTerm")
	if m.originalTerm == "" {
		m.originalTerm = m.kind
	}
	setKind(m, m.kind)
	if m.krow == nil {
		m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_KIND, "kind %q is not in the matrix; it passes through and takes the unknown-kind catch-all%s", clip(m.kind), didYouMean(LabbyKinds.Nearest(m.kind)))
	}
	completeFromKind(m)
	m.message = m.sanitizeCause(msg)
	m.providerCode = term(m, md["providerCode"], prefix+"providerCode")
	m.producerStatus = term(m, md["producerStatus"], prefix+"producerStatus")
	if f := limitFromMetadata(md); f != nil {
		m.limitV, m.limit = *f, &m.limitV
	}
	if delay := d.retry.GetRetryDelay(); delay != nil {
		if err := setRetryDelay(m, delay.AsDuration()); err != nil {
			return err
		}
	}
	switch c := md["class"]; {
	case c == "permanent" && md["retry"] == "no" && m.krow.GetClass() == classTransient:
		// errsvc's answer for a transient kind whose agent code forbids the
		// retry (a timeout not known to be idempotent): the kind's class,
		// which the same rule decides again (settleDecision).
		m.hasClass, m.class, m.recognized = true, classTransient, true
	case c != "":
		readClass(m, term(m, c, prefix+"class"), prefix+"class")
		m.classFromSource = true
		followClass(m)
	default:
		m.note(errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT, "errsvc's status carries no class; none is invented")
	}
	deriveAgent(m)
	// The agent code and hint errsvc wrote win over what the kind derives;
	// when they differ, the envelope carries them (its agent_error field),
	// as it does for an agent source.
	if code := term(m, md["agentCode"], prefix+"agentCode"); code != "" && code != m.agentCode {
		m.agentCode = code
		m.agentDetails = agentDetailsFor(m, m.agentRowFor(code), "")
		m.agentFromSource = true
	}
	if r := term(m, md["retry"], prefix+"retry"); r != "" && r != m.agentRetry {
		m.agentRetry = r
		m.agentFromSource = true
	}
	m.grpcCode, m.grpcCodeFromSource = name, true
	m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "a status of errsvc's own domain %s: read back from its ErrorInfo (kind %s, code %s)", ErrorInfoDomain, clip(m.kind), name)
	return nil
}

// setRetryDelay records a RetryInfo delay, rounded up to the next whole
// millisecond: never earlier than the producer asked (2.000000001s is 2001 ms).
func setRetryDelay(m *model, d time.Duration) error {
	ms := math.Ceil(float64(d) / float64(time.Millisecond))
	if ms < 0 || ms > math.MaxUint32 {
		return &RequestError{Field: "grpc_status.details.RetryInfo.retry_delay", Description: "must be a non-negative delay that fits retry_after_ms"}
	}
	setWaitMs(m, uint32(ms))
	return nil
}

// grpcCodeValues are the shared (never mutated) detail values of the
// google.rpc.Code names.
var grpcCodeValues = func() map[string]*structpb.Value {
	out := map[string]*structpb.Value{"UNKNOWN": structpb.NewStringValue("UNKNOWN")}
	for _, n := range code.Code_name {
		out[n] = structpb.NewStringValue(n)
	}
	return out
}()

func grpcCodeValue(name string) *structpb.Value {
	if v, ok := grpcCodeValues[name]; ok {
		return v
	}
	return structpb.NewStringValue(name)
}
