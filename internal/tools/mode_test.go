package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// What each mode lets run without asking, with a terminal that would
// allow anything: asked is whether the user was asked.
func TestModes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	set := append(Set(NewEnv(root)), NewTodoWrite(), NewExitPlanMode(nil),
		NewTask(noTasks{}, []SubagentType{{Name: "general"}, {Name: "explore", ReadOnly: true}}))
	tool := func(name string) Tool { tl, _ := Lookup(set, name); return tl }
	inside := json.RawMessage(`{"file_path":"a.txt","content":"x"}`)
	outside, _ := json.Marshal(obj{"file_path": filepath.Join(t.TempDir(), "b.txt"), "content": "x"})
	bash := json.RawMessage(`{"command":"touch x"}`)
	read := json.RawMessage(`{"file_path":"a.txt"}`)

	type call struct {
		tool   string
		input  json.RawMessage
		denied string // part of the denial; "" runs
		asked  bool
	}
	tests := []struct {
		mode  Mode
		deny  []string
		calls []call
	}{
		{ModeDefault, nil, []call{
			{NameWrite, inside, "", true},
			{NameBash, bash, "", true},
		}},
		{ModeAcceptEdits, nil, []call{
			{NameWrite, inside, "", false},
			{NameEdit, json.RawMessage(`{"file_path":"a.txt","old_string":"x","new_string":"y"}`), "", false},
			{NameWrite, outside, "", true},
			{NameBash, bash, "", true},
		}},
		{ModeAcceptEdits, []string{"Write"}, []call{
			{NameWrite, inside, "denied by the rule Write", false},
		}},
		{ModePlan, nil, []call{
			{NameRead, read, "", false},
			{NameWrite, inside, "plan mode is on", false},
			{NameBash, bash, "plan mode is on", false},
			{NameTodoWrite, json.RawMessage(`{"todos":[{"content":"plan the change","status":"pending"}]}`), "", false},
			{NameBashOutput, json.RawMessage(`{"bash_id":"bash_1"}`), "", false},
			// A plan can be researched: a page (asked, as in every mode)
			// and a subagent that only reads; and it is handed over.
			{NameWebFetch, json.RawMessage(`{"url":"https://example.com","prompt":"x"}`), "", true},
			{NameTask, json.RawMessage(`{"description":"d","prompt":"p","subagent_type":"Explore"}`), "", false},
			{NameTask, json.RawMessage(`{"description":"d","prompt":"p"}`), "plan mode is on", false},
			{NameTask, json.RawMessage(`{"description":"d","prompt":"p","subagent_type":"general"}`), "plan mode is on", false},
			{NameExitPlanMode, json.RawMessage(`{"plan":"1. do it"}`), "", false},
		}},
		{ModeBypass, []string{"Bash"}, []call{
			{NameWrite, outside, "", false},
			{NameBash, bash, "denied by the rule Bash", false},
		}},
	}
	for _, tt := range tests {
		deny, err := ParseRules(strings.Join(tt.deny, ","))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tt.calls {
			asker := &scriptedAsker{decision: AllowOnce}
			p := NewPermissions(PermissionsConfig{Root: root, Mode: tt.mode, Deny: deny, Asker: asker})
			denied, err := p.Check(context.Background(), tool(c.tool), c.input)
			if err != nil {
				t.Fatal(err)
			}
			if (c.denied == "") != (denied == "") || !strings.Contains(denied, c.denied) || (asker.count() > 0) != c.asked {
				t.Errorf("%s, deny %v: %s %s: denied %q, asked %d times; want denied %q, asked %v",
					tt.mode, tt.deny, c.tool, c.input, denied, asker.count(), c.denied, c.asked)
			}
		}
	}
}

// noTasks runs no subagent: only the policy is under test.
type noTasks struct{}

func (noTasks) RunTask(context.Context, TaskParams) Result { return Result{} }

// Shift-Tab's cycle goes through bypass only when the run was started
// with --dangerously-skip-permissions, and SetMode cannot reach it either.
func TestCycleMode(t *testing.T) {
	t.Parallel()
	for _, skip := range []bool{false, true} {
		p := NewPermissions(PermissionsConfig{SkipAll: skip, Mode: ModeAcceptEdits})
		var got []Mode
		for range 4 {
			got = append(got, p.CycleMode())
		}
		want := []Mode{ModePlan, ModeDefault, ModeAcceptEdits, ModePlan}
		if skip {
			want = []Mode{ModePlan, ModeBypass, ModeDefault, ModeAcceptEdits}
		}
		if !slices.Equal(got, want) {
			t.Errorf("skip %v: cycle %v, want %v", skip, got, want)
		}
		if ok := p.SetMode(ModeBypass); ok != skip {
			t.Errorf("skip %v: SetMode(bypass) = %v", skip, ok)
		}
	}
	if m := NewPermissions(PermissionsConfig{SkipAll: true}).Mode(); m != ModeBypass {
		t.Errorf("--dangerously-skip-permissions alone starts in %s", m)
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for _, m := range []Mode{ModeDefault, ModeAcceptEdits, ModePlan} {
		if got, err := ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
	for _, bad := range []string{"", "bypassPermissions", "Plan", "accept-edits"} {
		if _, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode(%q) accepted", bad)
		}
	}
}
