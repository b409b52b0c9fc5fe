package jsonread

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// reference is what the provider classifier did before this package:
// encoding/json's Decoder with UseNumber, first value only.
func reference(s string) (any, bool) {
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return nil, false
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// tree rebuilds the decoded tree from a Doc through the public API only,
// as the classifier reads it: Get for members (so the last duplicate must
// win), Text for numbers, Str for strings.
func tree(v Value) any {
	switch v.Kind() {
	case Null:
		return nil
	case False:
		return false
	case True:
		return true
	case Number:
		return json.Number(v.Text())
	case String:
		s, _ := v.Str()
		return s
	case Array:
		out := []any{}
		for it := v.Elems(); ; {
			e, ok := it.Next()
			if !ok {
				break
			}
			out = append(out, tree(e))
		}
		return out
	case Object:
		out := map[string]any{}
		d := v.d
		for j := v.i + 1; j < d.nodes[v.i].next; j = d.nodes[j+1].next {
			name := d.strValue(j)
			if _, seen := out[name]; seen {
				continue
			}
			m := v.Get(name)
			if m.i != j+1 && !laterKey(d, v.i, j, name, m.i) {
				panic("Get returned a member that is neither this one nor a later one")
			}
			out[name] = tree(m)
		}
		return out
	}
	panic("absent value in a document")
}

func laterKey(d *Doc, obj, j int, name string, got int) bool {
	return got > j+1 && d.keyIs(got-1, name)
}

func check(t *testing.T, s string) {
	t.Helper()
	want, wantOK := reference(s)
	d, ok := Parse(s)
	if ok != wantOK {
		t.Fatalf("%.200q: Parse ok=%v, encoding/json ok=%v", s, ok, wantOK)
	}
	if !ok {
		return
	}
	defer d.Release()
	if got := tree(d.Root()); !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q:\n got %#v\nwant %#v", s, got, want)
	}
	if n := d.Root().Len(); n != countMembers(s) && d.Root().Kind() == Array {
		t.Fatalf("%.200q: Len %d", s, n)
	}
}

// countMembers is the element count of a top-level array per
// encoding/json (for Len).
func countMembers(s string) int {
	var a []json.RawMessage
	d := json.NewDecoder(strings.NewReader(s))
	if d.Decode(&a) != nil {
		return -1
	}
	return len(a)
}

var cases = []string{
	`{}`, `[]`, `{"a":1}`, `[1,2,3]`, `{"a":{"b":[true,false,null]}}`,
	`{"a":1,"a":2}`, `{"a":{"x":1},"a":null}`, `{"a":1} trailing`, `[1]]]`, `{"a":1}{"b":2}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":-0}`, `{"a":1e5}`, `{"a":1E+5}`, `{"a":1e}`,
	`{"a":+1}`, `{"a":1.2.3}`, `{"a":123456789012345678901234567890e999}`, `{"a":-0.0e-0}`,
	"{\"a\":\"\x01\"}", `{"a":"\q"}`, `{"a":"\u00e9"}`, `{"a":"\ud83d\ude00"}`, `{"a":"\ud800"}`,
	`{"a":"\ud800\u0041"}`, `{"a":"\udc00\ud800"}`, `{"a":"\ud800\ud800\udc00"}`, `{"a":"\u0000"}`,
	`{"a":"\/\b\f\n\r\t\"\\"}`, "{\"a\":\"\xff\xfe\"}", "{\"a\xff\":1}", "{\"a\":\"\xed\xa0\x80\"}",
	"{\"a\":\"\xe2\x82\"}", `{"\u0061":1,"a":2}`, `{"a":2,"\u0061":3}`, `{"a" : [ 1 , 2 ] }`,
	"{\"a\":1,}", "[1,]", "[,1]", `{"a"}`, `{"a":}`, `{1:2}`, `{"a":tru}`, `{"a":truex}`,
	`{"a":nul}`, `{"a":null}`, "[\t\n\r 1 ]", "[\v1]", `{"a":"`, `{"a":"\`, `{"a":"\u12"}`, `[`, `{`,
	`["a"1]`, `[1 2]`, `{"a":1 "b":2}`, `[{}]`, `[[],[[]]]`, `{"":""}`, "[\"\u2028\"]",
	// Upper-case hex, in a surrogate pair too, and a pair whose second
	// half is no hex (mutation testing found no case reading them).
	`{"a":"\u00E9"}`, `{"a":"\uD83D\uDE00"}`, `{"a":"\uD83D\uDEG0"}`, `{"a":"\uD83D\u00"}`, `{"\u00C9":1}`,
}

func TestAgainstEncodingJSON(t *testing.T) {
	for _, s := range cases {
		check(t, s)
	}
}

// The fixtures' bodies, and each SSE data line of them, are real shapes.
func fixtureBodies(t testing.TB) []string {
	files, err := filepath.Glob("../../../testdata/providers/*.json")
	if err != nil || len(files) < 300 {
		t.Fatalf("fixtures: %v (%d files)", err, len(files))
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx struct {
			Answer struct{ Body string } `json:"answer"`
		}
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSpace(fx.Answer.Body))
		for _, line := range strings.Split(fx.Answer.Body, "\n") {
			if v, ok := strings.CutPrefix(line, "data:"); ok {
				out = append(out, strings.TrimSpace(v))
			}
		}
	}
	return out
}

func TestFixtureBodies(t *testing.T) {
	n := 0
	for _, s := range fixtureBodies(t) {
		if _, ok := reference(s); ok {
			n++
		}
		check(t, s)
	}
	if n < 300 {
		t.Fatalf("only %d fixture bodies are JSON", n)
	}
}

// Nesting: encoding/json refuses depth MaxDepth+1 and accepts MaxDepth;
// 100,000 brackets are refused without a deep Go stack.
func TestDepth(t *testing.T) {
	for _, depth := range []int{MaxDepth, MaxDepth + 1} {
		s := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		check(t, s)
		s = strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
		check(t, s)
	}
	if _, ok := Parse(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)); !ok {
		t.Fatal("depth MaxDepth refused")
	}
	s := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	if _, ok := Parse(s); ok {
		t.Fatal("100000 nested arrays accepted")
	}
	if _, ok := reference(s); ok {
		t.Fatal("encoding/json accepted 100000 nested arrays")
	}
}

var sink string

// Reading a plain document allocates nothing once the pool is warm.
func TestNoAllocs(t *testing.T) {
	s := `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":429,"details":[{"@type":"x"}]}}`
	n := testing.AllocsPerRun(100, func() {
		d, ok := Parse(s)
		if !ok {
			t.Fatal("not parsed")
		}
		e := d.Root().Get("error")
		sink = e.Get("message").Text()
		sink = e.Get("code").Text()
		for it := e.Get("details").Elems(); ; {
			if _, ok := it.Next(); !ok {
				break
			}
		}
		d.Release()
	})
	if raceEnabled {
		t.Logf("%v allocations (not checked under the race detector)", n)
		return
	}
	if n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func FuzzAgainstEncodingJSON(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	for _, s := range fixtureBodies(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { check(t, s) })
}

func BenchmarkParse(b *testing.B) {
	bodies := fixtureBodies(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range bodies {
			if d, ok := Parse(s); ok {
				d.Release()
			}
		}
	}
}

// What an object's accessors answer on anything else: the classifier asks
// them of whatever a provider put where it expected an object.
func TestAccessorsOnOtherKinds(t *testing.T) {
	d, ok := Parse(`[1,"s",null,[2],{"a":1}]`)
	if !ok {
		t.Fatal("not parsed")
	}
	defer d.Release()
	var kinds []Kind
	for it := d.Root().Elems(); ; {
		v, more := it.Next()
		if !more {
			break
		}
		kinds = append(kinds, v.Kind())
		if v.Kind() == Object {
			if v.Get("a").Text() != "1" || v.Len() != 1 {
				t.Fatalf("object: a=%q len %d", v.Get("a").Text(), v.Len())
			}
			continue
		}
		if g := v.Get("a"); g.Kind() != Absent {
			t.Errorf("%v: Get is %v, want absent", v.Kind(), g.Kind())
		}
		if m := v.Members(); func() bool { _, _, ok := m.Next(); return ok }() {
			t.Errorf("%v: Members yields a member", v.Kind())
		}
		if want := map[Kind]int{Array: 1}[v.Kind()]; v.Len() != want {
			t.Errorf("%v: Len %d, want %d", v.Kind(), v.Len(), want)
		}
	}
	if len(kinds) != 5 {
		t.Fatalf("%d elements", len(kinds))
	}
	if (Value{}).Get("a").Kind() != Absent || (Value{}).Len() != 0 {
		t.Fatal("the absent value has members")
	}
}
