package ctxwindow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// autoWindow is the window of the auto-compaction tests: both clawdcode's
// and the server's, so any request clawdcode lets grow past it is
// rejected.
const autoWindow = 6000

// compactedSession fills a session by reading large project files, one
// `-c -p` turn each, against a server whose window is clawdcode's, until a
// run reports a compaction (and one short turn more, so a request follows
// the compaction in a process of its own and the context stays well below
// the trigger for what a test sends next).
func compactedSession(t *testing.T) *world {
	t.Helper()
	w := newWorld(t, llmtest.Options{Window: autoWindow})
	// The answers carry notes of their own: the context ladder clears old
	// tool results before it summarises, and these tests need a summary.
	agent := agentWithSummaries(fixedSummary)
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		reply := agent(r)
		if !isSummaryRequest(r) && strings.HasPrefix(reply.Text, "Tool results:") {
			reply.Text += "\n" + bigText("note", 30)
		}
		return reply
	})
	files := []string{"alpha.txt", "beta.txt", "gamma.txt", "delta.txt", "epsilon.txt", "zeta.txt", "eta.txt", "theta.txt"}
	for _, f := range files {
		w.writeFile(f, bigText(strings.TrimSuffix(f, ".txt"), 110))
	}
	compacted := false
	for i, f := range files {
		prompt := "read " + f
		if compacted {
			prompt = "go on"
		}
		args := []string{"-p", prompt, "--context-window", itoa(autoWindow)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		obj := w.mustJSON(args...)
		if obj.Context.Window != autoWindow {
			t.Errorf("result context.window = %d, want %d", obj.Context.Window, autoWindow)
		}
		if obj.Context.Tokens <= 0 || obj.Context.Tokens >= autoWindow {
			t.Errorf("turn %d: result context.tokens = %d, want within (0, %d)", i, obj.Context.Tokens, autoWindow)
		}
		if compacted {
			break
		}
		compacted = *obj.Compactions >= 1
	}
	if !compacted {
		t.Fatalf("no run reported a compaction after %d turns of large reads in a %d-token window", len(files), autoWindow)
	}
	return w
}

// TestAutoCompactionBeforeTheServerRejects: with the server's window equal
// to clawdcode's, turns of large tool results never produce a rejected
// request, and the compaction is on disk as the contract shapes it.
func TestAutoCompactionBeforeTheServerRejects(t *testing.T) {
	t.Parallel()
	w := compactedSession(t)
	noRejections(t, w.Server)

	recs := readRecords(t, w.onlySession())
	cs := compactions(t, recs)
	if len(cs) == 0 {
		t.Fatal("the result reported a compaction but the session file has no compact_boundary")
	}
	for _, c := range cs {
		m := c.summary.CompactMetadata
		if m.Trigger != "auto" {
			t.Errorf("trigger %q, want auto", m.Trigger)
		}
		if m.PreTokens <= 0 || m.PostTokens <= 0 || m.PostTokens >= m.PreTokens {
			t.Errorf("preTokens %d, postTokens %d: want 0 < post < pre", m.PreTokens, m.PostTokens)
		}
		if m.Fallback || m.Error != "" {
			t.Errorf("summary fell back (%q) though the summariser answered", m.Error)
		}
		if len(m.FilesIncluded) == 0 {
			t.Errorf("filesIncluded is empty though the conversation read files")
		}
		for _, f := range m.FilesIncluded {
			if _, err := os.Stat(absIn(w.Project, f)); err != nil {
				t.Errorf("filesIncluded names %q: %v", f, err)
			}
		}
		if !strings.Contains(c.summary.Message.Content, "SUMMARY-MARKER") {
			t.Errorf("the summary record does not hold the summariser's answer:\n%s", c.summary.Message.Content)
		}
	}
	if n := len(summaryRequests(w.Server)); n < len(cs) {
		t.Errorf("%d summarisation calls for %d compactions", n, len(cs))
	}
}

// TestRequestAfterCompaction: the first request after a compaction is the
// system prompt, the summary as a user message, then the retained records
// as they are in the file — nothing orphaned.
func TestRequestAfterCompaction(t *testing.T) {
	t.Parallel()
	w := compactedSession(t)
	noRejections(t, w.Server)
	recs := readRecords(t, w.onlySession())
	cs := compactions(t, recs)
	if len(cs) == 0 {
		t.Fatal("no compaction in the session file")
	}
	last := cs[len(cs)-1]
	live := liveMessages(t, recs, last)

	for _, q := range agentRequests(w.Server) {
		checkNoOrphans(t, q.Messages)
	}
	got := requestAfterCompaction(t, w.Server.Requests()).Messages
	if len(got) < 2 || got[0].Role != chat.RoleSystem {
		t.Fatalf("request after compaction does not start with the system prompt: %s", roles(got))
	}
	if got[1].Role != chat.RoleUser || !strings.Contains(got[1].Content, "SUMMARY-MARKER") {
		t.Fatalf("message 1 after compaction is %s %.200q, want the summary as a user message", got[1].Role, got[1].Content)
	}
	samePrefix(t, "request after compaction", got[1:], live, true)
	if len(got)-1 > len(live) {
		t.Errorf("the request has %d messages after the system prompt; the file's live context only %d", len(got)-1, len(live))
	}
}

// requestAfterCompaction is the agent request right after the last
// summarisation call: the first one the compacting process made with the
// compacted context.
func requestAfterCompaction(t *testing.T, reqs []llmtest.Request) llmtest.Request {
	t.Helper()
	after := -1
	for i, r := range reqs {
		if isSummaryRequest(r) {
			after = -1
			continue
		}
		if after < 0 && i > 0 && isSummaryRequest(reqs[i-1]) {
			after = i
		}
	}
	if after < 0 {
		t.Fatal("no agent request follows the summarisation call")
	}
	return reqs[after]
}

// TestContinueAfterCompaction: `-c` sends exactly the context in force when
// the last run ended — summary, retained records (cut down as the
// compacting process sent them), what followed — and does not need the
// history before the retained part: a corrupted line there goes unnoticed.
func TestContinueAfterCompaction(t *testing.T) {
	t.Parallel()
	w := compactedSession(t)
	before := agentRequests(w.Server)
	prev := before[len(before)-1]
	compacting := requestAfterCompaction(t, w.Server.Requests())

	path := w.onlySession()
	recs := readRecords(t, path)
	cs := compactions(t, recs)
	if len(cs) == 0 {
		t.Fatal("no compaction in the session file")
	}
	last := cs[len(cs)-1]
	live := liveMessages(t, recs, last)

	n := len(w.Server.Requests())
	w.mustJSON("-c", "-p", "what now?", "--context-window", itoa(autoWindow))
	reqs := w.Server.Requests()[n:]
	if len(reqs) == 0 {
		t.Fatal("-c made no request")
	}
	got := reqs[0].Messages
	checkNoOrphans(t, got)
	if got[0].Role != chat.RoleSystem || got[len(got)-1].Role != chat.RoleUser || userText(got[len(got)-1].Content) != "what now?" {
		t.Fatalf("request after -c: %s, want system … user \"what now?\"", roles(got))
	}
	resumed := got[1 : len(got)-1]
	if len(resumed) != len(live) {
		t.Errorf("-c sent %d messages of context; the file's live context is %d", len(resumed), len(live))
	}
	samePrefix(t, "-c request against the file", resumed, live, true)
	// What was in force at the end of the previous run: its last request
	// and the answer to it, word for word.
	inForce := append(append([]chat.Message(nil), prev.Messages[1:]...), chat.Message{Role: chat.RoleAssistant, Content: lastAssistantText(recs)})
	if len(resumed) != len(inForce) {
		t.Errorf("-c sent %d messages; the previous run's last request plus its answer were %d", len(resumed), len(inForce))
	}
	samePrefix(t, "-c request against the previous run's", resumed, inForce, false)
	// And what the compacting process itself sent after compacting, word
	// for word: a kept result it cut down to fit is sent cut down again.
	samePrefix(t, "-c request against the compacting process's", compacting.Messages[1:], resumed, false)

	// Garble the first line (the session's first user turn, long dropped)
	// at its own length, so every offset stays valid.
	ri := retainedIndex(t, recs, last)
	if ri == 0 {
		t.Fatal("the compaction retained everything; nothing before the retained part to corrupt")
	}
	corruptLine(t, path, recs[0])
	n = len(w.Server.Requests())
	r := w.MustRun("-c", "-p", "and now?", "--context-window", itoa(autoWindow))
	if strings.Contains(strings.ToLower(r.Stderr), "warning") {
		t.Errorf("-c warned about a line it should never have read:\n%s", r.Stderr)
	}
	reqs = w.Server.Requests()[n:]
	if len(reqs) == 0 {
		t.Fatal("-c after the corruption made no request")
	}
	got = reqs[0].Messages
	if got[1].Role != chat.RoleUser || !strings.Contains(got[1].Content, "SUMMARY-MARKER") {
		t.Errorf("after the corruption, -c's request does not start with the summary: %s", roles(got))
	}
	noRejections(t, w.Server)
}

// corruptLine overwrites a record's line with garbage of the same length.
func corruptLine(t *testing.T, path string, r record) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := r.offset
	for end < int64(len(data)) && data[end] != '\n' {
		end++
	}
	for i := r.offset; i < end; i++ {
		data[i] = '#'
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// lastAssistantText is the text of the file's last assistant record.
func lastAssistantText(recs []record) string {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Type == "assistant" && recs[i].Message != nil {
			return recs[i].Message.Content
		}
	}
	return ""
}

// liveMessages rebuilds, from the file alone, the messages (after the
// system prompt) that the context in force after compaction c must send:
// c's summary, the retained records, and the records after c, with
// consecutive user messages merged and each reply's tool calls attached.
func liveMessages(t *testing.T, recs []record, c compaction) []chat.Message {
	t.Helper()
	ri := retainedIndex(t, recs, c)
	live := append([]record(nil), recs[ri:c.index]...)
	live = append(live, recs[c.index+2:]...)
	var out []chat.Message
	// The summary is a user message of its own: a user message after it
	// follows the assistant's acknowledgement, so the two are never one.
	userRun := []string{c.summary.Message.Content}
	summaryOpen := true
	flushUser := func() {
		if len(userRun) > 0 {
			out = append(out, chat.Message{Role: chat.RoleUser, Content: strings.Join(userRun, "\n\n")})
			userRun = nil
		}
		summaryOpen = false
	}
	for _, r := range live {
		switch {
		case r.Type == "user", r.Type == "system" && r.Subtype == "reorientation":
			if summaryOpen {
				flushUser()
				out = append(out, chat.Message{Role: chat.RoleAssistant, Content: summaryAck})
			}
			userRun = append(userRun, r.Message.Content) // a resume's packet is sent with the message after it
		case r.Type == "assistant":
			flushUser()
			out = append(out, chat.Message{Role: chat.RoleAssistant, Content: r.Message.Content})
		case r.Type == "tool_use":
			flushUser()
			if len(out) == 0 || out[len(out)-1].Role != chat.RoleAssistant {
				t.Fatalf("line %d: tool_use with no assistant record before it", r.line)
			}
			a := &out[len(out)-1]
			a.ToolCalls = append(a.ToolCalls, chat.ToolCall{ID: r.Tool.ID, Name: r.Tool.Name})
		case r.Type == "tool_result":
			content := r.ToolResult.Output
			if r.ToolResult.Error != "" {
				content = r.ToolResult.Error
			}
			out = append(out, chat.Message{Role: chat.RoleTool, ToolCallID: r.ToolResult.ID, Content: content})
		}
	}
	flushUser()
	return out
}

// summaryAck is the assistant's turn clawdcode puts between a summary and
// the user message after it (issue 25 item 11).
const summaryAck = "Understood: I continue from this summary."

// samePrefix compares got with a prefix of want, message by message: roles,
// user and assistant texts, tool call ids and names, tool result ids and
// contents. With cutOK a result of got may be want's cut down to fit (the
// truncation marker and the head of the original) or the context ladder's
// stub for it: want is then the session file, which keeps every result
// whole.
func samePrefix(t *testing.T, what string, got, want []chat.Message, cutOK bool) {
	t.Helper()
	for i, g := range got {
		if i >= len(want) {
			t.Errorf("%s: message %d (%s) is beyond the %d expected", what, i, g.Role, len(want))
			return
		}
		x := want[i]
		if g.Role != x.Role {
			t.Errorf("%s: message %d is %s, want %s\n got %s\nwant %s", what, i, g.Role, x.Role, roles(got), roles(want))
			return
		}
		switch g.Role {
		case chat.RoleTool:
			if g.ToolCallID != x.ToolCallID {
				t.Errorf("%s: message %d answers %s, want %s", what, i, g.ToolCallID, x.ToolCallID)
			}
			if g.Content != x.Content && !(cutOK && (isCutOf(g.Content, x.Content) || stubRef.MatchString(g.Content))) {
				t.Errorf("%s: message %d (result of %s) differs\n got %.300q\nwant %.300q", what, i, g.ToolCallID, g.Content, x.Content)
			}
		default:
			if g.Content != x.Content {
				k := 0
				for k < min(len(g.Content), len(x.Content)) && g.Content[k] == x.Content[k] {
					k++
				}
				t.Errorf("%s: message %d (%s) text differs from the file at byte %d\n got %.300q\nwant %.300q", what, i, g.Role, k, g.Content[k:], x.Content[k:])
			}
			if len(g.ToolCalls) != len(x.ToolCalls) {
				t.Errorf("%s: message %d has %d tool calls, want %d", what, i, len(g.ToolCalls), len(x.ToolCalls))
				continue
			}
			for j := range g.ToolCalls {
				if g.ToolCalls[j].ID != x.ToolCalls[j].ID || g.ToolCalls[j].Name != x.ToolCalls[j].Name {
					t.Errorf("%s: message %d call %d is %s %s, want %s %s", what, i, j, g.ToolCalls[j].ID, g.ToolCalls[j].Name, x.ToolCalls[j].ID, x.ToolCalls[j].Name)
				}
			}
		}
	}
}

// isCutOf reports whether cut is whole cut down in memory to fit the
// window: the marker, and the same head.
func isCutOf(cut, whole string) bool {
	head := cut[:min(len(cut), 200)]
	return strings.Contains(cut, "lines) omitted ...]") && len(cut) < len(whole) && strings.HasPrefix(whole, head)
}

// roles lists the roles of msgs, for failure messages.
func roles(msgs []chat.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(m.Role)
		if len(m.ToolCalls) > 0 {
			b.WriteString("+calls")
		}
	}
	return b.String()
}

// absIn resolves a path relative to the project.
func absIn(project, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(project, p)
}
