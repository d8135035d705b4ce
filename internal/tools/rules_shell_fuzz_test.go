package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
		// What makes bash run a string it holds as data (issue 32).
		"trap 'touch X' EXIT; echo a", "shopt -s expand_aliases\nalias echo='touch X'\necho a", "source <(echo touch X)",
		"echo a | bash", "bash <<EOF\ntouch X\nEOF", "bash <<< 'touch X'", "env -S 'touch X'", "mapfile -C 'touch X' -c 1 <<< a",
		"BASH_ENV=<(echo touch X) bash -c echo", "printf -v 'a[$(touch X)]' %s 1; echo a", "declare 'a[$(touch X)]'=1",
		"echo {}; echo -I{}", "xargs -I{} {} X", "command eval 'touch X'", "hash -p /bin/touch echo; echo X",
		// Global options and command-line aliases.
		"git -c alias.x='!touch X' x", "git --no-pager -c alias.e='!echo' e", "echo $(git -C . log)",
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
	// Each piece of the run-a-string grammar and the global options, with
	// what it runs: `trap 'touch X' EXIT`, `echo touch X | bash`,
	// `git -c alias.x=push x`.
	for _, line := range [][]string{
		{"trap ", "'touch X'", " EXIT"}, {"echo", " ", "touch X", "|", "bash"}, {"env", " -S ", "'touch X'"},
		{"git", " -c ", "alias.x=", "push", " x"}, {"git", " --no-pager", " push"}, {"git", " -C . ", "push"},
		{"git", " -c ", "alias.x=", "'!touch X'", " x"}, {"bash", "<<<", "'touch X'"}, {"xargs", " -I{} ", "{}", " x"},
		{"shopt -s expand_aliases\n", "alias ", "x=", "'touch X'", "\n", "x"}, {"source ", "<(", "echo", " ", "touch X", ")"},
		{"mapfile -C ", "'touch X'", " -c 1", "<<<", "a"}, {"BASH_ENV=", "<(", "echo", " ", "touch X", ")", " ", "bash", " -c ", ":"},
	} {
		f.Add(piecesOf(f, line...))
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
	// The run-a-string grammar and global options (issue 32): appended,
	// so that the pieces above keep their numbers (and the corpus its
	// meaning).
	"trap ", "alias ", "source ", "bash", "sh", " -c ", " -s", "env", " -S ", "mapfile -C ", "BASH_ENV=", "<<<",
	"git", "alias.x=", " --no-pager", " -C . ", " x", "xargs", " -I{} ", "{}", "find . -exec ", " \\;",
	"shopt -s expand_aliases\n", "printf -v ", "a[", "]", "timeout 5 ", "nice ", "flock -n l ", "command ", "builtin ",
	"exec ", "'touch X'", "\"touch X\"", " push", "set -k ", "PROMPT_COMMAND=", "hash -p ", "readarray ", " -c 1",
	"x=", " EXIT", "-C", "--git-dir=.git ", "declare ", "coproc ", "env ", "stdbuf -oL ", "push", "'!touch X'",
}

// piecesOf is the input of FuzzBashAllowRuleTokens that builds a line of
// the given pieces.
func piecesOf(f *testing.F, pieces ...string) []byte {
	var b []byte
	for _, p := range pieces {
		i := slices.Index(shellPieces, p)
		if i < 0 || i > 255 {
			f.Fatalf("%q is not a piece", p)
		}
		b = append(b, byte(i))
	}
	return b
}

// echoRuleOracle checks one command line: if Bash(echo:*) allows it, the
// same rule as a deny rule must deny it, and bash must run nothing but
// echo; with deny, if Bash(touch:*) does not deny it, nothing may run
// touch, and if Bash(git push:*) does not deny it, git must not push —
// run with the programs that run others (bash, sh, env, xargs, git,
// find, timeout, nice, stdbuf, flock) really there (newDenyRun).
func echoRuleOracle(f *testing.F) func(t *testing.T, cmd string, deny bool) {
	rules := func(s string) []Rule {
		r, err := ParseRules(s)
		if err != nil {
			f.Fatal(err)
		}
		return r
	}
	bashRule := []Rule{{tool: NameBash}}
	allowEcho := NewPermissions(PermissionsConfig{Allow: rules("Bash(echo:*)")})
	denyEcho := NewPermissions(PermissionsConfig{Allow: bashRule, Deny: rules("Bash(echo:*)")})
	denyTouch := NewPermissions(PermissionsConfig{Allow: bashRule, Deny: rules("Bash(touch:*)")})
	denyPush := NewPermissions(PermissionsConfig{Allow: bashRule, Deny: rules("Bash(git push:*)")})
	bash, _ := Lookup(Set(NewEnv(f.TempDir())), NameBash)
	run := newTracedBash(f)
	runReal := newDenyRun(f)
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
		if !deny || runReal == nil {
			return
		}
		touchAllowed, pushAllowed := allowed(denyTouch, in), allowed(denyPush, in)
		if !touchAllowed && !pushAllowed {
			return
		}
		touched, pushed := runReal(t, cmd)
		if touchAllowed && touched {
			t.Errorf("Bash(touch:*) did not deny %q, and it ran touch", cmd)
		}
		if pushAllowed && pushed {
			t.Errorf("Bash(git push:*) did not deny %q, and git pushed", cmd)
		}
	}
}

// denyRunners are the programs that run other programs, which newDenyRun
// puts on PATH as they are.
var denyRunners = []string{"bash", "sh", "env", "xargs", "git", "find", "timeout", "nice", "stdbuf", "flock"}

// newDenyRun returns a function that runs a command line under bash as
// it is (its builtins too), with the real runners of denyRunners on PATH
// and touch a recorder: it reports whether anything ran touch and whether
// git ran push (GIT_TRACE). nil without bash or git. It runs in a
// temporary directory outside any repository, with a short time limit;
// the pieces it is fed name no file outside it (the recorder is the only
// touch, and nothing git can push to exists).
func newDenyRun(f *testing.F) func(t *testing.T, cmd string) (touched, pushed bool) {
	bin := filepath.Join(f.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		f.Fatal(err)
	}
	for _, name := range denyRunners {
		p, err := exec.LookPath(name)
		if err != nil {
			if name == "bash" || name == "git" {
				f.Logf("no %s: the deny oracle is off", name)
				return nil
			}
			continue
		}
		if err := os.Symlink(p, filepath.Join(bin, name)); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "touch"), []byte("#!/bin/sh\nprintf touch >> \"$RECORD_LOG\"\n"), 0o755); err != nil {
		f.Fatal(err)
	}
	bashPath := filepath.Join(bin, "bash")
	run := func(t testing.TB, work, cmd string) (touched, pushed bool) {
		record, trace := filepath.Join(work, ".record"), filepath.Join(work, ".trace")
		env := []string{"PATH=" + bin, "HOME=" + work, "RECORD_LOG=" + record, "GIT_TRACE=" + trace,
			"GIT_CEILING_DIRECTORIES=" + filepath.Dir(work), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"}
		if strings.Contains(cmd, "git") {
			// A repository (with nothing to push to), so that git gets as
			// far as running push, and the trace shows it.
			init := exec.Command(filepath.Join(bin, "git"), "init", "-q", work)
			init.Env = env[:3]
			if out, err := init.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, bashPath, "-c", cmd)
		c.Dir = work
		c.Env = env
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
		c.Stdout, c.Stderr = io.Discard, io.Discard
		c.WaitDelay = time.Second
		_ = c.Run()
		_, err := os.Stat(record)
		traced, _ := os.ReadFile(trace)
		return err == nil, gitPushed(string(traced))
	}
	// The oracle must see what it is there to see.
	work := f.TempDir()
	if touched, pushed := run(f, work, "env -S 'touch X'; git --no-pager push"); !touched || !pushed {
		f.Fatalf("the deny oracle saw touch %v, push %v; want both", touched, pushed)
	}
	return func(t *testing.T, cmd string) (bool, bool) { return run(t, t.TempDir(), cmd) }
}

// gitPushed reports whether a GIT_TRACE log shows git running push (not
// a command of another name that starts so: git pusheval).
func gitPushed(trace string) bool {
	return gitPushTrace.MatchString(trace)
}

var gitPushTrace = regexp.MustCompile(`(?m)(git[ -]push|=> push)('|\s|$)`)

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
