package secrets

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProtectHidesEnvironFromChildren: issue 13 item 1. A Bash child read
// the API key from its parent's environment (tr '\0' '\n' <
// /proc/$PPID/environ). After Protect the process's /proc environment no
// longer holds it — for root too, who reads any process's memory — while
// the process itself still finds it with os.Getenv. The test runs in a
// child copy of the test binary, so this one stays as it was.
func TestProtectHidesEnvironFromChildren(t *testing.T) {
	const key = "sk-protect-test-key-0123456789"
	if os.Getenv("PROTECT_TEST_CHILD") == "1" {
		if err := Protect(); err != nil {
			t.Fatal(err)
		}
		if got := os.Getenv("OPENAI_API_KEY"); got != key {
			t.Fatalf("after Protect OPENAI_API_KEY = %q, want the key", got)
		}
		own, err := os.ReadFile("/proc/self/environ")
		if err != nil || strings.Contains(string(own), key) || !strings.Contains(string(own), "PROTECT_TEST_CHILD=1") {
			t.Fatalf("/proc/self/environ = %q, %v: want the environment without the key", own, err)
		}
		out, err := exec.Command("sh", "-c", `tr '\0' '\n' < /proc/$PPID/environ; cat /proc/$PPID/cmdline`).CombinedOutput()
		if strings.Contains(string(out), key) {
			t.Fatalf("a child read the key from its parent: %s (%v)", out, err)
		}
		if os.Geteuid() != 0 && !strings.Contains(string(out), "ermission denied") {
			t.Fatalf("the process is still dumpable: a child read %s (%v)", out, err)
		}
		// A variable named later (a configured api_key_env) goes too, and
		// the process stays non-dumpable.
		if err := Hide("LLM_CREDENTIAL"); err != nil {
			t.Fatal(err)
		}
		own, _ = os.ReadFile("/proc/self/environ")
		if strings.Contains(string(own), "llm-credential-value") || os.Getenv("LLM_CREDENTIAL") != "llm-credential-value" {
			t.Fatalf("after Hide: /proc/self/environ %q, Getenv %q", own, os.Getenv("LLM_CREDENTIAL"))
		}
		if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
			t.Fatalf("dumpable = %d, %v after Hide", d, err)
		}
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestProtectHidesEnvironFromChildren$", "-test.v")
	cmd.Env = append(os.Environ(), "PROTECT_TEST_CHILD=1", "OPENAI_API_KEY="+key, "GITHUB_TOKEN=ghp_protect_test_0123",
		"LLM_CREDENTIAL=llm-credential-value")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("%v\n%s", err, out)
	}
}
