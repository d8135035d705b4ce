package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

// filled sets every field of the value v points to, recursively: strings,
// numbers, bools, times, maps and slices of one element, raw JSON, and
// every pointer — a record with every part clawdcode writes.
func filled(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		if depth > 6 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		filled(v.Elem(), depth+1)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 25, 3, 4, 5, 600, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				filled(v.Field(i), depth+1)
			}
		}
	case reflect.String:
		v.SetString("x <é> \u2028 \"q\"")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(42)
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		v.SetUint(7)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(0.25)
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.Set(reflect.ValueOf(json.RawMessage(`{"path": "a.go", "n": [1, 2.5e3]}`)))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		filled(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		filled(k, depth+1)
		filled(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

// recordLines are lines to decode: a record with every field set, the
// lines of real session files of another agent, and lines written oddly
// (names in other cases, a name twice, invalid UTF-8, a loose time, nulls,
// wrong types, truncation).
func recordLines(t testing.TB) [][]byte {
	var all Record
	filled(reflect.ValueOf(&all).Elem(), 0)
	whole, err := json.Marshal(&all)
	if err != nil {
		t.Fatal(err)
	}
	lines := [][]byte{whole, whole[:len(whole)/2]}
	for _, f := range fixtures.Glob(t, "claude-code", "*.jsonl") {
		for _, l := range bytes.Split(fixtures.Read(t, "claude-code", filepath.Base(f)), []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines = append(lines, l)
			}
		}
	}
	for _, l := range []string{
		`{"TYPE":"user","Uuid":"a","message":{"role":"user","content":"hi"}}`,
		`{"type":"user","type":"assistant"}`,
		"{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe ok\"}}",
		`{"timestamp":"2025-01-02T0:04:05.9+01:00","type":"user"}`,
		`{"parentUuid":null,"message":null,"tool":{"name":"Read","input":null}}`,
		`{"tokens":1.5}`, `{"tokens":"3"}`, `{"type":7}`, `[]`, `null`, `{"type":"user"} x`,
		`{"tool":{"name":"Edit","input":  {"b" : [ 1 ,2 ] } }}`,
		`{"toolResult":{"output":"\ud800 lone surrogate"}}`,
		`{"usage":{"input_tokens":-1}}`, `{"contextWindow":1e3}`,
	} {
		lines = append(lines, []byte(l))
	}
	return lines
}

// decodesLikeEncodingJSON is "" when DecodeLine reads line as
// encoding/json does — the same Record, or an error from both (a line
// that fails is skipped with a warning whatever the error says) — and
// the difference otherwise.
func decodesLikeEncodingJSON(line []byte) string {
	v2, v1 := new(Record), new(Record)
	err2, err1 := DecodeLine(line, v2), json.Unmarshal(line, v1)
	switch {
	case (err2 == nil) != (err1 == nil):
		return fmt.Sprintf("DecodeLine error %v\nencoding/json error %v", err2, err1)
	case err1 == nil && !reflect.DeepEqual(v2, v1):
		return fmt.Sprintf("DecodeLine    %+v\nencoding/json %+v", v2, v1)
	}
	return ""
}

// TestDecodeRecordLikeEncodingJSON holds DecodeLine to encoding/json on
// records.
func TestDecodeRecordLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, l := range recordLines(t) {
		if d := decodesLikeEncodingJSON(l); d != "" {
			t.Errorf("%.200s:\n%s", l, d)
		}
	}
}

// FuzzDecodeRecordLikeEncodingJSON is TestDecodeRecordLikeEncodingJSON
// for any line.
func FuzzDecodeRecordLikeEncodingJSON(f *testing.F) {
	for _, l := range recordLines(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if d := decodesLikeEncodingJSON(line); d != "" {
			t.Fatal(d)
		}
	})
}
