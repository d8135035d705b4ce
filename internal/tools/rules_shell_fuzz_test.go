package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// FuzzBashAllowRule compares the matcher's verdict with what bash runs:
// whenever Bash(echo:*) allows a command line, the line is run by the real
// bash and every command bash looks up is recorded; anything but echo means
// the rule allowed what it does not name. (The seeds run as a unit test in
// every go test; scripts/fuzz.sh and make fuzz-short fuzz it.)
//
// The run cannot do anything real: every builtin is disabled (enable -n,
// so echo too is looked up by name), PATH is an empty directory, and
// command_not_found_handle — bash's hook for a name it cannot find —
// records the name and fails. noclobber guards existing files in case
// the matcher wrongly allowed a redirection. It runs in a temporary
// directory with a short time limit.
func FuzzBashAllowRule(f *testing.F) {
	for _, seed := range []string{
		`echo $'it\'s'; touch X`, "git status # note \\\ntouch X", `echo "a; b"`, "echo a\\\n; touch X",
		"echo $(touch X)", "echo `touch X`", "echo <(touch X)", "cat <<EOF\n$(touch X)\nEOF",
		"(echo a; touch X)", "{ echo a; } > out", "case a in a) echo a ;& b) touch X ;; esac",
		"echo() { touch X; }; echo a", "echo a |& touch X", `eval "touch X"`, "echo ${x:-$(touch X)}",
		"echo $((1+2))", "echo 'a' \"b\" c\\ d", "echo a && echo b || echo c &", "e\\\ncho a",
		"for i in 1 2; do echo $i; done", "echo $'\\x41'", "echo {a,b}", "{echo,touch} X",
		// Here-documents, where a parser and bash could disagree on where
		// the body ends.
		"echo <<'EOF'\nEOF \ntouch X\nEOF", "echo <<EOF\n\\\nEOF\ntouch X\nEOF", "echo <<-EOF\n\tEOF\ntouch X\nEOF",
		"echo <<E\\OF\n$(touch X)\nEOF\nE\\OF", "echo $(echo <<'EOF'\n)\nEOF\n)", "echo <<EOF; echo a\nb\nEOF",
		"echo `echo <<EOF\na\nEOF`\ntouch X", "echo <<EOF\n$(\ntouch X\n)\nEOF", "echo <<'EOF'\n\\\nEOF\ntouch X\nEOF",
	} {
		f.Add(seed)
	}
	check := echoRuleOracle(f)
	f.Fuzz(func(t *testing.T, cmd string) { check(t, cmd, false) })
}

// FuzzBashAllowRuleTokens is FuzzBashAllowRule over command lines made of
// shell's own pieces — each input byte picks one — so that quoting,
// comments, continuations, here-documents and substitutions meet far more
// often than in mutated bytes. It also holds a deny rule to bash: when
// Bash(touch:*) does not deny a line, bash must not run touch. (Only here:
// the pieces name no file outside the temporary directory, so a line run
// because it was not denied cannot write anywhere else.)
func FuzzBashAllowRuleTokens(f *testing.F) {
	for _, seed := range []string{"\x00\x01\x02", "\x00\x01\x10\x05\x03\x04", "\x00\x13\x14\x05\x15\x03\x04\x05\x14"} {
		f.Add([]byte(seed))
	}
	check := echoRuleOracle(f)
	f.Fuzz(func(t *testing.T, picks []byte) {
		var b strings.Builder
		for _, p := range picks {
			b.WriteString(shellPieces[int(p)%len(shellPieces)])
		}
		check(t, b.String(), true)
	})
}

// shellPieces are what FuzzBashAllowRuleTokens builds command lines of.
var shellPieces = []string{
	"echo", " ", "a", "\n", "touch X", ";", "'", "\"", "$'", "\\", "#", "\\\n", "$(", ")", "`", "EOF",
	"<<", "<<-", "\t", "<<'EOF'", "&", "|", "{", "}", "(", "$", "=", "*", ">", "<", "!", "[[", "]]",
	"case", "in", "esac", ";;", ";&", "if", "then", "fi", "for", "do", "done", "x", "-", "$((", "))",
	"${", "<(", ">&", "2", "\\'", "\\\"", "function", "()", "eval", "/dev/null", ":", "`echo`",
}

// echoRuleOracle checks one command line: if Bash(echo:*) allows it, the
// same rule as a deny rule must deny it, and bash must run nothing but
// echo; with deny, if Bash(touch:*) does not deny it, bash must not run
// touch.
func echoRuleOracle(f *testing.F) func(t *testing.T, cmd string, deny bool) {
	echo, err := ParseRules("Bash(echo:*)")
	if err != nil {
		f.Fatal(err)
	}
	touch, err := ParseRules("Bash(touch:*)")
	if err != nil {
		f.Fatal(err)
	}
	bashRule := []Rule{{tool: NameBash}}
	allowEcho := NewPermissions(PermissionsConfig{Allow: echo})
	denyEcho := NewPermissions(PermissionsConfig{Allow: bashRule, Deny: echo})
	denyTouch := NewPermissions(PermissionsConfig{Allow: bashRule, Deny: touch})
	bash, _ := Lookup(Set(NewEnv(f.TempDir())), NameBash)
	run := newTracedBash(f)
	allowed := func(p *Permissions, in json.RawMessage) bool {
		denied, _ := p.Check(context.Background(), bash, in)
		return denied == ""
	}
	return func(t *testing.T, cmd string, deny bool) {
		if len(cmd) > 512 || strings.ContainsRune(cmd, 0) {
			return
		}
		in, _ := json.Marshal(obj{"command": cmd})
		if allowed(allowEcho, in) {
			if allowed(denyEcho, in) {
				t.Errorf("Bash(echo:*) allows %q as an allow rule but does not deny it as a deny rule", cmd)
			}
			if run == nil {
				return
			}
			if ran := run(t, cmd); slices.ContainsFunc(ran, func(n string) bool { return n != "echo" }) {
				t.Errorf("Bash(echo:*) allowed %q, and bash ran %q", cmd, ran)
			}
		}
		if deny && run != nil && allowed(denyTouch, in) {
			if ran := run(t, cmd); slices.Contains(ran, "touch") {
				t.Errorf("Bash(touch:*) did not deny %q, and bash ran %q", cmd, ran)
			}
		}
	}
}

// newTracedBash returns a function that runs a command line under bash
// with every command traced, and returns the names bash looked up, in
// order; nil without bash.
func newTracedBash(f *testing.F) func(t *testing.T, cmd string) []string {
	bashPath, err := exec.LookPath("bash")
	if err != nil {
		f.Log("no bash: the fuzz target checks the matcher alone")
		return nil
	}
	dir := f.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		f.Fatal(err)
	}
	recorder := filepath.Join(dir, "record")
	if err := os.WriteFile(recorder, []byte("#!/bin/sh\nprintf '%s\\0' \"$1\" >> \"$RECORD_LOG\"\nexit 127\n"), 0o755); err != nil {
		f.Fatal(err)
	}
	out, err := exec.Command(bashPath, "-c", "compgen -b").Output()
	if err != nil {
		f.Fatal(err)
	}
	// The hook cannot use return or any builtin: all are disabled.
	prelude := fmt.Sprintf("command_not_found_handle() { %s \"$1\"; }\nset -o noclobber\nenable -n %s\n",
		recorder, strings.Join(strings.Fields(string(out)), " "))
	bashEnv := filepath.Join(dir, "prelude.sh")
	if err := os.WriteFile(bashEnv, []byte(prelude), 0o644); err != nil {
		f.Fatal(err)
	}
	run := func(work, cmd string) []string {
		log := filepath.Join(work, ".record")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, bashPath, "-c", cmd)
		c.Dir = work
		c.Env = []string{"PATH=" + empty, "BASH_ENV=" + bashEnv, "RECORD_LOG=" + log}
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
		// Output through a pipe: Wait then waits for background jobs too,
		// which hold it open until they end.
		c.Stdout, c.Stderr = io.Discard, io.Discard
		c.WaitDelay = time.Second
		_ = c.Run() // a failing command is fine; what it ran is the question
		data, err := os.ReadFile(log)
		if err != nil {
			return nil // nothing was looked up
		}
		var ran []string
		for name := range strings.SplitSeq(strings.TrimSuffix(string(data), "\x00"), "\x00") {
			ran = append(ran, name) // NUL-separated: a name may hold a newline
		}
		return ran
	}
	// The oracle must see what it is there to see.
	if ran := run(f.TempDir(), "echo a; touch X; eval 'ls'"); strings.Join(ran, " ") != "echo touch eval" {
		f.Fatalf("the traced bash saw %q, want touch and eval", ran)
	}
	return func(t *testing.T, cmd string) []string { return run(t.TempDir(), cmd) }
}
