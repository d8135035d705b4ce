package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestSetDefinitions(t *testing.T) {
	t.Parallel()
	set := Set(NewEnv(t.TempDir()))
	want := []struct {
		name       string
		permission bool
		required   []string
		optional   []string
	}{
		{NameRead, false, []string{"file_path"}, []string{"offset", "limit"}},
		{NameWrite, true, []string{"file_path", "content"}, nil},
		{NameEdit, true, []string{"file_path", "old_string", "new_string"}, []string{"replace_all"}},
		{NameBash, true, []string{"command"}, []string{"timeout", "run_in_background", "sandbox"}},
		{NameGlob, false, []string{"pattern"}, []string{"path"}},
		{NameGrep, false, []string{"pattern"}, []string{"path", "glob"}},
		{NameBashOutput, false, []string{"bash_id"}, nil},
		{NameKillShell, false, []string{"shell_id"}, nil},
		{NameWebFetch, true, []string{"url"}, []string{"prompt"}},
	}
	if len(set) != len(want) {
		t.Fatalf("got %d tools, want %d", len(set), len(want))
	}
	for i, w := range want {
		tl := set[i]
		def := tl.Definition()
		if tl.Name() != w.name || def.Name != w.name {
			t.Fatalf("tool %d: name %q/%q, want %q", i, tl.Name(), def.Name, w.name)
		}
		if tl.NeedsPermission() != w.permission {
			t.Errorf("%s: NeedsPermission = %v", w.name, tl.NeedsPermission())
		}
		if len(def.Description) < 40 {
			t.Errorf("%s: description too thin: %q", w.name, def.Description)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(def.Parameters, &schema); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", w.name, err)
		}
		if strings.ContainsAny(string(def.Parameters), "\n\t") {
			t.Errorf("%s: schema not compact: %s", w.name, def.Parameters)
		}
		if schema.Type != "object" || !slices.Equal(schema.Required, w.required) {
			t.Errorf("%s: schema type %q required %v, want object %v", w.name, schema.Type, schema.Required, w.required)
		}
		all := append(slices.Clone(w.required), w.optional...)
		if len(schema.Properties) != len(all) {
			t.Errorf("%s: properties %d, want %d", w.name, len(schema.Properties), len(all))
		}
		for _, p := range all {
			var prop struct{ Type, Description string }
			if err := json.Unmarshal(schema.Properties[p], &prop); err != nil || prop.Type == "" || prop.Description == "" {
				t.Errorf("%s.%s: property missing type or description: %s", w.name, p, schema.Properties[p])
			}
		}
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	set := Set(NewEnv(t.TempDir()))
	for _, name := range []string{"Read", "read", "BASH", "Grep"} {
		tl, ok := Lookup(set, name)
		if !ok || !strings.EqualFold(tl.Name(), name) {
			t.Errorf("Lookup(%q) = %v, %v", name, tl, ok)
		}
	}
	if _, ok := Lookup(set, "Delete"); ok {
		t.Error("Lookup found a tool that does not exist")
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	env := NewEnv(root)
	set := Set(env)
	tests := []struct {
		tool, input, want string
	}{
		{NameBash, `{"command":"go test ./..."}`, "Bash(go test ./...)"},
		{NameBash, `{"command":"  make\nmake install"}`, "Bash(make…)"},
		{NameEdit, `{"file_path":"internal/x.go","old_string":"a","new_string":"b"}`, "Edit(internal/x.go)"},
		{NameEdit, `{"file_path":"` + root + `/internal/x.go"}`, "Edit(internal/x.go)"},
		{NameWrite, `{"file_path":"/etc/hosts"}`, "Write(/etc/hosts)"},
		{NameRead, `{"file_path":"a.txt","offset":3}`, "Read(a.txt)"},
		{NameGlob, `{"pattern":"**/*.go"}`, "Glob(**/*.go)"},
		{NameGlob, `{"pattern":"*.md","path":"docs"}`, "Glob(*.md in docs)"},
		{NameGrep, `{"pattern":"TODO","path":"src","glob":"*.ts"}`, "Grep(TODO in src [*.ts])"},
		{NameBash, `not json`, "Bash"},
		{NameRead, `{"file_path": 7}`, "Read()"},
	}
	for _, tt := range tests {
		tl, _ := Lookup(set, tt.tool)
		if got := tl.Describe(json.RawMessage(tt.input)); got != tt.want {
			t.Errorf("%s.Describe(%s) = %q, want %q", tt.tool, tt.input, got, tt.want)
		}
	}
	long := `{"command":"` + strings.Repeat("x", 200) + `"}`
	tl, _ := Lookup(set, NameBash)
	if got := tl.Describe(json.RawMessage(long)); len([]rune(got)) > 90 {
		t.Errorf("long command not shortened: %d runes", len([]rune(got)))
	}
}

func TestBadArguments(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	tests := []struct {
		tool, input string
		want        []string
	}{
		{NameRead, `{`, []string{"not valid JSON"}},
		{NameRead, `[1,2]`, []string{"must be a JSON object", "array"}},
		{NameRead, `"a.txt"`, []string{"must be a JSON object", "string"}},
		{NameRead, `{}`, []string{`missing required parameter "file_path"`}},
		{NameRead, ``, []string{`missing required parameter "file_path"`}},
		{NameRead, `{"file_path": null}`, []string{`missing required parameter "file_path"`}},
		{NameRead, `{"file_path": 12}`, []string{`parameter "file_path" must be a string, got number 12`}},
		{NameRead, `{"file_path": "a", "offset": "ten"}`, []string{`parameter "offset" must be an integer, got string "ten"`}},
		{NameRead, `{"file_path": "a", "limit": 2.5}`, []string{`parameter "limit" must be an integer`}},
		{NameRead, `{"file_path": ""}`, []string{"file_path is empty"}},
		{NameRead, `{"file_path": "a", "offset": -1}`, []string{"offset must be"}},
		{NameWrite, `{"file_path": "a"}`, []string{`missing required parameter "content"`}},
		{NameEdit, `{"file_path": "a", "old_string": "x"}`, []string{`missing required parameter "new_string"`}},
		{NameEdit, `{"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "yes"}`, []string{`parameter "replace_all" must be a boolean`}},
		{NameEdit, `{"file_path": "a", "old_string": "x", "new_string": "x"}`, []string{"identical"}},
		{NameBash, `{"command": ""}`, []string{"command is empty"}},
		{NameBash, `{"command": "true", "timeout": 0}`, []string{"timeout must be a positive number"}},
		{NameBash, `{"command": ["ls"]}`, []string{`parameter "command" must be a string, got array`}},
		{NameGlob, `{"pattern": ""}`, []string{"pattern is empty"}},
		{NameGlob, `{"pattern": "[a"}`, []string{"invalid pattern"}},
		{NameGrep, `{"pattern": "a("}`, []string{"invalid regular expression"}},
		{NameGrep, `{"pattern": "a", "glob": "[x"}`, []string{"invalid glob"}},
	}
	for _, tt := range tests {
		r := call(t, env, tt.tool, tt.input)
		if r.Error == "" {
			t.Errorf("%s %s: no error, output %q", tt.tool, tt.input, r.Output)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(r.Error, w) {
				t.Errorf("%s %s: error %q does not contain %q", tt.tool, tt.input, r.Error, w)
			}
		}
	}
}

func TestLenientArguments(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root+"/a.txt", "one\ntwo\nthree\n")
	env := NewEnv(root)
	for _, input := range []string{
		`{"file_path":"a.txt","offset":"2","limit":1}`,
		`{"file_path":"a.txt","offset":2.0,"limit":"1"}`,
		`{"file_path":"a.txt","offset":2,"limit":1,"unknown":{"x":1}}`,
	} {
		r := call(t, env, NameRead, input)
		wantOK(t, r)
		if !strings.HasPrefix(r.Output, "     2\ttwo\n") {
			t.Errorf("%s: got %q", input, r.Output)
		}
	}
}

func TestRunRecoversPanics(t *testing.T) {
	t.Parallel()
	tl := &tool{name: "Boom", run: func(context.Context, args) Result {
		var m map[string]int
		//lint:ignore SA5000 a runtime panic (not a panic call) is the point
		m["x"]++
		return Result{}
	}, describe: func(args) string { panic("describe") }}
	r := tl.Run(context.Background(), json.RawMessage(`{}`))
	wantError(t, r, "internal error in Boom")
	if got := tl.Describe(json.RawMessage(`{}`)); got != "Boom" {
		t.Errorf("Describe after panic = %q", got)
	}
}
