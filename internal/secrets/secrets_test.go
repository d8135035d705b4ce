package secrets

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestIsSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "anthropic_api_key": true, "GITHUB_TOKEN": true, "HF_TOKEN": true,
		"AWS_SECRET_ACCESS_KEY": true, "PGPASSWORD": true, "SMTP_PASSWD": true, "MAPBOXAPIKEY": true,
		"OPENAI_API_KEY_FILE": false, "HOME": false, "PATH": false, "GIT_AUTHOR_NAME": false,
		"SSH_AUTH_SOCK": false, "OPENAI_BASE_URL": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRedactor(t *testing.T) {
	t.Parallel()
	r := FromEnviron([]string{"OPENAI_API_KEY=sk-live-abc<def>\"123", "HOME=/home/someone", "SHORT_TOKEN=abc"}, nil, "sk-extra-0123456789")
	in := `{"output":"key sk-live-abc\u003cdef\u003e\"123 and sk-live-abc<def>\"123 and sk-extra-0123456789 at /home/someone, abc"}`
	got := string(r.Redact([]byte(in)))
	for _, leak := range []string{"sk-live", "sk-extra"} {
		if strings.Contains(got, leak) {
			t.Errorf("Redact left %q in %s", leak, got)
		}
	}
	if strings.Count(got, Redacted) != 3 || !strings.Contains(got, "/home/someone, abc") {
		t.Errorf("Redact = %s", got)
	}
	plain := []byte("nothing secret here")
	if out := r.Redact(plain); &out[0] != &plain[0] {
		t.Error("Redact copied text without a secret")
	}
	var none *Redactor
	if string(none.Redact(plain)) != string(plain) || !none.Empty() {
		t.Error("a nil Redactor changed text")
	}
}

// TestProtectHidesEnvironFromChildren: issue 13 item 1. A Bash child read
// the API key from its parent's environment (tr '\0' '\n' <
// /proc/$PPID/environ). After Protect the process's /proc environment no
// longer holds it — for root too, who reads any process's memory — while
// the process itself still finds it with os.Getenv. The test runs in a
// child copy of the test binary, so this one stays as it was.
func TestProtectHidesEnvironFromChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/environ is Linux's")
	}
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
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestProtectHidesEnvironFromChildren$", "-test.v")
	cmd.Env = append(os.Environ(), "PROTECT_TEST_CHILD=1", "OPENAI_API_KEY="+key, "GITHUB_TOKEN=ghp_protect_test_0123")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("%v\n%s", err, out)
	}
}
