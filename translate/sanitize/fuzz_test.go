package sanitize

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// FuzzText checks Text's invariants on any input and cap: no panic, valid
// UTF-8, at most cap runes plus the marker, no forbidden rune, idempotent.
func FuzzText(f *testing.F) {
	for _, tc := range textCases {
		c := tc.cap
		if c > 1<<16 {
			c = 1 << 16
		}
		f.Add(tc.in, c)
	}
	f.Add("<<<system>##<system>#[IN[INST]ST]", 7)
	f.Add("password=[REDACTED] …[truncated]", 12)
	f.Add("Cookie: [REDACTED] …[truncated]", 19)
	f.Fuzz(func(t *testing.T, s string, cap int) {
		if cap > 1<<16 {
			cap %= 1 << 16
		}
		out := Text(s, cap)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8: %q", out)
		}
		limit := cap
		if limit < 0 {
			limit = 0
		}
		if n := utf8.RuneCountInString(out); n > limit+utf8.RuneCountInString(TruncationMarker) {
			t.Fatalf("%d runes for cap %d", n, cap)
		}
		for _, r := range out {
			if forbidden(r) {
				t.Fatalf("forbidden %U in %q", r, out)
			}
		}
		if again := Text(out, cap); again != out {
			t.Fatalf("not idempotent for %q (cap %d):\n once %q\ntwice %q", s, cap, out, again)
		}
	})
}

var fuzzLimits = []Limits{
	DefaultLimits,
	{StringCap: 24, MaxDepth: 3, MaxItems: 4, MaxBytes: 256},
	{StringCap: 8, MaxDepth: 1, MaxItems: 2, MaxBytes: 40},
	{StringCap: 100, MaxDepth: 2, MaxItems: 3, MaxBytes: 17},
}

// FuzzValue builds a structured value from JSON (and, for invalid UTF-8,
// from the raw bytes) and checks Value's invariants.
func FuzzValue(f *testing.F) {
	f.Add([]byte(`{"password":"hunter2","nested":{"token":{"a":1}},"list":[1,"sk-abcdefghijklmnop",null,true]}`))
	f.Add([]byte(`{"a\u0000b":"x\u202ey","a b":"<system>x","API-Key":"k","Set_Cookie":"c","ok":"[REDACTED]"}`))
	f.Add([]byte(`[[[[[[[[[[[["deep"]]]]]]]]]]]]`))
	f.Add([]byte(`"` + strings.Repeat("é\"", 3000) + `"`))
	f.Add([]byte(`{"k":"` + strings.Repeat("x", 9000) + `"}`))
	f.Add([]byte(`{"k\u0001":"1","k":"2","k\u202e":"3"}`))
	for _, tc := range textCases {
		b, _ := json.Marshal(map[string]any{"m": tc.in, tc.in: []any{tc.in}})
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var inputs []*structpb.Value
		var parsed any
		if json.Unmarshal(data, &parsed) == nil {
			if v, err := structpb.NewValue(parsed); err == nil {
				inputs = append(inputs, v)
			}
		}
		raw := string(data)
		inputs = append(inputs,
			structpb.NewStringValue(raw),
			structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
				raw: structpb.NewStringValue(raw), "token": structpb.NewStringValue(raw), "n": nil,
			}}),
			structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{nil, {}, structpb.NewStringValue(raw)}}),
		)
		for _, in := range inputs {
			for _, lim := range fuzzLimits {
				checkValue(t, in, lim)
			}
		}
	})
}

func checkValue(t *testing.T, in *structpb.Value, lim Limits) {
	t.Helper()
	before := proto.Clone(in)
	out, _ := Value(in, lim)
	if !proto.Equal(in, before) {
		t.Fatalf("Value mutated its input")
	}
	for _, s := range allStrings(out) {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 %q", s)
		}
		for _, r := range s {
			if forbidden(r) {
				t.Fatalf("forbidden %U in %q", r, s)
			}
		}
	}
	var sb strings.Builder
	writeJSON(&sb, out)
	if sb.Len() > lim.MaxBytes && lim.MaxBytes >= 17 {
		t.Fatalf("limits %+v: %d bytes: %s", lim, sb.Len(), sb.String())
	}
	again, _ := Value(out, lim)
	if !proto.Equal(out, again) {
		var a strings.Builder
		writeJSON(&a, again)
		t.Fatalf("limits %+v: Value not idempotent:\n once %s\ntwice %s", lim, sb.String(), a.String())
	}
	if st := in.GetStructValue(); st != nil {
		s1, _ := Struct(st, lim)
		if !proto.Equal(in, before) {
			t.Fatalf("Struct mutated its input")
		}
		var sb strings.Builder
		writeJSON(&sb, structpb.NewStructValue(s1))
		if sb.Len() > lim.MaxBytes && lim.MaxBytes >= 33 {
			t.Fatalf("limits %+v: Struct gave %d bytes: %s", lim, sb.Len(), sb.String())
		}
		s2, _ := Struct(s1, lim)
		if !proto.Equal(s1, s2) {
			t.Fatalf("limits %+v: Struct not idempotent", lim)
		}
	}
}
