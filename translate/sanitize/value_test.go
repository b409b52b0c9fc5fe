package sanitize

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

func mustValue(t testing.TB, src string) *structpb.Value {
	t.Helper()
	var x any
	if err := json.Unmarshal([]byte(src), &x); err != nil {
		t.Fatal(err)
	}
	v, err := structpb.NewValue(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func render(v *structpb.Value) string {
	var sb strings.Builder
	writeJSON(&sb, v)
	return sb.String()
}

func TestValue(t *testing.T) {
	small := Limits{StringCap: 10, MaxDepth: 2, MaxItems: 3, MaxBytes: 1000}
	cases := []struct {
		name string
		in   string
		lim  Limits
		want string
		rep  Report
	}{
		{"scalars unchanged", `{"a":1.5,"b":true,"c":null,"d":"ok","e":[false]}`, DefaultLimits,
			`{"a":1.5,"b":true,"c":null,"d":"ok","e":[false]}`, Report{}},
		{"strings sanitised", `{"m":"a\tb <system>c sk-abcdefghijklmnop"}`, DefaultLimits,
			`{"m":"ab c [REDACTED]"}`, Report{Stripped: true, Redacted: true, Removed: true}},
		{"secret keys", `{"Authorization":"Basic x","api_key":"k","API-KEY":"k","token":"t0k3n-9f8e7d","access_token":"aT.9f8e7d6c",` +
			`"refresh_token":"r3fr35h-tok","id_token":"idT0k3nValue","secret":"s","Client_Secret":"c","password":"p","passwd":"p",` +
			`"cookie":"c","set-cookie":"c","private_key":"p","x-api-key":"x","session":"s3ss10n-42ab","credentials":"cr3d:abc"}`,
			Limits{MaxItems: 100},
			`{"API-KEY":"[REDACTED]","Authorization":"[REDACTED]","Client_Secret":"[REDACTED]","access_token":"[REDACTED]",` +
				`"api_key":"[REDACTED]","cookie":"[REDACTED]","credentials":"[REDACTED]","id_token":"[REDACTED]",` +
				`"passwd":"[REDACTED]","password":"[REDACTED]","private_key":"[REDACTED]","refresh_token":"[REDACTED]",` +
				`"secret":"[REDACTED]","session":"[REDACTED]","set-cookie":"[REDACTED]","token":"[REDACTED]","x-api-key":"[REDACTED]"}`,
			Report{Redacted: true}},
		{"secret-like suffixes", `{"GITHUB_TOKEN":"t0k3n-abc","aws_secret_access_key":"s","db password":"p"}`, DefaultLimits,
			`{"GITHUB_TOKEN":"[REDACTED]","aws_secret_access_key":"[REDACTED]","db password":"[REDACTED]"}`, Report{Redacted: true}},
		// Key-name redaction is for scalars that may be credentials: objects
		// and lists are walked, numbers and booleans kept, and plain words
		// under names that also name routing codes and states kept.
		{"secret keys keep plain values", `{"session":{"scope":"thread","id":"abc"},"auth":"pause_required","sessionId":"abc",` +
			`"token":1,"access_token":{"a":1},"credentials":["c"],"nextPageToken":"CiAKGjBpNDd2Nmp4dzFmc3JnZzM2NGRsZzIzdjV","jwt":"expired",` +
			`"signature":true,"token_state":"EXPIRED"}`, Limits{MaxItems: 100},
			`{"access_token":{"a":1},"auth":"pause_required","credentials":["c"],"jwt":"expired","nextPageToken":"CiAKGjBpNDd2Nmp4dzFmc3JnZzM2NGRsZzIzdjV",` +
				`"session":{"id":"abc","scope":"thread"},"sessionId":"abc","signature":true,"token":1,"token_state":"EXPIRED"}`, Report{}},
		{"objects under secret keys are walked", `{"session":{"token":"t0k3n-abc","scope":"s"},"auth":[{"password":"hunter2"}]}`, DefaultLimits,
			`{"auth":[{"password":"[REDACTED]"}],"session":{"scope":"s","token":"[REDACTED]"}}`, Report{Redacted: true}},
		{"strong names redact numbers too", `{"password":123456,"pin_count":3}`, DefaultLimits,
			`{"password":"[REDACTED]","pin_count":3}`, Report{Redacted: true}},
		{"not secret", `{"max_tokens":5,"token_count":2,"sessions":1,"key":"k"}`, DefaultLimits,
			`{"key":"k","max_tokens":5,"sessions":1,"token_count":2}`, Report{}},
		{"already redacted", `{"password":"[REDACTED]"}`, DefaultLimits, `{"password":"[REDACTED]"}`, Report{}},
		// A list under a name that can only hold secrets: every string and
		// number in it is one (whispers' 02_hardcoded_passwords); objects in
		// it are walked, and a list under a weaker name is walked as above.
		{"lists of passwords", `{"02_hardcoded_passwords":["Hardcoded1","hardCoded2",42,{"hint":"red"},""],"credentials":["c"]}`, DefaultLimits,
			`{"02_hardcoded_passwords":["[REDACTED]","[REDACTED]","[REDACTED]",{"hint":"red"},""],"credentials":["c"]}`, Report{Redacted: true}},
		{"lists of passwords already redacted", `{"passwords":["[REDACTED]"]}`, DefaultLimits, `{"passwords":["[REDACTED]"]}`, Report{}},
		// A mapping of passwords: its names say whose, each value is one
		// (the text layer's listValues reads `{"passwords": {"admin": "…"}}`
		// so); an object under a singular name is walked by its own keys.
		{"mapping of passwords", `{"passwords":{"admin":"V9x","ci":4821,"root":{"hint":"red"},"none":""},"password":{"min_length":8}}`, DefaultLimits,
			`{"password":{"min_length":8},"passwords":{"admin":"[REDACTED]","ci":"[REDACTED]","none":"","root":{"hint":"red"}}}`, Report{Redacted: true}},
		{"keys sanitised", `{"a\u0000b":"x","sk-abcdefghijklmnop":"y"}`, DefaultLimits,
			`{"[REDACTED]":"y","ab":"x"}`, Report{Stripped: true, Redacted: true}},
		{"key collision keeps first", `{"a\u0000":"2","a":"1"}`, DefaultLimits, `{"a":"1"}`, Report{Stripped: true}},
		{"string cap", `{"m":"abcdefghijkl"}`, small, `{"m":"abcdefghij …[truncated]"}`, Report{Truncated: true}},
		{"depth", `{"a":{"b":{"c":1}},"l":[[1]]}`, small, `{"a":{"b":"[TRUNCATED]"},"l":["[TRUNCATED]"]}`, Report{Truncated: true}},
		{"depth exactly max", `{"a":{"b":1}}`, small, `{"a":{"b":1}}`, Report{}},
		{"items in list", `[1,2,3,4,5]`, small, `[1,2,3]`, Report{Truncated: true}},
		{"items in object by key order", `{"e":1,"d":2,"c":3,"b":4,"a":5}`, small, `{"a":5,"b":4,"c":3}`, Report{Truncated: true}},
		{"items exactly max", `[1,2,3]`, small, `[1,2,3]`, Report{}},
		{"bytes exceeded", `{"a":"` + strings.Repeat("x", 50) + `","b":[1,2]}`, Limits{StringCap: 100, MaxBytes: 40},
			`"{\"a\":\"xxxxxxxxxxxxxx …[truncated]"`, Report{Truncated: true}}, // exactly 40 bytes
		{"top-level string over bytes", `"` + strings.Repeat("y", 50) + `"`, Limits{StringCap: 100, MaxBytes: 30},
			`"yyyyyyyyyyyyy …[truncated]"`, Report{Truncated: true}},
		{"bytes exactly max", `{"a":"xyz"}`, Limits{MaxBytes: 11}, `{"a":"xyz"}`, Report{}},
		{"bytes too small for anything", `{"a":"xyz"}`, Limits{MaxBytes: 5}, `"[TRUNCATED]"`, Report{Truncated: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := mustValue(t, tc.in)
			before := proto.Clone(in)
			out, rep := Value(in, tc.lim)
			if got := render(out); got != tc.want {
				t.Errorf("Value(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
			if rep != tc.rep {
				t.Errorf("report %+v, want %+v", rep, tc.rep)
			}
			if !proto.Equal(in, before) {
				t.Errorf("input mutated")
			}
			again, _ := Value(out, tc.lim)
			if !proto.Equal(out, again) {
				t.Errorf("not idempotent: %s then %s", render(out), render(again))
			}
		})
	}
}

func TestValueOdd(t *testing.T) {
	if out, rep := Value(nil, DefaultLimits); out != nil || rep.Changed() {
		t.Fatalf("nil: %v %+v", out, rep)
	}
	if out, rep := Struct(nil, DefaultLimits); out != nil || rep.Changed() {
		t.Fatalf("nil struct: %v %+v", out, rep)
	}
	// No kind, nil items and nil fields become null.
	in := structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{nil, {},
		structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"n": nil}})}})
	out, _ := Value(in, DefaultLimits)
	if got := render(out); got != `[null,null,{"n":null}]` {
		t.Fatalf("got %s", got)
	}
	// NaN and infinities stay numbers.
	out, _ = Value(structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{
		structpb.NewNumberValue(math.NaN()), structpb.NewNumberValue(math.Inf(-1))}}), DefaultLimits)
	if got := render(out); got != `["NaN","-Infinity"]` || !math.IsNaN(out.GetListValue().GetValues()[0].GetNumberValue()) {
		t.Fatalf("got %s", got)
	}
	// Zero limits mean DefaultLimits.
	if (Limits{}).withDefaults() != DefaultLimits {
		t.Fatal("zero limits are not the defaults")
	}
	if DefaultLimits != (Limits{StringCap: 4096, MaxDepth: 8, MaxItems: 64, MaxBytes: 8192}) {
		t.Fatal("DefaultLimits changed")
	}
	// Invalid UTF-8 in a string built without validation.
	out, rep := Value(structpb.NewStringValue("a\xffb"), DefaultLimits)
	if out.GetStringValue() != "a\ufffdb" || !rep.Stripped {
		t.Fatalf("got %q %+v", out.GetStringValue(), rep)
	}
}

func TestStruct(t *testing.T) {
	in := mustValue(t, `{"password":"p","msg":"<<hi"}`).GetStructValue()
	out, rep := Struct(in, DefaultLimits)
	if got := render(structpb.NewStructValue(out)); got != `{"msg":"hi","password":"[REDACTED]"}` {
		t.Fatalf("got %s", got)
	}
	if rep != (Report{Redacted: true, Removed: true}) {
		t.Fatalf("report %+v", rep)
	}
	if in.Fields["password"].GetStringValue() != "p" {
		t.Fatal("input mutated")
	}

	// Over MaxBytes: one field holding the cut JSON text, within MaxBytes.
	lim := Limits{StringCap: 100, MaxBytes: 60}
	big := mustValue(t, `{"a":"`+strings.Repeat("x", 80)+`"}`).GetStructValue()
	out, rep = Struct(big, lim)
	got := render(structpb.NewStructValue(out))
	if got != `{"[TRUNCATED]":"{\"a\":\"xxxxxxxxxxxxxxxxxx …[truncated]"}` || !rep.Truncated {
		t.Fatalf("got %s (%d bytes) %+v", got, len(got), rep)
	}
	if len(got) > lim.MaxBytes {
		t.Fatalf("%d bytes > %d", len(got), lim.MaxBytes)
	}
	again, _ := Struct(out, lim)
	if !proto.Equal(out, again) {
		t.Fatalf("not idempotent: %s", render(structpb.NewStructValue(again)))
	}
}

func TestValueBoundedWork(t *testing.T) {
	// A list that holds itself many times over: the depth bound and the
	// byte budget stop the walk long before 64^8 visits.
	inner := &structpb.ListValue{}
	self := structpb.NewListValue(inner)
	for i := 0; i < 64; i++ {
		inner.Values = append(inner.Values, self)
	}
	out, rep := Value(self, DefaultLimits)
	if !rep.Truncated || len(render(out)) > DefaultLimits.MaxBytes {
		t.Fatalf("%+v %d", rep, len(render(out)))
	}
}

// Sanitising copies on write: a clean tree comes back as itself, a tree with
// one secret comes back as a new tree that shares the clean branches, and
// the input is never changed.
func TestValueCopiesOnWrite(t *testing.T) {
	clean := mustValue(t, `{"reason":"rate","n":3,"ok":true,"none":null,"list":[1,"two",{"x":"y"}]}`)
	out, rep := Value(clean, DefaultLimits)
	if out != clean || rep != (Report{}) {
		t.Fatalf("a clean value was copied (same pointer: %v) or reported %+v", out == clean, rep)
	}

	dirty := mustValue(t, `{"clean":{"a":"b"},"deep":{"token":"ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"list":["x",{"k":"v"}]}`)
	before := proto.Clone(dirty)
	out, rep = Value(dirty, DefaultLimits)
	if !rep.Redacted {
		t.Fatalf("the secret was not reported: %+v", rep)
	}
	if !proto.Equal(dirty, before) {
		t.Fatal("sanitising changed its input")
	}
	got, want := out.GetStructValue().GetFields(), dirty.GetStructValue().GetFields()
	if got["clean"] != want["clean"] || got["list"] != want["list"] {
		t.Error("unchanged branches were copied instead of shared")
	}
	if got["deep"] == want["deep"] || got["deep"].GetStructValue().GetFields()["token"].GetStringValue() != RedactedToken {
		t.Errorf("the changed branch is not a redacted copy: %v", got["deep"])
	}

	// A Value without a kind is not valid JSON-shaped data: it becomes null.
	odd := structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"n": nil, "e": {}}})
	out, _ = Value(odd, DefaultLimits)
	if out == odd || out.GetStructValue().GetFields()["n"].GetKind() == nil || out.GetStructValue().GetFields()["e"].GetKind() == nil {
		t.Errorf("nil and kind-less values were not turned into null: %v", out)
	}
}

// A readable identifier under a weak secret name (session, token, auth) is
// not a credential; a random token there still is, and a strong name
// (password) takes any value.
func TestReadableIdentifierUnderAWeakName(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		redacted   bool
	}{
		{"session", "scope-flow-7", false},
		{"session", "us-east-1", false},
		{"token", "gpt-4o-mini", false},
		{"auth", "build_2024", false},
		{"session", "a8Fj2kLq9xZ03mPq", true},
		{"token", "scope-flow-7a9F2kLq", true},
		{"password", "scope-flow-7", true},
	} {
		got := redactByKey(tc.key, structpb.NewStringValue(tc.value))
		if got != tc.redacted {
			t.Errorf("%s: %q redacted %v, want %v", tc.key, tc.value, got, tc.redacted)
		}
	}
}

// TestFilePathAfterACredentialKey: a key naming a credential followed by
// the file that holds it keeps the file's path (the first layer's key
// rule took it for the secret); a value that is no such path stays
// redacted, in every syntax the key rule reads.
func TestFilePathAfterACredentialKey(t *testing.T) {
	for _, s := range []string{
		"secret: /run/secrets/db_password",
		"failed to read token: /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory",
		`{"client_secret": "/etc/app/secrets/client.json"}`,
		"API_KEY=~/.config/openai/key.txt not found",
		"password=./conf/db_password.txt is not readable",
	} {
		if got := Text(s, 1<<20); got != s {
			t.Errorf("%q changed: %q", s, got)
		}
	}
	for _, c := range []struct{ in, secret string }{
		{"password: /hunter2x", "hunter2x"},
		{"secret: /AbC123xY/Zq8LmN0pWq", "Zq8LmN0pWq"},
		{"token=/api/v2/AbC123/Xy9Zq8", "Xy9Zq8"},
		{`{"api_key": "/dGhpcy9pcy9rZXk/Qm9vMTIz"}`, "Qm9vMTIz"},
		{"password=~/hunter2", "hunter2"},
	} {
		if got := Text(c.in, 1<<20); strings.Contains(got, c.secret) {
			t.Errorf("%q leaks %q: %q", c.in, c.secret, got)
		}
	}
}
