package ctxwindow

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

const packetHeading = "Re-orientation (read from the session's records, not from any summary):"

// TestPacketAfterResumeCompactionAndHandoff (issue 21, item 2): the
// first request after a -c resume, after a compaction and after a handoff
// holds the re-orientation packet — the task in the user's words, the
// calls since with how each ended, the files in flight, the open items,
// the next step the model stated — and a later resume keeps the earlier
// packet where it was, since a resume restores the context in force.
func TestPacketAfterResumeCompactionAndHandoff(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.writeFile("vote.go", "package vote\n\nconst quorum = 5\n")
	w.writeFile("check.sh", "#!/bin/sh\necho 'quorum mismatch' >&2\nexit 4\n")
	w.Server.SetResponder(scripted(lossySummary,
		llmtest.ToolCalls(todoCall("read the vote counter", "completed", "fix the quorum", "in_progress")),
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"vote.go"}`)),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"sh check.sh quorum"}`)),
		llmtest.Text("The check fails. Next I will raise the quorum constant in vote.go."),
	))
	skip := "--dangerously-skip-permissions"
	task := "Please fix the quorum check in the vote package; it must accept seven voters."
	w.MustRun("-p", task, skip)

	want := []string{
		packetHeading,
		"> " + task,
		"- Read vote.go — ok",
		"- Bash `sh check.sh quorum` — failed: exit status 4",
		"Files in flight: vote.go (read)",
		"[~] fix the quorum",
		"The next step you stated: Next I will raise the quorum constant in vote.go.",
	}
	check := func(when string) {
		t.Helper()
		reqs := agentRequests(w.Server)
		text := requestText(reqs[len(reqs)-1])
		for _, s := range want {
			if !strings.Contains(text, s) {
				t.Errorf("the request after %s lacks %q:\n%s", when, s, text)
			}
		}
	}
	w.MustRun("-c", "-p", "go on", skip)
	check("a resume")
	w.MustRun("-c", "-p", "and now?", skip)
	reqs := agentRequests(w.Server)
	if n := strings.Count(requestText(reqs[len(reqs)-1]), packetHeading); n != 2 {
		t.Errorf("the request after a second resume holds %d packets, want both (the context in force, then the new one)", n)
	}
	packets := 0
	for _, r := range readRecords(t, w.onlySession()) {
		if r.Type == "system" && r.Subtype == "reorientation" {
			packets++
		}
	}
	if packets != 2 {
		t.Errorf("%d reorientation records after two resumes", packets)
	}

	// After a compaction, the packet is in the summary message: the next
	// request of the same process holds it (no resume in between).
	w.MustRun("-c", "-p", "/compact")
	w.MustRun("-c", "-p", "status?", skip)
	reqs = agentRequests(w.Server)
	if sum := reqs[len(reqs)-1].Messages[1].Content; !strings.Contains(sum, packetHeading) || !strings.Contains(sum, "> "+task) {
		t.Errorf("the summary message after a compaction holds no packet:\n%s", sum)
	}

	w.MustRun("-c", "-p", "/handoff")
	w.MustRun("-c", "-p", "continue in the new session", skip)
	reqs = agentRequests(w.Server)
	if sum := reqs[len(reqs)-1].Messages[1].Content; !strings.Contains(sum, packetHeading) || !strings.Contains(sum, "[~] fix the quorum") {
		t.Errorf("the first request after a handoff holds no packet in its summary:\n%s", sum)
	}
}

// userText is what the user typed in the content of the first user
// message after a resume, which the re-orientation packet follows.
func userText(content string) string {
	text, _, _ := strings.Cut(content, "\n\n"+packetHeading)
	return text
}
