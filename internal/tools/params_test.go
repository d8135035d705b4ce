package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The schema each tool offers is generated from its parameter struct and
// names exactly the contract's parameters (CONTRACT.md §3), required ones
// marked.
func TestSchemasFromParamStructs(t *testing.T) {
	t.Parallel()
	want := map[string]struct{ props, required []string }{
		NameRead:   {[]string{"file_path", "offset", "limit"}, []string{"file_path"}},
		NameWrite:  {[]string{"file_path", "content"}, []string{"file_path", "content"}},
		NameEdit:   {[]string{"file_path", "old_string", "new_string", "replace_all"}, []string{"file_path", "old_string", "new_string"}},
		NameBash:   {[]string{"command", "timeout", "run_in_background", "sandbox"}, []string{"command"}},
		NameGlob:   {[]string{"pattern", "path"}, []string{"pattern"}},
		NameGrep:   {[]string{"pattern", "path", "glob"}, []string{"pattern"}},
		NameRecall: {[]string{"query", "ref", "scope", "limit", "offset"}, nil},

		NameBashOutput: {[]string{"bash_id"}, []string{"bash_id"}},
		NameKillShell:  {[]string{"shell_id"}, []string{"shell_id"}},
		NameWebFetch:   {[]string{"url", "prompt"}, []string{"url"}},
	}
	tools := append(Set(&Env{Root: t.TempDir()}), NewRecall(nil))
	for _, tl := range tools {
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		raw := tl.Definition().Parameters
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: schema %s: %v", tl.Name(), raw, err)
		}
		w := want[tl.Name()]
		var props []string
		for p := range s.Properties {
			props = append(props, p)
		}
		slices.Sort(props)
		wantProps := slices.Sorted(slices.Values(w.props))
		if s.Type != "object" || !slices.Equal(props, wantProps) || !slices.Equal(s.Required, w.required) {
			t.Errorf("%s: schema %s, want properties %v, required %v", tl.Name(), raw, w.props, w.required)
		}
		if strings.Contains(string(raw), "null") || strings.ContainsAny(string(raw), "\n\t") {
			t.Errorf("%s: schema is not compact or offers null: %s", tl.Name(), raw)
		}
	}
}

// Decoding keeps the leniency models need and names what is wrong.
func TestDecodeParams(t *testing.T) {
	t.Parallel()
	decode := func(in string) (bashParams, error) {
		a, err := parseArgs(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		return decodeParams[bashParams](a, false)
	}
	if p, err := decode(`{"command":"ls","timeout":"1500"}`); err != nil || p.Command != "ls" || p.Timeout == nil || *p.Timeout != 1500 {
		t.Errorf("string timeout: %+v, %v", p, err)
	}
	if p, err := decode(`{"command":"ls","timeout":null}`); err != nil || p.Timeout != nil {
		t.Errorf("null timeout is absent: %+v, %v", p, err)
	}
	for in, msg := range map[string]string{
		`{}`:                                `missing required parameter "command"`,
		`{"command":"  "}`:                  "command is empty",
		`{"command":"ls","timeout":"soon"}`: `parameter "timeout" must be an integer, got string`,
		`{"command":42}`:                    `parameter "command" must be a string, got number`,
	} {
		if _, err := decode(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", in, err, msg)
		}
	}
	a, _ := parseArgs(json.RawMessage(`{"timeout":"soon"}`))
	if p, err := decodeParams[bashParams](a, true); err != nil || p.Command != "" {
		t.Errorf("loose decoding: %+v, %v", p, err)
	}
}

// TodoWrite's items are objects whose status is one of three values: the
// param tags of a list's item type reach the items' schema.
func TestTodoWriteSchema(t *testing.T) {
	t.Parallel()
	raw := string(NewTodoWrite().Definition().Parameters)
	for _, want := range []string{`"todos"`, `"items"`, `"content"`, `"enum":["pending","in_progress","completed"]`} {
		if !strings.Contains(raw, want) {
			t.Errorf("schema %s lacks %s", raw, want)
		}
	}
	res := NewTodoWrite().Run(t.Context(), json.RawMessage(`{"todos":[{"content":"a","status":"done"}]}`))
	if !strings.Contains(res.Error, `status "done"`) {
		t.Errorf("a bad status: %+v", res)
	}
	res = NewTodoWrite().Run(t.Context(), json.RawMessage(`{"todos":[{"content":"read x","status":"completed"},{"content":"fix y","status":"in_progress"}]}`))
	if res.Error != "" || res.Output != "1/2 done\n[x] read x\n[~] fix y" {
		t.Errorf("result %+v", res)
	}
}
