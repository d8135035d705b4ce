package cli

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// parseRoot runs the root command with args and the environment env,
// capturing the resolved options instead of running anything.
func parseRoot(t *testing.T, args []string, env map[string]string) (*RootOptions, error) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	f := NewFactory(ios)
	f.Getenv = func(k string) string { return env[k] }
	// Nothing of the user's real home or working directory: no config
	// file but the test's.
	dir := t.TempDir()
	f.Home = func() (string, error) { return dir + "/home", nil }
	f.Getwd = func() (string, error) { return dir, nil }
	var got *RootOptions
	cmd := newCmdRoot(f, func(_ context.Context, o *RootOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs(resumeArgs(args)) // as Run does
	_, err := cmd.ExecuteC()
	return got, err
}

func TestRootFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want RootOptions
	}{
		{
			name: "defaults",
			args: nil,
			want: RootOptions{OutputFormat: "text", Model: "gpt-4o", Window: 128000, Threshold: 0.8},
		},
		{
			name: "print with prompt words and json",
			args: []string{"-p", "fix", "the", "bug", "--output-format", "json"},
			want: RootOptions{Print: true, OutputFormat: "json", Model: "gpt-4o", Window: 128000, Threshold: 0.8, Prompt: "fix the bug"},
		},
		{
			name: "model from env sets the window from the table",
			args: []string{"-p", "hi"},
			env:  map[string]string{"CLAWDCODE_MODEL": "gpt-4.1-mini"},
			want: RootOptions{Print: true, OutputFormat: "text", Model: "gpt-4.1-mini", Window: 1047576, Threshold: 0.8, Prompt: "hi"},
		},
		{
			name: "flag beats env",
			args: []string{"-m", "gpt-4", "--context-window", "5000"},
			env:  map[string]string{"CLAWDCODE_MODEL": "gpt-5", "CLAWDCODE_CONTEXT_WINDOW": "9000"},
			want: RootOptions{OutputFormat: "text", Model: "gpt-4", Window: 5000, Threshold: 0.8},
		},
		{
			name: "window from env",
			args: []string{"-m", "qwen2.5-coder:7b"},
			env:  map[string]string{"CLAWDCODE_CONTEXT_WINDOW": "32768"},
			want: RootOptions{OutputFormat: "text", Model: "qwen2.5-coder:7b", Window: 32768, Threshold: 0.8},
		},
		{
			name: "resume, tools, permissions, turns, threshold",
			args: []string{"-r", "ab12", "--allowed-tools", "write, Bash(go test:*),Write", "--disallowed-tools", "Bash(rm:*)",
				"--dangerously-skip-permissions", "--max-turns", "3", "--compact-threshold", "1"},
			want: RootOptions{OutputFormat: "text", Resume: "ab12", Model: "gpt-4o", Window: 128000, Threshold: 1,
				Allow: mustRules("Write,Bash(go test:*),Write"), Deny: mustRules("Bash(rm:*)"), SkipPermissions: true, MaxTurns: 3},
		},
		{
			name: "continue",
			args: []string{"-c", "-p", "/compact"},
			want: RootOptions{Print: true, Continue: true, OutputFormat: "text", Model: "gpt-4o", Window: 128000, Threshold: 0.8, Prompt: "/compact"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseRoot(t, tt.args, tt.env)
			if err != nil {
				t.Fatalf("parse %q: %v", tt.args, err)
			}
			if !equalOptions(*got, tt.want) {
				t.Errorf("parse %q:\n got %+v\nwant %+v", tt.args, *got, tt.want)
			}
		})
	}
}

func mustRules(list string) []tools.Rule {
	rules, err := tools.ParseRules(list)
	if err != nil {
		panic(err)
	}
	return rules
}

func equalOptions(a, b RootOptions) bool {
	return slices.Equal(a.Allow, b.Allow) && slices.Equal(a.Deny, b.Deny) &&
		a.Print == b.Print && a.OutputFormat == b.OutputFormat && a.Continue == b.Continue &&
		a.Resume == b.Resume && a.Model == b.Model && a.Window == b.Window &&
		a.Threshold == b.Threshold && a.SkipPermissions == b.SkipPermissions &&
		a.MaxTurns == b.MaxTurns && a.Prompt == b.Prompt
}

func TestRootFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantMsg string
	}{
		{"unknown flag", []string{"--bogus"}, nil, "unknown flag: --bogus"},
		{"bad output format", []string{"-p", "x", "--output-format", "xml"}, nil, `invalid --output-format "xml"`},
		{"output format without -p", []string{"--output-format", "json"}, nil, "needs -p"},
		{"continue and resume", []string{"-c", "-r", "abc"}, nil, "cannot be used together"},
		{"threshold zero", []string{"--compact-threshold", "0"}, nil, "invalid --compact-threshold"},
		{"threshold above one", []string{"--compact-threshold", "1.5"}, nil, "invalid --compact-threshold"},
		{"threshold not a number", []string{"--compact-threshold", "x"}, nil, "invalid argument"},
		{"window zero", []string{"--context-window", "0"}, nil, "invalid --context-window"},
		{"window env garbage", nil, map[string]string{"CLAWDCODE_CONTEXT_WINDOW": "lots"}, "invalid CLAWDCODE_CONTEXT_WINDOW"},
		{"negative max turns", []string{"--max-turns", "-1"}, nil, "invalid --max-turns"},
		{"unknown tool", []string{"--allowed-tools", "Read,Delete"}, nil, `unknown tool "Delete"`},
		{"unknown tool denied", []string{"--disallowed-tools", "Rm"}, nil, `unknown tool "Rm" in --disallowed-tools`},
		{"bad rule", []string{"--allowed-tools", "Bash(go test"}, nil, "missing closing parenthesis"},
		{"specifier on a tool without one", []string{"--allowed-tools", "Glob(src)"}, nil, "Glob takes no specifier"},
		{"empty model", []string{"-m", " "}, nil, "--model needs a model name"},
		{"resume without id, no terminal", []string{"-r"}, nil, "without a session id needs a terminal"},
		{"resume without id in -p", []string{"-p", "hi", "-r"}, nil, "without a session id needs a terminal"},
		{"resume without id, forked", []string{"-r", "--fork-session"}, nil, "--fork-session needs the session's id"},
		{"resume with an empty id", []string{"-r", "", "-p", "hi"}, nil, "needs a session id"},
		{"resume with an empty id, long form", []string{"--resume=", "-p", "hi"}, nil, "needs a session id"},
		{"resume with a blank id", []string{"-r", "  ", "-p", "hi"}, nil, "needs a session id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseRoot(t, tt.args, tt.env)
			if err == nil {
				t.Fatalf("parse %q: no error", tt.args)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("parse %q: error %q, want it to contain %q", tt.args, err, tt.wantMsg)
			}
			if code := Describe(err, nil).Code; code != ExitUsage {
				t.Errorf("parse %q: exit %d, want %d", tt.args, code, ExitUsage)
			}
		})
	}
}

func TestSessionsSubcommandArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"sessions", "show"}, "needs a session id"},
		{[]string{"sessions", "show", "a", "b"}, `unexpected argument "b"`},
		{[]string{"sessions", "export", "abc", "--format", "pdf"}, `invalid --format "pdf"`},
		{[]string{"sessions", "rm"}, "needs a session id"},
		{[]string{"sessions", "list", "extra"}, `unexpected argument "extra"`},
		{[]string{"completion"}, "needs one shell"},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh"`},
		{[]string{"version", "now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			ios, _, _, _ := iostreams.Test()
			cmd := NewCmdRoot(NewFactory(ios))
			cmd.SetArgs(tt.args)
			_, err := cmd.ExecuteC()
			var usage *UsageError
			if !errors.As(err, &usage) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("run %q: error %v, want a usage error containing %q", tt.args, err, tt.wantErr)
			}
		})
	}
}

func TestSessionsFlags(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := iostreams.Test()
	f := NewFactory(ios)

	var show *SessionsShowOptions
	cmd := NewCmdSessionsShow(f, func(_ context.Context, o *SessionsShowOptions) error { show = o; return nil })
	cmd.SetArgs([]string{"ab12", "--full"})
	if err := cmd.Execute(); err != nil || show.ID != "ab12" || !show.Full {
		t.Errorf("show ab12 --full: %+v, %v", show, err)
	}

	var exp *SessionsExportOptions
	cmd = NewCmdSessionsExport(f, func(_ context.Context, o *SessionsExportOptions) error { exp = o; return nil })
	cmd.SetArgs([]string{"ab12"})
	if err := cmd.Execute(); err != nil || exp.Format != ExportMarkdown {
		t.Errorf("export ab12: %+v, %v (want markdown by default)", exp, err)
	}

	var rm *SessionsRmOptions
	cmd = NewCmdSessionsRm(f, func(_ context.Context, o *SessionsRmOptions) error { rm = o; return nil })
	cmd.SetArgs([]string{"-y", "ab12"})
	if err := cmd.Execute(); err != nil || !rm.Yes || rm.ID != "ab12" {
		t.Errorf("rm -y ab12: %+v, %v", rm, err)
	}

	var list *SessionsListOptions
	cmd = NewCmdSessionsList(f, func(_ context.Context, o *SessionsListOptions) error { list = o; return nil })
	cmd.SetArgs([]string{"--all", "--json"})
	if err := cmd.Execute(); err != nil || !list.All || !list.JSON {
		t.Errorf("list --all --json: %+v, %v", list, err)
	}
}

// -r's value is optional, but "-r ID" still names the session ID.
func TestResumeArgs(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want []string }{
		{[]string{"-r", "ab12", "fix it"}, []string{"--resume=ab12", "fix it"}},
		{[]string{"--resume", "ab12"}, []string{"--resume=ab12"}},
		{[]string{"-p", "hi", "-r"}, []string{"-p", "hi", "-r"}},
		{[]string{"-r", "-p", "hi"}, []string{"-r", "-p", "hi"}},
		{[]string{"-r", ""}, []string{"--resume="}},
		{[]string{"--", "-r", "x"}, []string{"--", "-r", "x"}},
		{[]string{"--resume=ab", "x"}, []string{"--resume=ab", "x"}},
	}
	for _, tt := range tests {
		if got := resumeArgs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("resumeArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
