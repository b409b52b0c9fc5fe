package translate

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The hand-encoded details must decode, with the real googleapis types,
// to exactly what a marshal of those types would carry.
func TestErrorInfoEncoding(t *testing.T) {
	md := [][2]string{{"agentCode", "RATE_LIMITED"}, {"class", ""}, {"kind", "rate_limited"}, {"originalTerm", "rate_limited"}, {"retry", "after-delay"}}
	got := &errdetails.ErrorInfo{}
	if err := proto.Unmarshal(appendErrorInfo(nil, "RATE_LIMITED", ErrorInfoDomain, md), got); err != nil {
		t.Fatal(err)
	}
	want := &errdetails.ErrorInfo{Reason: "RATE_LIMITED", Domain: ErrorInfoDomain, Metadata: map[string]string{
		"agentCode": "RATE_LIMITED", "kind": "rate_limited", "originalTerm": "rate_limited", "retry": "after-delay"}}
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Error(diff)
	}
}

func TestRetryInfoEncoding(t *testing.T) {
	for _, d := range []time.Duration{0, 1500 * time.Millisecond, 3 * time.Second, 250 * time.Millisecond, 4294967 * time.Second} {
		got := &errdetails.RetryInfo{}
		if err := proto.Unmarshal(appendRetryInfo(nil, d), got); err != nil {
			t.Fatal(err)
		}
		if want := (&errdetails.RetryInfo{RetryDelay: durationpb.New(d)}); !proto.Equal(got, want) {
			t.Errorf("%v: got %v, want %v", d, got, want)
		}
	}
}

func TestErrorInfoReason(t *testing.T) {
	for in, want := range map[string]string{
		"rate_limited":     "RATE_LIMITED",
		"9-lives.of a/cat": "LIVES_OF_A_CAT",
		"":                 "UNKNOWN_KIND",
		"___":              "UNKNOWN_KIND",
	} {
		if got := errorInfoReason(in); got != want {
			t.Errorf("errorInfoReason(%q) = %q, want %q", in, got, want)
		}
	}
	long := errorInfoReason(string(make([]byte, 200)) + "x")
	if len(long) > 63 {
		t.Errorf("reason of %d characters", len(long))
	}
}

// TestErrorInfoBytesAreProtoMarshal holds appendErrorInfo's hand-written
// tags and lengths to a deterministic proto.Marshal of the same message,
// byte for byte: short and long values (one- and two-byte lengths, a map
// entry either side of 128 bytes), empty values left out, keys in order.
func TestErrorInfoBytesAreProtoMarshal(t *testing.T) {
	keys := []string{"agentCode", "class", "kind", "limitDimension", "limitKind", "limitResetAt", "limitScope", "originalTerm", "producerStatus", "providerCode", "retry"}
	lengths := []int{0, 1, 12, 100, 110, 113, 114, 115, 116, 126, 127, 128, 129, 200, 300, 16500}
	for i := range 200 {
		md := make([][2]string, len(keys))
		want := &errdetails.ErrorInfo{Reason: strings.Repeat("R", lengths[1+i%(len(lengths)-1)]), Domain: ErrorInfoDomain, Metadata: map[string]string{}}
		for j, k := range keys {
			v := strings.Repeat(string(rune('a'+j)), lengths[(i*7+j*3)%len(lengths)])
			md[j] = [2]string{k, v}
			if v != "" {
				want.Metadata[k] = v
			}
		}
		wantBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendErrorInfo(nil, want.Reason, want.Domain, md); !bytes.Equal(got, wantBytes) {
			t.Fatalf("case %d: appendErrorInfo differs from proto.Marshal:\n got %x\nwant %x", i, got, wantBytes)
		}
	}
}
