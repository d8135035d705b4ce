package secrets

import (
	"strings"
	"testing"
)

func TestIsSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "anthropic_api_key": true, "GITHUB_TOKEN": true, "HF_TOKEN": true,
		"AWS_SECRET_ACCESS_KEY": true, "PGPASSWORD": true, "SMTP_PASSWD": true, "MAPBOXAPIKEY": true,
		"OPENAI_API_KEY_FILE": false, "HOME": false, "PATH": false, "GIT_AUTHOR_NAME": false,
		"SSH_AUTH_SOCK": false, "OPENAI_BASE_URL": false, "CLAWDCODE_SYNC_KEY": true,
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

func TestWriterRedactsASecretSplitAcrossWrites(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	w := NewRedactor("sk-split-secret-123").Writer(&out)
	for _, p := range []string{"error: key sk-split-", "secret-123 rejected\nnext line sk-spl", "it-secret-123"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "error: key [REDACTED] rejected\nnext line [REDACTED]"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
