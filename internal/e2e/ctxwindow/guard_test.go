package ctxwindow

import (
	"regexp"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// believedWindow is what clawdcode is told in the guard tests; the server's
// real window is much smaller. Large enough that a result the server
// cannot hold is still under the share of the window one tool result may
// take (the context ladder's cap), so it is sent whole and rejected.
const believedWindow = 32000

// statuses lists the server's answers, S for a summarisation call's.
func statuses(reqs []llmtest.Request) string {
	var b strings.Builder
	for i, r := range reqs {
		if i > 0 {
			b.WriteString(" ")
		}
		if isSummaryRequest(r) {
			b.WriteString("S")
		}
		b.WriteString(itoa(r.Status))
	}
	return b.String()
}

// TestGuardTruncatesOversizedToolResults: one tool result the server's
// smaller window cannot hold is rejected once, then sent cut down (head,
// marker, tail); the run answers and the file keeps the result whole.
func TestGuardTruncatesOversizedToolResults(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{Window: 6000})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	whole := bigText("huge", 400) // ~6000 tokens: alone over the server's window
	w.writeFile("huge.txt", whole)

	obj := w.mustJSON("-p", "read huge.txt", "--context-window", itoa(believedWindow))
	if !strings.HasPrefix(obj.Result, "Tool results:") {
		t.Errorf("result %.100q, want the answer to the tool result", obj.Result)
	}
	reqs := w.Server.Requests()
	if got := statuses(reqs); got != "200 400 200" {
		t.Fatalf("server answers %q, want \"200 400 200\" (the call, the rejected result, the retry)", got)
	}
	retry := reqs[2].Messages
	checkNoOrphans(t, retry)
	tool := retry[len(retry)-1]
	if tool.Role != chat.RoleTool || !strings.Contains(tool.Content, "lines) omitted ...]") {
		t.Fatalf("the retry's last message is %s %.200q, want the tool result cut with a marker", tool.Role, tool.Content)
	}
	if !strings.Contains(tool.Content, "huge 0000:") || !strings.Contains(tool.Content, "huge 0399:") {
		t.Errorf("the cut result lost its head or its tail")
	}
	if len(summaryRequests(w.Server)) != 0 {
		t.Errorf("the guard compacted although truncation sufficed")
	}

	recs := readRecords(t, w.onlySession())
	for _, r := range recs {
		if r.Type == "tool_result" && !strings.Contains(r.ToolResult.Output, "huge 0200:") {
			t.Errorf("the session file keeps the tool result cut; it must keep it whole")
		}
	}
}

// guardScenario: the server's window is just above a long history of
// mid-sized texts, and a huge result arrives. The rejection states the
// window; cutting the huge result down is not enough for it, because the
// mid-sized texts are not oversized even against the stated window (each
// is under an eighth of it), so the request stays over the learnt
// window's trigger and the guard climbs the context ladder. With reads
// the history is tool results the ladder can clear; without, it is the
// user's own notes, which only a summary frees. overflow, when set, is
// the rejection's message in place of OpenAI's chat wording. It returns
// the last run's result object and requests.
func guardScenario(t *testing.T, reads bool, overflow string) (*world, resultObject, []llmtest.Request) {
	t.Helper()
	const believed = 32000
	w := newWorld(t, llmtest.Options{OverflowMessage: overflow})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	for i := range 9 {
		name := "mid" + itoa(i) + ".txt"
		prompt := "note " + itoa(i) + "\n" + bigText("mid"+itoa(i), 30)
		if reads {
			w.writeFile(name, bigText("mid"+itoa(i), 30))
			prompt = "read " + name
		}
		args := []string{"-p", prompt, "--context-window", itoa(believed)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.MustRun(args...)
	}
	w.writeFile("huge.txt", bigText("huge", 480))
	// The next run's first request (the history and a short user turn)
	// fits; with the huge result even cut down to a head and a tail, the
	// request does not.
	history := w.Server.LastRequest().Tokens
	w.Server.SetWindow(history + 200)
	before := len(w.Server.Requests())
	obj := w.mustJSON("-c", "-p", "read huge.txt", "--context-window", itoa(believed))
	if !strings.HasPrefix(obj.Result, "Tool results:") {
		t.Errorf("result %.100q, want the answer to the huge result", obj.Result)
	}
	return w, obj, w.Server.Requests()[before:]
}

// guardCompactScenario is guardScenario with the user's notes for
// history: the retry comes after one compaction. It returns the requests
// of the last run.
func guardCompactScenario(t *testing.T) (*world, []llmtest.Request) {
	t.Helper()
	w, obj, reqs := guardScenario(t, false, "")
	if *obj.Compactions != 1 {
		t.Errorf("%d compactions, want one", *obj.Compactions)
	}
	// The summary may take more than one call (in parts, then merged)
	// when its material exceeds what the learnt window lets one call hold.
	if got := statuses(reqs); !regexp.MustCompile(`^200 400 (S200 )+200$`).MatchString(got) {
		t.Fatalf("server answers %q, want 200 (the call), 400 (rejected), S200… (compacting), 200 (the retry)", got)
	}
	return w, reqs
}

// TestGuardClearsBeforeItSummarises (issue 22): after a rejection the
// guard climbs the same ladder as any request over the trigger, so with
// old tool results in the history it clears them — no summary — and the
// retry fits. The clearing is a context_clear record: the next -c run
// sends the very same stubs.
func TestGuardClearsBeforeItSummarises(t *testing.T) {
	t.Parallel()
	for name, overflow := range map[string]string{
		"window stated":   "", // OpenAI chat completions' wording
		"window unstated": unstatedOverflowMessage(t),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			guardClears(t, overflow)
		})
	}
}

// guardClears is TestGuardClearsBeforeItSummarises with one rejection
// message.
func guardClears(t *testing.T, overflow string) {
	w, obj, reqs := guardScenario(t, true, overflow)
	// Without the window stated, the first estimate (90% of the rejected
	// request) may not be low enough: a second rejection teaches more.
	if got := statuses(reqs); !regexp.MustCompile(`^200 (400 )+200$`).MatchString(got) || *obj.Compactions != 0 {
		t.Fatalf("server answers %q after %d compactions, want 200 (the call), 400… (rejected), 200 (the retry after clearing) and none", got, *obj.Compactions)
	}
	retry := reqs[len(reqs)-1].Messages
	checkNoOrphans(t, retry)
	stubs := clearedStubs(retry)
	if len(stubs) == 0 {
		t.Fatalf("the retry clears no old tool result: %s", roles(retry))
	}
	// Tool results only: a clearing also drops the re-orientation
	// packets of earlier resumes, which send nothing at all.
	cleared := 0
	recs := readRecords(t, w.onlySession())
	results := map[string]bool{}
	for _, r := range recs {
		if r.Type == "tool_result" {
			results[r.UUID] = true
		}
	}
	for _, r := range recs {
		if r.Subtype == "context_clear" && r.CompactMetadata != nil {
			for id := range r.CompactMetadata.Cleared {
				if results[id] {
					cleared++
				}
			}
		}
	}
	if cleared != len(stubs) {
		t.Errorf("the session records %d cleared results, the retry sends %d stubs", cleared, len(stubs))
	}
	n := len(w.Server.Requests())
	w.mustJSON("-c", "-p", "and now?", "--context-window", itoa(believedWindow))
	next := clearedStubs(w.Server.Requests()[n].Messages)
	if strings.Join(next, "\n") != strings.Join(stubs, "\n") {
		t.Errorf("the next -c run sends other stubs:\n%q\nthe retry sent\n%q", next, stubs)
	}
}

// clearedStubs lists the contents of msgs' tool messages that are the
// context ladder's stubs.
func clearedStubs(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == chat.RoleTool && strings.HasPrefix(m.Content, "[cleared to save context:") {
			out = append(out, m.Content)
		}
	}
	return out
}

// TestGuardCompactsWhenTruncationIsNotEnough: rejected, the cut-down
// request is still too big for the stated window, compact, fits.
func TestGuardCompactsWhenTruncationIsNotEnough(t *testing.T) {
	t.Parallel()
	w, reqs := guardCompactScenario(t)
	last := reqs[len(reqs)-1].Messages
	checkNoOrphans(t, last)
	if m := last[len(last)-1]; m.Role != chat.RoleTool || !strings.Contains(m.Content, "lines) omitted ...]") {
		t.Errorf("the retry does not carry the huge result cut down: %s %.100q", m.Role, m.Content)
	}
	if last[1].Role != chat.RoleUser || !strings.Contains(last[1].Content, "compacted to fit the context window") {
		t.Errorf("the retry after the guard's compaction does not start with the summary: %s", roles(last))
	}
	cs := compactions(t, readRecords(t, w.onlySession()))
	if len(cs) != 1 || cs[0].summary.CompactMetadata.Trigger != "auto" {
		t.Errorf("want one auto compaction on disk, have %d", len(cs))
	}
}

// TestGuardSummaryFitsTheRealWindow: the compaction the guard makes after
// two rejections has learnt the server's window, so its summary call fits
// it and the summary is a real one, not the fallback.
func TestGuardSummaryFitsTheRealWindow(t *testing.T) {
	t.Parallel()
	w, reqs := guardCompactScenario(t)
	for _, q := range reqs {
		if isSummaryRequest(q) && q.Status != 200 {
			t.Errorf("the guard's summarisation call (%d tokens + %d for the reply) was answered %d: %s", q.Tokens, q.MaxCompletionTokens, q.Status, q.Error)
		}
	}
	cs := compactions(t, readRecords(t, w.onlySession()))
	if len(cs) != 1 || cs[0].summary.CompactMetadata.Fallback {
		t.Errorf("want one compaction with a real summary, have %d (fallback: %v)", len(cs), len(cs) == 1 && cs[0].summary.CompactMetadata.Fallback)
	}
}

// TestGuardGivesUpClearly: a server whose window shrank below what it
// accepted before (it states 300 tokens) ends the run in one clear error
// (exit 1): the guard does not believe a window below what the server
// already accepted, so once cutting the results has not helped it gives
// up rather than shrink the session to nothing. The session file stays
// intact and loads without warnings, and -c against a normal server
// answers.
func TestGuardGivesUpClearly(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	for i := range 3 {
		name := "small" + itoa(i) + ".txt"
		w.writeFile(name, bigText("small"+itoa(i), 40))
		args := []string{"-p", "read " + name, "--context-window", itoa(believedWindow)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.MustRun(args...)
	}
	path := w.onlySession()
	before := len(w.Server.Requests())
	w.Server.SetWindow(300)

	obj, r := w.runJSON("-c", "-p", "one more", "--context-window", itoa(believedWindow))
	if r.Code != 1 || !obj.IsError || obj.Subtype != "error" {
		t.Fatalf("want exit 1 with an error result\n%s", r)
	}
	var errLines []string
	for _, l := range strings.Split(strings.TrimSpace(r.Stderr), "\n") {
		if strings.HasPrefix(l, "clawdcode: ") && !strings.HasPrefix(l, "clawdcode: warning:") {
			errLines = append(errLines, l)
		}
	}
	t.Logf("stderr:\n%s", r.Stderr)
	if len(errLines) != 1 || !strings.Contains(strings.ToLower(errLines[0]), "context") {
		t.Errorf("want one \"clawdcode: \" error line about the context window, have %q\n%s", errLines, r)
	}
	reqs := w.Server.Requests()[before:]
	agent := 0
	for _, q := range reqs {
		if !isSummaryRequest(q) {
			agent++
			if q.Status != 400 {
				t.Errorf("an agent request was answered %d in a 300-token window", q.Status)
			}
		}
	}
	if agent < 2 || agent > 3 {
		t.Errorf("%d agent requests (%s), want 2 or 3: the first, after truncating (and after compacting)", agent, statuses(reqs))
	}

	// Intact: every line parses, and a compaction the guard made is well
	// formed. -c loads the file without a warning about it and answers
	// once the server accepts requests again.
	recs := readRecords(t, path)
	cs := compactions(t, recs)
	for _, c := range cs {
		if m := c.summary.CompactMetadata; m.Trigger != "auto" || !m.Fallback {
			t.Errorf("guard compaction with trigger %q, fallback %v; want auto, a fallback", m.Trigger, m.Fallback)
		}
	}
	w.Server.SetWindow(0)
	before = len(w.Server.Requests())
	r2 := w.MustRun("-c", "-p", "are you back?", "--context-window", itoa(believedWindow))
	t.Logf("-c stderr:\n%s", r2.Stderr)
	for _, l := range strings.Split(r2.Stderr, "\n") {
		if strings.Contains(l, "line") || strings.Contains(l, "skip") {
			t.Errorf("-c after the failed run warned about the file: %s", l)
		}
	}
	if !strings.HasPrefix(r2.Stdout, "You said: ") {
		t.Errorf("-c answered %q", r2.Stdout)
	}
	next := w.Server.Requests()[before].Messages
	checkNoOrphans(t, next)
	// The failed run's turn stays a turn: its user message, the answer
	// recorded as failed, then the new message.
	n := len(next)
	if n < 3 || next[n-1].Role != chat.RoleUser || userText(next[n-1].Content) != "are you back?" ||
		next[n-2].Role != chat.RoleAssistant || !strings.Contains(next[n-2].Content, "failed") ||
		next[n-3].Role != chat.RoleUser || !strings.Contains(next[n-3].Content, "one more") {
		t.Errorf("want the failed turn (user, failed answer) before the new message, got %s", roles(next))
	}
}
