package sanitize

import (
	"math/rand"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"
)

// fragments are the pieces the rules react to; random concatenations of
// them reach combinations that byte-level fuzzing finds slowly.
var fragments = []string{
	"a", "Z9", " ", "\n", "\t", "\r", "\x00", "\u202e", "\u200b", "\xff", "é", "—",
	"<", "<<", "<system>", "</system>", "[INST]", "[/INST]", "#", "###", "[", "]", ">",
	"sk-", "sk-abcdefgh", "ghp_x", "eyJ", "AKIA", "ABCDEFGHIJKLMNOP", "AIza", "npm_", "xoxb-",
	"Bearer ", "bearer\t", "abcdefgh", ".", "=", "==", "=>", ":", ": ", "://", "@", "/", "?", "&", ";", ",",
	"\"", "'", "\\", "\\\"", "password", "token", "api_key", "Authorization", "Cookie", "Set-Cookie",
	"-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "-----", "PRIVATE KEY",
	"[REDACTED]", "[RED", "ACTED]", TruncationMarker, "…", "[truncated]", "postgres://u:p@h",
}

func randomText(rng *rand.Rand) string {
	var sb strings.Builder
	for n := rng.Intn(24); n >= 0; n-- {
		sb.WriteString(fragments[rng.Intn(len(fragments))])
	}
	return sb.String()
}

func TestRandomFragments(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	iterations := 200000
	if testing.Short() {
		iterations = 20000
	}
	for i := 0; i < iterations; i++ {
		in := randomText(rng)
		cap := rng.Intn(len(in) + 20)
		if rng.Intn(4) == 0 {
			cap = rng.Intn(16)
		}
		checkText(t, in, Text(in, cap), cap)
	}
}

func randomValue(rng *rand.Rand, depth int) *structpb.Value {
	switch k := rng.Intn(10); {
	case depth > 0 && k < 2:
		st := &structpb.Struct{Fields: map[string]*structpb.Value{}}
		for n := rng.Intn(6); n > 0; n-- {
			st.Fields[randomText(rng)] = randomValue(rng, depth-1)
		}
		return structpb.NewStructValue(st)
	case depth > 0 && k < 4:
		l := &structpb.ListValue{}
		for n := rng.Intn(6); n > 0; n-- {
			l.Values = append(l.Values, randomValue(rng, depth-1))
		}
		return structpb.NewListValue(l)
	case k < 5:
		return structpb.NewNumberValue(rng.NormFloat64() * 1e6)
	case k < 6:
		return structpb.NewBoolValue(rng.Intn(2) == 0)
	case k < 7:
		return structpb.NewNullValue()
	}
	return structpb.NewStringValue(randomText(rng))
}

func TestRandomValues(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	iterations := 20000
	if testing.Short() {
		iterations = 2000
	}
	for i := 0; i < iterations; i++ {
		v := randomValue(rng, 5)
		lim := Limits{
			StringCap: 1 + rng.Intn(60),
			MaxDepth:  1 + rng.Intn(5),
			MaxItems:  1 + rng.Intn(6),
			MaxBytes:  1 + rng.Intn(600),
		}
		if rng.Intn(3) == 0 {
			lim = DefaultLimits
		}
		checkValue(t, v, lim)
	}
}
