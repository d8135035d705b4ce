package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestSymlinkedSessionIsNotFollowed is the reported attack: a symbolic link
// named <uuid>.jsonl in a project's directory, pointing at a file outside
// CLAWDCODE_HOME. Resuming it must not append to the file it names; every
// sessions command skips or refuses it, saying why.
func TestSymlinkedSessionIsNotFollowed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	_, path := w.establish()
	target := filepath.Join(t.TempDir(), "precious.txt")
	const content = "not clawdcode's\n"
	if err := os.WriteFile(target, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	const id = "0badf00d-1111-4222-8333-444455556666"
	if err := os.Symlink(target, filepath.Join(filepath.Dir(path), id+".jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-r", id, "-p", "--dangerously-skip-permissions", "hello"},
		{"sessions", "show", id},
		{"sessions", "export", id},
		{"sessions", "rm", "--yes", id},
	} {
		r := w.Run(args...)
		if r.Code != 2 {
			t.Errorf("clawdcode %q: want exit 2\n%s", args, r)
		}
		oneErrorLine(t, r)
	}
	list := w.Run("sessions", "list")
	if list.Code != 0 || strings.Contains(list.Stdout, id[:8]) {
		t.Errorf("sessions list: want the symlink left out\n%s", list)
	}
	if !strings.Contains(list.Stderr, "symbolic link") {
		t.Errorf("sessions list: no warning about the symlink\n%s", list)
	}
	// -c scans the project more than once (without an index, twice to
	// list it); the warning is said once.
	os.Remove(filepath.Join(filepath.Dir(path), "index.json"))
	cont := w.Run("-c", "-p", "hello")
	if n := strings.Count(cont.Stderr, "symbolic link"); cont.Code != 0 || n != 1 {
		t.Errorf("-c: want exit 0 and the symlink warning once, got it %d times\n%s", n, cont)
	}
	if b, _ := os.ReadFile(target); string(b) != content {
		t.Errorf("the file behind the symlink changed:\n%s", b)
	}
}

// TestHomeIsAFile: CLAWDCODE_HOME naming a regular file is an error about
// CLAWDCODE_HOME, not about a file inside it.
func TestHomeIsAFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	file := filepath.Join(t.TempDir(), "home-file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.Home = file
	for _, args := range [][]string{{"-p", "hello"}, {"sessions", "list"}, {"-c", "-p", "hi"}} {
		r := w.Run(args...)
		if r.Code != 1 {
			t.Errorf("clawdcode %q: want exit 1\n%s", args, r)
		}
		line := oneErrorLine(t, r)
		if !strings.Contains(line, "CLAWDCODE_HOME") || !strings.Contains(line, "not a directory") || strings.Contains(line, ".project") {
			t.Errorf("clawdcode %q: the error does not say what is wrong with CLAWDCODE_HOME: %q", args, line)
		}
	}
}

// TestContinueRacingRemove: `-c` while `sessions rm` deletes sessions never
// fails with a raw path error: it continues a session that is still there,
// or, when none is left, says so in one line.
func TestContinueRacingRemove(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	const n = 6
	for i := range n {
		w.MustRun("-p", "session "+string(rune('a'+i)))
	}
	var ids []string
	for id := range w.sessionFiles() {
		ids = append(ids, id)
	}
	var wg sync.WaitGroup
	results := make(chan result, 2*n)
	for _, id := range ids {
		wg.Add(2)
		go func() { defer wg.Done(); results <- w.Run("sessions", "rm", "--yes", id) }()
		go func() { defer wg.Done(); results <- w.Run("-c", "-p", "next") }()
	}
	wg.Wait()
	close(results)
	for r := range results {
		if strings.Contains(r.Stderr, "no such file") || strings.Contains(r.Stderr, w.Home) {
			t.Errorf("a raw path error:\n%s", r)
		}
		if r.Code != 0 {
			oneErrorLine(t, r)
		}
	}
}
