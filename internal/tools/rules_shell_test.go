package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// bashVerdict is what a Permissions without a prompt decides for a command
// under the given allow and deny rules: true when it runs.
func bashVerdict(t *testing.T, allow, deny, cmd string) bool {
	t.Helper()
	a, err := ParseRules(allow)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseRules(deny)
	if err != nil {
		t.Fatal(err)
	}
	bash, _ := Lookup(Set(NewEnv(t.TempDir())), NameBash)
	in, _ := json.Marshal(obj{"command": cmd})
	denied, err := NewPermissions(PermissionsConfig{Allow: a, Deny: d}).Check(context.Background(), bash, in)
	if err != nil {
		t.Fatal(err)
	}
	return denied == ""
}

// TestAllowRuleCoversOnlyWhatBashRuns holds an allow rule to every
// command bash would run: the bypasses of issue 17 first, then quoting,
// comments, continuations, here-documents, substitutions, compound
// commands and the constructs the walk does not model (which ask).
func TestAllowRuleCoversOnlyWhatBashRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		allow string
		cmd   string
		runs  bool
	}{
		// The reported bypasses.
		{"Bash(echo:*)", `echo $'it\'s'; touch X`, false},
		{"Bash(echo:*)", `echo $'a\'b'; touch X`, false},
		{"Bash(git status:*)", "git status # note \\\ntouch X", false},
		{"Bash(git status:*)", "git status # note \\\n", false}, // the parser reads it otherwise than bash: ask
		{"Bash(echo:*)", "echo $(echo a # x \\\ntouch X\n)", false},
		{"Bash(echo:*)", "echo `echo a # x \\\ntouch X`", false},
		{"Bash(echo:*)", "(echo a # x \\\ntouch X\n)", false},
		{"Bash(echo:*)", `echo $'it\'s'`, true},
		// Quoting: words after quote removal, on word boundaries.
		{"Bash(echo:*)", `echo 'a; touch X'`, true},
		{"Bash(echo:*)", `echo "a; touch X"`, true},
		{"Bash(echo:*)", `echo a\;touch X`, true},
		{"Bash(echo:*)", `"echo" hi`, true},
		{"Bash(echo:*)", `ec''ho hi`, true},
		{"Bash(echo:*)", `echo\ hi`, false},
		{"Bash(echo:*)", `echox hi`, false},
		{"Bash(git diff:*)", `git "diff" HEAD`, true},
		{"Bash(git diff:*)", `git diff\ x`, false},
		{"Bash(echo:*)", "echo a \\\nb", true},
		{"Bash(echo:*)", "echo a \\\n; touch X", false},
		{"Bash(echo:*)", "echo \"a\nb\"", true},
		{"Bash(echo:*)", "echo $'\\n'; touch X", false},
		// Lists, pipelines, background, newlines.
		{"Bash(echo:*)", "echo a && touch X", false},
		{"Bash(echo:*)", "echo a || touch X", false},
		{"Bash(echo:*)", "echo a & touch X", false},
		{"Bash(echo:*)", "echo a &", true},
		{"Bash(echo:*)", "echo a | touch X", false},
		{"Bash(echo:*)", "echo a |& touch X", false},
		{"Bash(echo:*)", "echo a\ntouch X", false},
		{"Bash(echo:*)", "echo a\r\ntouch X", false},
		{"Bash(echo:*)", "echo a; echo b", true},
		{"Bash(echo:*)", "! echo a", true},
		{"Bash(echo:*)", "time echo a", true},
		// Substitutions, anywhere.
		{"Bash(echo:*)", "echo $(touch X)", false},
		{"Bash(echo:*)", "echo `touch X`", false},
		{"Bash(echo:*)", `echo "$(touch X)"`, false},
		{"Bash(echo:*)", `echo "a $(echo b) c"`, true},
		{"Bash(echo:*)", "echo <(touch X)", false},
		{"Bash(echo:*)", "echo >(touch X)", false},
		{"Bash(echo:*)", "echo < <(touch X)", false},
		{"Bash(echo:*)", "X=$(touch X) echo a", false},
		{"Bash(echo:*)", "echo ${x:-$(touch X)}", false},
		// The parser reads a process substitution inside ${…} as text;
		// bash runs it (found by FuzzBashAllowRule).
		{"Bash(echo:*)", "echo ${1-<(touch X)}", false},
		{"Bash(echo:*)", "echo ${x:+>(touch X)}", false},
		{"Bash(echo:*)", "echo ${x/a/<(touch X)}", false},
		{"Bash(echo:*)", "echo ${x:-a}", true},
		{"Bash(echo:*)", "echo\r", false},
		{"Bash(echo:*)", "echo a\r\ntouch X", false},
		{"Bash(echo:*)", "echo a >&-", true},
		{"Bash(echo:*)", "echo a >&-touch X", false},
		{"Bash(echo:*)", "echo a <<< $(touch X)", false},
		{"Bash(echo:*)", "cat <<EOF\n$(touch X)\nEOF", false},
		{"Bash(cat:*)", "cat <<EOF\n$(touch X)\nEOF", false},
		{"Bash(cat:*)", "cat <<'EOF'\n$(touch X); rm -rf /\nEOF", true},
		{"Bash(cat:*)", "cat <<EOF\na; b && c\nEOF\n", true},
		{"Bash(cat:*)", "cat <<EOF\na\nEOF\ntouch X", false},
		{"Bash(echo:*)", "echo <<EOF\n\\\nEOF\ntouch X\nEOF", false}, // bash ends the body at the first EOF
		{"Bash(echo:*)", "echo <<-EOF\n\tEOF\ntouch X", false},
		{"Bash(echo:*)", "echo $((1+2))", true},
		{"Bash(echo:*)", "x='a[$(touch X)]'; echo $((x))", false},
		{"Bash(echo:*)", "for x in 'a[$(touch X)]'; do echo $((x)); done", false},
		{"Bash(echo:*)", "echo ${!x}", false},
		{"Bash(echo:*)", "echo ${x@P}", false},
		{"Bash(echo:*)", "echo $x ${y} \"$@\" *.go", true},
		// Compound commands and functions.
		{"Bash(echo:*)", "(echo a; touch X)", false},
		{"Bash(echo:*)", "(echo a)", true},
		{"Bash(echo:*)", "{ echo a; touch X; }", false},
		{"Bash(echo:*)", "if true; then echo a; fi", false},
		{"Bash(echo:*), Bash(true)", "if true; then echo a; fi", true},
		{"Bash(echo:*)", "for i in 1 2; do echo $i; done", true},
		{"Bash(echo:*)", "for i in $(touch X); do echo $i; done", false},
		{"Bash(echo:*)", "while echo a; do touch X; done", false},
		{"Bash(echo:*)", "case a in a) echo a ;& b) touch X ;; esac", false},
		{"Bash(echo:*)", "case a in a) echo a ;;& *) echo b ;; esac", true},
		{"Bash(echo:*)", "case $(touch X) in a) echo a;; esac", false},
		{"Bash(echo:*)", "echo() { touch X; }; echo a", false},
		{"Bash(echo:*)", "function f { touch X; }", false},
		{"Bash(echo:*)", "[[ -f a ]] && echo a", true},
		{"Bash(echo:*)", "[[ $(touch X) ]] && echo a", false},
		{"Bash(echo:*)", "[[ $x -eq 1 ]] && echo a", false},
		{"Bash(echo:*)", "coproc touch X", false},
		// Wrappers are commands of their own for an allow.
		{"Bash(echo:*)", `eval "touch X"`, false},
		{"Bash(echo:*)", `eval echo a`, false},
		{"Bash(echo:*)", `command touch X`, false},
		{"Bash(echo:*)", `exec touch X`, false},
		{"Bash(echo:*)", `bash -c 'echo a'`, false},
		{"Bash(echo:*)", `env echo a`, false},
		{"Bash(echo:*)", `echo a | xargs touch`, false},
		// Assignments, redirections, dynamic command names.
		{"Bash(echo:*)", "FOO=1 echo a", false},
		{"Bash(make)", "CC=evil make", false},
		{"Bash(FOO=1 make)", "FOO=1 make", true},
		{"Bash(echo:*)", "x=1; echo a", false},
		{"Bash(echo:*)", "echo hi > out", false},
		{"Bash(echo:*)", "echo hi >> ~/.bashrc", false},
		{"Bash(echo:*)", "echo hi &> out", false},
		{"Bash(echo:*)", "echo hi >| out", false},
		{"Bash(echo:*)", "echo hi >&out", false},
		{"Bash(echo:*)", "echo hi <> out", false},
		{"Bash(echo:*)", "echo hi > $f", false},
		{"Bash(echo:*)", "{ echo hi; } > out", false},
		{"Bash(echo:*)", "echo hi >/dev/null 2>&1", true},
		{"Bash(echo:*)", "echo hi >&2", true},
		{"Bash(echo:*)", "echo hi < in", true},
		{"Bash(echo hi >out)", "echo hi > out", true},
		{"Bash(echo hi >out)", "echo hi > other", false},
		{"Bash(echo:*)", "$E a", false},
		{"Bash(echo:*)", "ech? a", false},
		{"Bash(echo:*)", "{echo,touch} X", false},
		{"Bash(echo:*)", "~/echo a", false},
		{"Bash(echo:*)", "/bin/echo a", false},
		// Parse errors and empty lines ask.
		{"Bash(echo:*)", "echo 'a", false},
		{"Bash(echo:*)", "echo a )", false},
		{"Bash(echo:*)", "", false},
		{"Bash(echo:*)", "# only a comment", false},
		// Exact rules.
		{"Bash(npm test)", "npm test", true},
		{"Bash(npm test)", "npm  'test'", true},
		{"Bash(npm test)", "npm test --watch", false},
		{"Bash(npm test)", "npm test 2>&1", true},
		{"Bash(npm test)", "npm test $X", false},
		{"Bash", "echo 'a", true},
	}
	for _, tt := range tests {
		if got := bashVerdict(t, tt.allow, "", tt.cmd); got != tt.runs {
			t.Errorf("allow %s: %q runs without asking = %v, want %v", tt.allow, tt.cmd, got, tt.runs)
		}
	}
}

// TestDenyRuleCatchesWhatBashRuns holds a deny rule to every command bash
// could run, through wrappers and command strings, and fails closed where
// the parse cannot tell.
func TestDenyRuleCatchesWhatBashRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		deny string
		cmd  string
		runs bool
	}{
		{"Bash(touch:*)", `echo $'a\'b'; touch X`, false},
		{"Bash(touch:*)", "git status # note \\\ntouch X", false},
		{"Bash(touch:*)", `echo 'touch X'`, true},
		{"Bash(touch:*)", `echo touch`, true},
		{"Bash(rm:*)", "rm -rf build", false},
		{"Bash(rm:*)", "rmdir x", true},
		{"Bash(rm:*)", "FOO=1 rm x", false},
		{"Bash(rm:*)", "if rm x; then :; fi", false},
		{"Bash(rm:*)", "echo $(rm x)", false},
		{"Bash(rm:*)", "echo `rm x`", false},
		{"Bash(rm:*)", "echo ${1-<(rm x)}", false},
		{"Bash(rm:*)", ">&-rm x", false},
		{"Bash(rm:*)", "<&-rm x", false},
		{"Bash(rm:*)", "cat <(rm x)", false},
		{"Bash(rm:*)", "cat <<EOF\n$(rm x)\nEOF", false},
		{"Bash(rm:*)", "cat <<EOF\n\\\nEOF\nrm x\nEOF", false},
		{"Bash(rm:*)", "/bin/rm x", false},
		{"Bash(rm:*)", `\rm x`, false},
		{"Bash(rm:*)", `r""m x`, false},
		{"Bash(rm:*)", `$'\x72m' x`, false},
		{"Bash(rm:*)", `$'\162m' x`, false},
		{"Bash(rm:*)", "command rm x", false},
		{"Bash(rm:*)", "builtin rm x", false},
		{"Bash(rm:*)", "env rm x", false},
		{"Bash(rm:*)", "env -i FOO=1 rm x", false},
		{"Bash(rm:*)", "sudo -u root rm x", false},
		{"Bash(rm:*)", "exec rm x", false},
		{"Bash(rm:*)", "nohup rm x &", false},
		{"Bash(rm:*)", "timeout 5 rm x", false},
		{"Bash(rm:*)", "find . | xargs -0 rm", false},
		{"Bash(rm:*)", `find . -name '*.o' -exec rm {} \;`, false},
		{"Bash(rm:*)", `find . -name rm`, true},
		{"Bash(rm:*)", `eval "rm x"`, false},
		{"Bash(rm:*)", `eval rm x`, false},
		{"Bash(rm:*)", `sh -c 'rm x'`, false},
		{"Bash(rm:*)", `bash -lc "echo a; rm x"`, false},
		{"Bash(rm:*)", `bash -c 'bash -c "rm x"'`, false},
		{"Bash(rm:*)", `xargs -I{} sh -c 'rm {}'`, false},
		{"Bash(rm:*)", `bash -c "$CMD"`, false},
		{"Bash(rm:*)", `eval $x`, false},
		{"Bash(rm:*)", `$CMD x`, false},
		{"Bash(rm:*)", `{rm,x} y`, false},
		{"Bash(rm:*)", `/bin/r? x`, false},
		{"Bash(rm:*)", `echo 'a`, false},
		{"Bash(rm:*)", `f() { rm x; }; f`, false},
		{"Bash(rm:*)", `(cd /; rm x)`, false},
		{"Bash(rm:*)", `x='a[$(rm y)]'; echo $((x))`, false},
		{"Bash(rm:*)", `ls -la | grep go`, true},
		{"Bash(rm:*)", `declare -i x='a[$(rm y)]'`, false},
		{"Bash(rm:*)", `declare $o x='a[$(echo y)]'`, false},
		{"Bash(rm:*)", `export FOO=1; go test`, true},
		// Bounded work: every position after wrappers is looked at once,
		// and past a budget of command strings the line is undecidable.
		{"Bash(rm:*)", strings.Repeat("sudo ", 3000) + "ls", true},
		{"Bash(rm:*)", strings.Repeat("sudo ", 3000) + "rm x", false},
		{"Bash(rm:*)", strings.Repeat("eval ", 3000) + "ls", false},
		{"Bash(rm:*)", strings.Repeat("sudo bash -c ls; ", 100), false},
		{"Bash(rm:*)", `echo $HOME $((1+2))`, true},
		{"Bash(git push:*)", `git $SUB origin`, false},
		{"Bash(git push:*)", `git "push" origin`, false},
		{"Bash(git push:*)", `git pull origin`, true},
		{"Bash(rm -rf /)", `rm -rf /`, false},
		{"Bash(rm -rf /)", `rm -rf / $EMPTY`, false},
		{"Bash(rm -rf /)", `rm -rf /tmp/x`, true},
	}
	for _, tt := range tests {
		if got := bashVerdict(t, "Bash", tt.deny, tt.cmd); got != tt.runs {
			t.Errorf("deny %s: %q runs = %v, want %v", tt.deny, tt.cmd, got, tt.runs)
		}
	}
}

// A rule's own command is read with the same grammar: one simple
// command of literal words.
func TestBashRuleGrammar(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		`Bash(git commit -m "a b":*)`: `Bash(git commit -m "a b":*)`,
		`Bash(echo hi > out)`:         `Bash(echo hi > out)`,
		`Bash(FOO=1 make)`:            `Bash(FOO=1 make)`,
	} {
		if r, err := ParseRule(spec); err != nil || r.String() != want {
			t.Errorf("ParseRule(%q) = %q, %v", spec, r, err)
		}
	}
	for _, spec := range []string{
		"Bash(a; b)", "Bash(a && b:*)", "Bash($x:*)", "Bash(echo $(id))", "Bash(echo > out:*)",
		"Bash(FOO=1 make:*)", "Bash(echo 'a)", "Bash(ls *.go:*)",
	} {
		if r, err := ParseRule(spec); err == nil || !strings.Contains(err.Error(), "Bash") {
			t.Errorf("ParseRule(%q) = %q, %v; want an error about the Bash rule", spec, r, err)
		}
	}
}

// The REPL's "always" adds the rules Propose gives: for a command line
// hiding a second command, one rule per command, and none of them covers
// a line that hides another.
func TestAlwaysStaysWithinWhatWasAsked(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bash, _ := Lookup(Set(NewEnv(root)), NameBash)
	asker := &scriptedAsker{decision: AllowAlways}
	p := NewPermissions(PermissionsConfig{Root: root, Asker: asker})
	propose := func(cmd string) string {
		in, _ := json.Marshal(obj{"command": cmd})
		var s []string
		for _, r := range p.Propose(bash, in) {
			s = append(s, r.String())
		}
		return strings.Join(s, " ")
	}
	for cmd, want := range map[string]string{
		`echo $'it\'s'; touch X`:            "Bash(echo:*) Bash(touch:*)",
		"git status # note \\\ntouch X":     "",
		"git status\ntouch X":               "Bash(git status:*) Bash(touch:*)",
		`eval "touch X"`:                    `Bash(eval "touch X")`,
		"echo $(rm -rf build)":              "Bash(echo:*) Bash(rm -rf build)",
		"$CMD x":                            "",
		"FOO=1 make":                        "Bash(FOO=1 make)",
		"x=1":                               "",
		"LD_PRELOAD=/tmp/e.so ls > out.txt": "", // undecided: the loader runs the library
		"CC=gcc ls > out.txt":               "Bash(CC=gcc ls >out.txt)",
		`"/usr/bin/env" rm x`:               `Bash("/usr/bin/env" rm x)`,
		"cat <<EOF\n$(id)\nEOF":             "Bash(cat:*) Bash(id:*)",
	} {
		if got := propose(cmd); got != want {
			t.Errorf("propose %q = %q, want %q", cmd, got, want)
		}
	}
	check := func(cmd string) {
		t.Helper()
		in, _ := json.Marshal(obj{"command": cmd})
		if _, err := p.Check(context.Background(), bash, in); err != nil {
			t.Fatal(err)
		}
	}
	check(`echo $'it\'s'`)
	check(`echo $'a\'b'; touch X`)
	check(`echo hi > out`)
	check(`FOO=1 echo hi`)
	if asker.count() != 4 {
		t.Errorf("asked %d times, want 4: an always for echo covered a line that does more", asker.count())
	}
}

// The model is told why a line no rule can decide was denied.
func TestUndecidedLineSaysWhy(t *testing.T) {
	t.Parallel()
	bash, _ := Lookup(Set(NewEnv(t.TempDir())), NameBash)
	allow, _ := ParseRules("Bash(git status:*)")
	deny, _ := ParseRules("Bash(rm:*)")
	in, _ := json.Marshal(obj{"command": "git status # note \\\ntouch X"})
	for _, p := range []*Permissions{
		NewPermissions(PermissionsConfig{Allow: allow}),
		NewPermissions(PermissionsConfig{SkipAll: true, Deny: deny}),
	} {
		denied, _ := p.Check(context.Background(), bash, in)
		if !strings.Contains(denied, "a comment ends in a backslash") {
			t.Errorf("denial %q does not say why", denied)
		}
	}
}
