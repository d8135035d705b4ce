package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitLimit bounds the tests' waits for an event: a safety net against a
// hang, far beyond what a loaded 2-core machine needs.
const waitLimit = time.Minute

// waitFile waits for path to hold a whole line and returns it.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			return strings.TrimSpace(string(b))
		}
	}
	t.Fatalf("%s was never written", path)
	return ""
}

// bashOutputUntil reads bash_id until its answer contains want.
func bashOutputUntil(t *testing.T, env *Env, id, want string) string {
	t.Helper()
	var all strings.Builder
	for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		r := call(t, env, NameBashOutput, obj{"bash_id": id})
		wantOK(t, r)
		all.WriteString(r.Output + "\n")
		if strings.Contains(r.Output, want) {
			return all.String()
		}
	}
	t.Fatalf("BashOutput never answered %q:\n%s", want, clip(all.String()))
	return ""
}

func TestBackgroundCommandReadAndKilled(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	env := NewEnv(root)
	r := call(t, env, NameBash, obj{"command": "echo $$ > pgid; echo started; echo to-stderr >&2; sleep 30; echo done", "run_in_background": true})
	wantOK(t, r)
	if !strings.Contains(r.Output, "bash_1") || !strings.Contains(r.Output, "BashOutput") {
		t.Fatalf("the start answer does not name the id and how to read it: %q", r.Output)
	}
	pgid, _ := strconv.Atoi(waitFile(t, filepath.Join(root, "pgid")))
	out := bashOutputUntil(t, env, "bash_1", "to-stderr")
	if !strings.Contains(out, "started\n") || !strings.Contains(out, "bash_1: running") {
		t.Fatalf("BashOutput:\n%s", out)
	}
	// What was read is not answered again.
	again := call(t, env, NameBashOutput, obj{"bash_id": "bash_1"})
	if strings.Contains(again.Output, "started") || !strings.Contains(again.Output, "(no new output)") {
		t.Fatalf("second read repeats or misses: %q", again.Output)
	}
	if got := env.Shells(); len(got) != 1 || !got[0].Running || got[0].Bytes == 0 {
		t.Fatalf("Shells() = %+v", got)
	}

	k := call(t, env, NameKillShell, obj{"shell_id": "bash_1"})
	wantOK(t, k)
	if !strings.Contains(k.Output, "bash_1 killed") {
		t.Fatalf("KillShell: %q", k.Output)
	}
	if !processGone(t, pgid) {
		t.Fatalf("the command's shell %d survived KillShell", pgid)
	}
	end := call(t, env, NameBashOutput, obj{"bash_id": "bash_1"})
	if !strings.Contains(end.Output, "ended (killed)") || strings.Contains(end.Output, "done") {
		t.Fatalf("after KillShell: %q", end.Output)
	}
	if got := env.Shells(); got[0].Running || got[0].Status != "killed" {
		t.Fatalf("Shells() after the kill = %+v", got)
	}
}

func TestBackgroundCommandExitStatus(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	wantOK(t, call(t, env, NameBash, obj{"command": "echo one", "run_in_background": true}))
	wantOK(t, call(t, env, NameBash, obj{"command": "echo two; exit 3", "run_in_background": "true"}))
	bashOutputUntil(t, env, "bash_1", "ended (exit status 0)")
	out := bashOutputUntil(t, env, "bash_2", "ended (exit status 3)")
	if !strings.Contains(out, "two") {
		t.Fatalf("bash_2's output lost: %q", out)
	}
	wantError(t, call(t, env, NameBashOutput, obj{"bash_id": "bash_9"}), `"bash_9"`, "bash_1, bash_2")
	wantError(t, call(t, env, NameKillShell, obj{"shell_id": "nope"}), `"nope"`)
	wantError(t, call(t, NewEnv(t.TempDir()), NameBashOutput, obj{"bash_id": "bash_1"}), "none was started in this run")
}

func TestStopBackgroundKillsEveryGroup(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	env := NewEnv(root)
	var pids []int
	for i := range 3 {
		// The second ignores SIGTERM: the grace ends in SIGKILL. The third
		// has exited, leaving a child in its group.
		cmd := fmt.Sprintf("sleep 30 & echo $! > child%d; sleep 30", i)
		switch i {
		case 1:
			cmd = fmt.Sprintf("trap '' TERM; sleep 30 & echo $! > child%d; wait", i)
		case 2:
			cmd = fmt.Sprintf("sleep 30 > /dev/null 2>&1 & echo $! > child%d", i)
		}
		wantOK(t, call(t, env, NameBash, obj{"command": cmd, "run_in_background": true}))
		pid, _ := strconv.Atoi(waitFile(t, filepath.Join(root, fmt.Sprintf("child%d", i))))
		pids = append(pids, pid)
	}
	env.StopBackground()
	for _, pid := range pids {
		if !processGone(t, pid) {
			t.Errorf("child %d outlived StopBackground", pid)
		}
	}
	wantError(t, call(t, env, NameBash, obj{"command": "true", "run_in_background": true}), "session is ending")
}

func TestBackgroundOutputBounded(t *testing.T) {
	t.Parallel()
	r := newOutputRing(100)
	fmt.Fprint(r, "old line\n")
	if got := r.unread(); got != "old line\n" {
		t.Fatalf("unread = %q", got)
	}
	// 300 bytes written, 100 kept: the 200 before are dropped unread.
	for i := range 30 {
		fmt.Fprintf(r, "line %03d\n", i) // 9 bytes each: 270
	}
	fmt.Fprint(r, strings.Repeat("x", 29)+"\n")
	got := r.unread()
	if !strings.HasPrefix(got, "[... 200 bytes (") || !strings.Contains(got, "omitted ...]\n") {
		t.Fatalf("no omission marker: %q", got)
	}
	if !strings.HasSuffix(got, strings.Repeat("x", 29)+"\n") || strings.Contains(got, "line 000") {
		t.Fatalf("the last bytes are not what is kept: %q", got)
	}
	body := got[strings.Index(got, "]\n")+2:]
	if len(body) != 100 {
		t.Fatalf("kept %d bytes, want 100: %q", len(body), body)
	}
	// The marker counts the lines dropped: 200 bytes from "line 000" on.
	if want := fmt.Sprintf("(%d lines)", strings.Count(strings.Repeat("line 000\n", 30)[:200], "\n")); !strings.Contains(got, want) {
		t.Fatalf("marker %q, want %s", got[:strings.Index(got, "\n")], want)
	}
	if r.unread() != "" || r.Len() != 9+300 {
		t.Fatalf("Len %d", r.Len())
	}
}

func TestBackgroundOutputBoundedThroughTheTool(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	// Twice the bound, then a last line.
	cmd := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' 'a'; echo; echo last-line", 2*BackgroundOutputCap)
	wantOK(t, call(t, env, NameBash, obj{"command": cmd, "run_in_background": true}))
	var reads []string
	for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		r := call(t, env, NameBashOutput, obj{"bash_id": "bash_1"})
		if len(r.Output) > OutputCap+200 {
			t.Fatalf("one read answered %d bytes", len(r.Output))
		}
		reads = append(reads, r.Output)
		if strings.Contains(r.Output, "ended") {
			break
		}
	}
	out := strings.Join(reads, "\n")
	if !strings.Contains(out, "omitted ...]") || !strings.Contains(out, "\nlast-line\n") {
		t.Fatalf("no marker or no last line: %s", clip(out))
	}
}

// A background Bash call is the same call to the permission rules: its
// command decides, run_in_background changes nothing.
func TestBackgroundBashPermissionsAsForeground(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bash, _ := Lookup(Set(NewEnv(root)), NameBash)
	allow, _ := ParseRules("Bash(npm test:*)")
	deny, _ := ParseRules("Bash(rm:*)")
	p := NewPermissions(PermissionsConfig{Root: root, Allow: allow, Deny: deny})
	for _, cmd := range []string{"npm test", "npm test && rm -rf x", "npm run dev", "rm x"} {
		var denials [2]string
		for i, bg := range []bool{false, true} {
			in, _ := json.Marshal(obj{"command": cmd, "run_in_background": bg})
			d, err := p.Check(context.Background(), bash, in)
			if err != nil {
				t.Fatal(err)
			}
			denials[i] = d
		}
		if denials[0] != denials[1] {
			t.Errorf("%q: foreground %q, background %q", cmd, denials[0], denials[1])
		}
		if (denials[0] == "") != (cmd == "npm test") {
			t.Errorf("%q: denial %q", cmd, denials[0])
		}
	}
}
