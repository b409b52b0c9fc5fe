package jsonwire

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// plainRunRef is the byte loop plainRun stands for.
func plainRunRef(s string) int {
	i := 0
	for i < len(s) && plainByte(s[i]) {
		i++
	}
	return i
}

// Every byte value at every position of a word, and a byte next to every
// other: plainRun stops exactly where the byte loop stops.
func TestPlainRunIsTheByteLoop(t *testing.T) {
	base := "abcdefghijklmnopqrstuvwxyz0123456789"
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 20; pos++ {
			s := base[:pos] + string([]byte{byte(c)}) + base[pos:]
			if got, want := plainRun(s), plainRunRef(s); got != want {
				t.Fatalf("plainRun(%q) = %d, the byte loop says %d", s, got, want)
			}
		}
		for d := 0; d < 256; d++ {
			s := "0123456" + string([]byte{byte(c), byte(d)}) + "0123456"
			if got, want := plainRun(s), plainRunRef(s); got != want {
				t.Fatalf("plainRun(%q) = %d, the byte loop says %d", s, got, want)
			}
		}
	}
}

// String writes what encoding/json writes for valid UTF-8 (with its HTML
// escaping off), long runs included.
func TestStringIsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", strings.Repeat("a long plain run ", 20), "tab\there", "quote\"q", `back\slash`,
		"ctl\x01\x1f\x7f", "é ü 请求 \u2028", strings.Repeat("x", 7) + "\"" + strings.Repeat("y", 9)} {
		var e Encoder
		e.String(s)
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		want := strings.TrimSuffix(sb.String(), "\n")
		// encoding/json escapes U+2028 and U+2029; protojson does not.
		want = strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(want)
		if string(e.Buf) != want {
			t.Errorf("String(%q) = %s, encoding/json says %s", s, e.Buf, want)
		}
	}
}

// A number in a Struct (details, structured content) is written as
// protojson writes it, byte for byte: 'f' or 'e' by magnitude as
// encoding/json chooses, a two-digit negative exponent without its zero
// (1e-07 is 1e-7), -0 as -0, every float64 at its shortest. NaN and the
// infinities, which a Value cannot hold in JSON, are refused by both.
func TestNumbersAreProtojson(t *testing.T) {
	nums := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.5, 100, 1e6, 123456789,
		1e20, 1e21, 1.5e21, 9.999999999999999e20, 1e22, 1e100, 1e300, math.MaxFloat64,
		1e-6, 9.99e-7, 1e-7, 1.25e-7, 1e-9, 1e-10, 1e-99, 1e-100, 1e-300, 5e-324,
		math.SmallestNonzeroFloat64 * 3, 0.1, 0.2 + 0.1, 1.0 / 3, -2.5e-8, -7e25, 4294967296, 1 << 53, 1<<53 + 2}
	for e := -30; e <= 30; e++ {
		nums = append(nums, math.Pow(10, float64(e)), -3*math.Pow(10, float64(e)))
	}
	for _, n := range nums {
		want, err := protojson.Marshal(structpb.NewNumberValue(n))
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, want); err != nil {
			t.Fatal(err)
		}
		var e Encoder
		e.Value(structpb.NewNumberValue(n))
		if got := string(e.Buf); got != compact.String() {
			t.Errorf("%v: wrote %s, protojson writes %s", n, got, compact.String())
		}
	}
	for _, n := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, refErr := protojson.Marshal(structpb.NewNumberValue(n))
		var e Encoder
		e.Value(structpb.NewNumberValue(n))
		if (e.Err() == nil) != (refErr == nil) {
			t.Errorf("%v: errjson %v, protojson %v", n, e.Err(), refErr)
		}
	}
}

// A double field (classification.retry_after_secs) writes NaN and the
// infinities as protojson's strings, and other values as numbers.
func TestFloat64IsProtojson(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{math.NaN(), `"NaN"`}, {math.Inf(1), `"Infinity"`}, {math.Inf(-1), `"-Infinity"`}, {1e-7, `1e-7`}, {2.5, `2.5`}, {1e21, `1e+21`}} {
		var e Encoder
		e.Float64(c.v)
		if string(e.Buf) != c.want {
			t.Errorf("Float64(%v) = %s, want %s", c.v, e.Buf, c.want)
		}
	}
}
