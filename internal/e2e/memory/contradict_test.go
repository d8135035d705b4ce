package memory

import (
	"strings"
	"testing"
)

// TestTypedMemoryRetiresTheAcceptedOneItContradicts (issue 36, item 4): a
// memory typed with /memory add that states the test command retires the
// accepted suggestion that stated another one, and the next session is
// given the newer only; accepting a newer suggestion retires the typed
// one in turn.
func TestTypedMemoryRetiresTheAcceptedOneItContradicts(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.writeFile("Makefile", "test:\n\t@echo all tests pass\ncheck:\n\t@echo all checks pass\n")
	w.MustRun("-p", "bash make test", "--allowed-tools", "Bash")
	if out := w.MustRun("-p", "/memory accept 1").Stdout; !strings.Contains(out, "Remembered (project): Run the tests with `make test`") {
		t.Fatalf("/memory accept 1: %q", out)
	}

	out := w.MustRun("-p", "/memory add Run the tests with `make check`, not make test").Stdout
	if !strings.Contains(out, "Retired, replaced by it: Run the tests with `make test`") {
		t.Fatalf("the typed test command did not retire the accepted one:\n%s", out)
	}
	list := w.MustRun("-p", "/memory").Stdout
	if !strings.Contains(list, "Retired (not given to the model):\n-  Run the tests with `make test`\n   (replaced by a newer test-command memory)") {
		t.Fatalf("/memory does not show the accepted memory retired:\n%s", list)
	}
	w.MustRun("-p", "hello")
	sys := w.systemOfLast()
	if !strings.Contains(sys, "Run the tests with `make check`") || strings.Contains(sys, "Run the tests with `make test`") {
		t.Fatalf("the next session is not given the newer test command only:\n%s", sys)
	}

	w.MustRun("-p", "bash make check", "--allowed-tools", "Bash")
	out = w.MustRun("-p", "/memory accept 1").Stdout
	if !strings.Contains(out, "Retired, replaced by it: Run the tests with `make check`, not make test") {
		t.Fatalf("an accepted test command did not retire the typed one:\n%s", out)
	}
}

// TestExportedMemoryReachesTheModelOnce (issue 36, item 4): after
// /memory export, a memory is in AGENTS.md, which the system prompt
// gives; the memories' section does not give it a second time.
func TestExportedMemoryReachesTheModelOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.writeFile("AGENTS.md", "# Team rules\n\nBe kind.\n")
	w.MustRun("-p", "/memory add EXPORTED-MEMORY: keep functions short")
	w.MustRun("-p", "/memory export")
	if !strings.Contains(w.readFile("AGENTS.md"), "- EXPORTED-MEMORY: keep functions short") {
		t.Fatalf("AGENTS.md after export:\n%s", w.readFile("AGENTS.md"))
	}
	w.MustRun("-p", "/memory add LATER-MEMORY: not exported")
	w.MustRun("-p", "hello")
	sys := w.systemOfLast()
	if n := strings.Count(sys, "EXPORTED-MEMORY"); n != 1 {
		t.Fatalf("the exported memory reaches the model %d times:\n%s", n, sys)
	}
	if !strings.Contains(sys, "- [project, typed by the user] LATER-MEMORY: not exported") {
		t.Fatalf("the memory not exported is not given:\n%s", sys)
	}
}
