package search

import (
	"encoding/json"
	"slices"
	"testing"
)

// jsonText is the searchable text by encoding/json alone.
func jsonText(raw []byte) (string, bool) {
	var l line
	if json.Unmarshal(raw, &l) != nil || !searchable(l.Type) {
		return "", false
	}
	return string(appendText(nil, &l)), true
}

func sortedTerms(s string) []string {
	t := terms(s)
	slices.Sort(t)
	return t
}

// The scanner finds the same terms as encoding/json, or gives the line up.
func checkScan(t *testing.T, raw []byte) {
	want, wantOK := jsonText(raw)
	var sc scanner
	text, ok, err := recordText(&sc, raw, false)
	if (err == nil && ok) != wantOK {
		t.Fatalf("%s: searchable %v (err %v), encoding/json says %v", raw, ok, err, wantOK)
	}
	if !ok {
		return
	}
	got, exp := sortedTerms(string(text)), sortedTerms(want)
	// A tool's input with a key twice keeps the last value in
	// encoding/json's map and every value in the scanner: a superset.
	if !slices.Equal(got, exp) && !(subset(exp, got) && len(raw) > 0 && json.Valid(raw) && hasToolInput(raw)) {
		t.Fatalf("%s:\n scanner %q\n json    %q", raw, text, want)
	}
}

var scanSeeds = []string{
	`{"type":"user","message":{"role":"user","content":"hello \"world\"\n\tcafé \u00e9t\u00e9 \ud83d\ude00 x"}}`,
	`{"uuid":"a","type":"assistant","message":{"role":"assistant","content":"plain","model":"m","usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"type":"tool_use","tool":{"id":"c","name":"Bash","input":{"command":"go test ./...","timeout":120000,"x":[true,null,"nested",{"y":"deep"}]}}}`,
	`{"type":"tool_result","toolResult":{"id":"c","output":"ok\\path","error":"exit 1"}}`,
	`{"type":"tool_result","toolResult":null}`,
	`{"type":"user","message":{"content":null}}`,
	`{"type":"system","subtype":"compact_boundary","message":{"content":"Conversation compacted"}}`,
	` { "type" : "user" , "message" : { "content" : "spaced" } } `,
	`{"type":"user","message":{"content":"torn`,
	`{"type":"user","message":{"content":"x"}} trailing`,
	`{"type":"user","message":{"content":"bad \q escape"}}`,
	`{"message":{"content":"type later"},"type":"user"}`,
	`[1,2]`,
	``,
}

func TestScanMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range scanSeeds {
		checkScan(t, []byte(s))
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkScan(t, []byte(s)) })
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func hasToolInput(raw []byte) bool {
	var l line
	return json.Unmarshal(raw, &l) == nil && l.Tool != nil && len(l.Tool.Input) > 0
}
