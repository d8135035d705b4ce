package acp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// tsSDKVersion is the @agentclientprotocol/sdk `make acp-sdk` installs.
const tsSDKVersion = "2.4.0"

// tsSDK is the installed official TypeScript SDK's directory, or the test
// is skipped saying how to get it (failed under CI: fixtures.Missing).
func tsSDK(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		fixtures.Missing(t, "the TypeScript client test needs node and `make acp-sdk`: node is not on PATH")
	}
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "..", "..", "..", ".cache", "acp", "node_modules", "@agentclientprotocol", "sdk")
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	var pkg struct{ Version string }
	if err != nil || json.Unmarshal(data, &pkg) != nil || pkg.Version != tsSDKVersion {
		fixtures.Missing(t, "the TypeScript client test needs @agentclientprotocol/sdk@%s: run `make acp-sdk` (not found at %s)", tsSDKVersion, dir)
	}
	return node, dir
}

// The official TypeScript SDK, as editors use it, drives the binary
// through an editor's session (testdata/client.mjs): initialize, a new
// session, a prompt streaming chunks before it ends, a Write allowed once,
// one rejected, a cancel mid-stream then a prompt that works, session/load
// of a session made by -p, set_mode plan refusing a Write; then -c
// continues the session made over ACP. The JSON-RPC lines both ways are
// kept in the transcript (logged on failure; ACP_TRANSCRIPT_OUT keeps a
// copy).
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	node, sdk := tsSDK(t)
	w := harness.NewWorld(t, llmtest.Options{})

	w.Server.Enqueue(llmtest.Text("Noted: the deploy is on Friday."))
	var printed harness.ResultObject
	w.RunJSON(&printed, "-p", "the deploy is on Friday")

	hold := make(chan struct{})
	defer close(hold)
	w.Server.Enqueue(
		llmtest.Reply{Text: "Hello from clawdcode, streamed to the editor in pieces.", Reasoning: "A greeting; answer it."},
		llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"allowed.txt","content":"yes\n"}`)), llmtest.Text("Wrote allowed.txt."),
		llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"rejected.txt","content":"no\n"}`)), llmtest.Text("Understood, not writing it."),
		llmtest.Reply{Text: "Once upon a time, in a repository far away, there lived a very long story.", PauseAfter: 4, Resume: hold},
		llmtest.Text("Still here."),
		llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"planned.txt","content":"x"}`)),
		llmtest.ToolCalls(llmtest.Call("ExitPlanMode", `{"plan":"1. Write planned.txt."}`)),
	)
	transcript := filepath.Join(w.Root, "transcript.txt")
	cmd := exec.Command(node, filepath.Join("testdata", "client.mjs"))
	cmd.Env = append(w.Env(), "ACP_SDK="+sdk, "CLAWDCODE_BIN="+w.Binary, "PROJECT="+w.Project,
		"PRINT_SESSION="+printed.SessionID, "TRANSCRIPT="+transcript)
	out, err := cmd.Output()
	wire, _ := os.ReadFile(transcript)
	if keep := os.Getenv("ACP_TRANSCRIPT_OUT"); keep != "" {
		_ = os.WriteFile(keep, wire, 0o644)
	}
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("the TypeScript client failed: %v\n%s\n--- transcript\n%s", err, stderr, wire)
	}
	var seen struct {
		SessionID                       string
		Hello, Thought, AfterCancel     string
		Usage                           bool
		AllowedWritten, RejectedWritten bool
		RejectedShownFailed             bool
		ReplayedUser, ReplayedAgent     string
		PlannedWritten, PlanQuestion    bool
		ExitCode                        int
		StdoutLinesAllJSONRPC           bool `json:"stdoutLinesAllJSONRPC"`
	}
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("the client printed %q: %v", out, err)
	}
	switch {
	case seen.Hello != "Hello from clawdcode, streamed to the editor in pieces." || seen.Thought != "A greeting; answer it." || !seen.Usage:
		t.Errorf("the first prompt streamed %q, thought %q, usage %v", seen.Hello, seen.Thought, seen.Usage)
	case !seen.AllowedWritten || seen.RejectedWritten || !seen.RejectedShownFailed:
		t.Errorf("allowed written %v, rejected written %v (shown failed %v)", seen.AllowedWritten, seen.RejectedWritten, seen.RejectedShownFailed)
	case !strings.HasPrefix(seen.AfterCancel, "Once upon") || !strings.HasSuffix(seen.AfterCancel, "Still here."):
		t.Errorf("around the cancel the editor saw %q", seen.AfterCancel)
	case seen.ReplayedUser != "the deploy is on Friday" || seen.ReplayedAgent != "Noted: the deploy is on Friday.":
		t.Errorf("the -p session replayed user %q, agent %q", seen.ReplayedUser, seen.ReplayedAgent)
	case seen.PlannedWritten || !seen.PlanQuestion:
		t.Errorf("plan mode: written %v, approval asked %v", seen.PlannedWritten, seen.PlanQuestion)
	case seen.ExitCode != 0 || !seen.StdoutLinesAllJSONRPC:
		t.Errorf("clawdcode acp exited %d; stdout only JSON-RPC: %v", seen.ExitCode, seen.StdoutLinesAllJSONRPC)
	}
	for _, name := range []string{"allowed.txt", "rejected.txt"} {
		_, err := os.Stat(filepath.Join(w.Project, name))
		if (err == nil) != (name == "allowed.txt") {
			t.Errorf("%s exists: %v", name, err == nil)
		}
	}
	msgs := w.Server.Requests()[5].Messages // the model's call after the rejection
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, "The user denied permission for Write(rejected.txt)") {
		t.Errorf("after the rejection the model read %q", last.Content)
	}

	w.Server.Enqueue(llmtest.Text("Continued in the terminal."))
	var cont harness.ResultObject
	w.RunJSON(&cont, "-c", "-p", "and now from the terminal")
	if cont.SessionID != seen.SessionID || cont.Result != "Continued in the terminal." {
		t.Fatalf("-c continued %q, want the ACP session %q: %+v", cont.SessionID, seen.SessionID, cont)
	}
	if msgs := w.Server.LastRequest().Messages; len(msgs) < 10 || msgs[1].Content != "hello" {
		t.Fatalf("-c's request does not carry the ACP session's history: %d messages", len(msgs))
	}
	if t.Failed() {
		t.Logf("--- transcript\n%s", wire)
	}
}
