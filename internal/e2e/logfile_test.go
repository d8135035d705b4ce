package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The diagnostic log says what happened (a request, a retry) with sizes
// and statuses, and never what was said nor the key.
func TestLogRecordsRequestsWithoutBodiesOrKey(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.Enqueue(llmtest.ServerError(), llmtest.Text("the PRIVATE-ANSWER-42"))
	r := w.MustRun("-p", "tell me the PRIVATE-PROMPT-17")
	if strings.Contains(r.Stderr, "llm request") {
		t.Fatalf("the log reached the terminal:\n%s", r)
	}
	data, err := os.ReadFile(filepath.Join(w.Home, "logs", "clawdcode.log"))
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	for _, want := range []string{`"msg":"llm request failed"`, `"msg":"llm retry"`, `"msg":"llm request"`, `"status":500`, `"prompt_tokens":`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	for _, secret := range []string{w.Key, "PRIVATE-PROMPT-17", "PRIVATE-ANSWER-42"} {
		if strings.Contains(log, secret) {
			t.Errorf("log holds %q:\n%s", secret, log)
		}
	}

	w.ExtraEnv = []string{"CLAWDCODE_LOG=off"}
	if err := os.RemoveAll(filepath.Join(w.Home, "logs")); err != nil {
		t.Fatal(err)
	}
	w.Server.Enqueue(llmtest.Text("quiet"))
	w.MustRun("-p", "again")
	if _, err := os.Stat(filepath.Join(w.Home, "logs")); !os.IsNotExist(err) {
		t.Fatalf("CLAWDCODE_LOG=off still wrote a log: %v", err)
	}
}
