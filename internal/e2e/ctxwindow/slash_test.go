package ctxwindow

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestPiecewiseSummary: a history far larger than the window is
// summarised in parts whose notes are merged; every call fits a strict
// server of that window, the summary record is on disk, and the next
// request fits.
func TestPiecewiseSummary(t *testing.T) {
	t.Parallel()
	const small = 4000
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	for i := range 8 {
		name := "long" + itoa(i) + ".txt"
		w.writeFile(name, bigText("long"+itoa(i), 110))
		args := []string{"-p", "read " + name, "--context-window", "64000"}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.MustRun(args...)
	}
	if h := w.Server.LastRequest().Tokens; h < 3*small {
		t.Fatalf("the history is only %d tokens; the test needs several windows of %d", h, small)
	}
	w.Server.SetWindow(small)
	before := len(w.Server.Requests())

	r := w.MustRun("-c", "-p", "/compact", "--context-window", itoa(small))
	reqs := w.Server.Requests()[before:]
	if len(reqs) < 3 {
		t.Fatalf("%d summarisation calls (%s); a history of several windows needs at least two parts and a merge", len(reqs), statuses(reqs))
	}
	for i, q := range reqs {
		if !isSummaryRequest(q) {
			t.Errorf("request %d of /compact offers tools; only summarisation calls were expected", i)
		}
		if q.Status != 200 {
			t.Errorf("summarisation call %d (%d tokens + %d for the reply) was answered %d: %s", i, q.Tokens, q.MaxCompletionTokens, q.Status, q.Error)
		}
	}
	// The parts are condensed one by one, then merged: the merge is the
	// only call that sees more than one part's notes, and it comes last.
	final := reqs[len(reqs)-1].Messages
	if n := strings.Count(final[len(final)-1].Content, "SUMMARY-MARKER"); n < 2 {
		t.Errorf("the last summarisation call carries %d of the parts' notes, want all of them (%d calls)", n, len(reqs))
	}
	if !strings.Contains(r.Stdout, "→") {
		t.Errorf("/compact printed no token change:\n%s", r)
	}

	recs := readRecords(t, w.onlySession())
	cs := compactions(t, recs)
	if len(cs) != 1 {
		t.Fatalf("%d compactions on disk, want 1", len(cs))
	}
	if m := cs[0].summary.CompactMetadata; m.Trigger != "manual" || m.Fallback || m.PostTokens >= m.PreTokens || m.PostTokens >= small {
		t.Errorf("summary metadata %+v: want a manual, real summary leaving under %d tokens", m, small)
	}

	before = len(w.Server.Requests())
	w.MustRun("-c", "-p", "and next?", "--context-window", itoa(small))
	next := w.Server.Requests()[before]
	if next.Status != 200 || isSummaryRequest(next) {
		t.Errorf("the request after the piecewise compaction was answered %d (%d tokens in a %d window): %s", next.Status, next.Tokens, small, next.Error)
	}
	checkNoOrphans(t, next.Messages)
}

var (
	compactLine = regexp.MustCompile(`(\d+) → (\d+) tokens \(([-+])(\d+)%\)`)
	contextLine = regexp.MustCompile(`^Context usage: ~(\d+) / (\d+) tokens \((\d+)%\)$`)
)

// TestCompactSeesCurrentFilesAndInstructions: files the model wrote and
// edited, then changed on disk behind its back, go into the summarisation
// request with their current content and are listed in filesIncluded; the
// user's /compact instructions reach the summariser; /compact and /context
// print the contract's lines.
func TestCompactSeesCurrentFilesAndInstructions(t *testing.T) {
	t.Parallel()
	const window = 8000
	w := newWorld(t, llmtest.Options{Window: window, RejectConsecutiveUser: true})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	flags := []string{"--context-window", itoa(window), "--dangerously-skip-permissions"}

	w.MustRun(append([]string{"-p", "write parser.go package parser // FIRST-VERSION"}, flags...)...)
	if b, err := os.ReadFile(filepath.Join(w.Project, "parser.go")); err != nil || !strings.Contains(string(b), "FIRST-VERSION") {
		t.Fatalf("the model's Write did not reach the file: %q, %v", b, err)
	}
	w.writeFile("lexer.go", "package lexer\n\nvar state = \"OLD-LEXER\"\n")
	w.Server.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path": "lexer.go"}`)),
		llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path": "lexer.go", "old_string": "OLD-LEXER", "new_string": "EDITED-LEXER"}`)),
		llmtest.Text("edited the lexer"),
	)
	w.MustRun(append([]string{"-c", "-p", "rename the lexer state"}, flags...)...)
	if b, _ := os.ReadFile(filepath.Join(w.Project, "lexer.go")); !strings.Contains(string(b), "EDITED-LEXER") {
		t.Fatalf("the model's Edit did not reach the file: %q", b)
	}
	w.MustRun(append([]string{"-c", "-p", "thanks"}, flags...)...)

	// Both files change on disk after the model touched them.
	w.writeFile("parser.go", "package parser\n\n// CURRENT-PARSER changed on disk by the user\nfunc Parse() {}\n")
	w.writeFile("lexer.go", "package lexer\n\nvar state = \"CURRENT-LEXER\"\n")

	before := len(w.Server.Requests())
	r := w.MustRun(append([]string{"-c", "-p", "/compact focus on the parser"}, flags...)...)
	reqs := w.Server.Requests()[before:]
	if len(reqs) != 1 || !isSummaryRequest(reqs[0]) || reqs[0].Status != 200 {
		t.Fatalf("/compact made %d requests (%s), want one summarisation call", len(reqs), statuses(reqs))
	}
	body := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	for _, want := range []string{"CURRENT-PARSER", "CURRENT-LEXER", "focus on the parser"} {
		if !strings.Contains(body, want) {
			t.Errorf("the summarisation request lacks %q:\n%s", want, body)
		}
	}

	cs := compactions(t, readRecords(t, w.onlySession()))
	if len(cs) != 1 {
		t.Fatalf("%d compactions on disk, want 1", len(cs))
	}
	m := cs[0].summary.CompactMetadata
	if m.Trigger != "manual" {
		t.Errorf("trigger %q, want manual", m.Trigger)
	}
	for _, f := range []string{"parser.go", "lexer.go"} {
		if !slices.ContainsFunc(m.FilesIncluded, func(p string) bool { return p == f || p == filepath.Join(w.Project, f) }) {
			t.Errorf("filesIncluded %q lacks %s", m.FilesIncluded, f)
		}
	}

	// stdout: "N → M tokens (-P%)" and the files.
	match := compactLine.FindStringSubmatch(r.Stdout)
	if match == nil {
		t.Fatalf("/compact printed no \"N → M tokens (-P%%)\" line:\n%s", r)
	}
	pre, _ := strconv.Atoi(match[1])
	post, _ := strconv.Atoi(match[2])
	pct, _ := strconv.Atoi(match[4])
	if pre != m.PreTokens || post != m.PostTokens {
		t.Errorf("/compact printed %d → %d; the record says %d → %d", pre, post, m.PreTokens, m.PostTokens)
	}
	if want := (100*(pre-post) + pre/2) / pre; match[3] != "-" || pct < want-1 || pct > want+1 {
		t.Errorf("/compact printed %s%d%% for %d → %d, want -%d%%", match[3], pct, pre, post, want)
	}
	if !strings.Contains(r.Stdout, "parser.go") || !strings.Contains(r.Stdout, "lexer.go") {
		t.Errorf("/compact did not list the files included:\n%s", r.Stdout)
	}

	// /context after the compaction.
	before = len(w.Server.Requests())
	r = w.MustRun("-c", "-p", "/context", "--context-window", itoa(window))
	if n := len(w.Server.Requests()) - before; n != 0 {
		t.Errorf("/context made %d model calls", n)
	}
	first, _, _ := strings.Cut(r.Stdout, "\n")
	cm := contextLine.FindStringSubmatch(first)
	if cm == nil {
		t.Fatalf("/context's first line %q does not read \"Context usage: ~N / W tokens (P%%)\"", first)
	}
	n, _ := strconv.Atoi(cm[1])
	win, _ := strconv.Atoi(cm[2])
	p, _ := strconv.Atoi(cm[3])
	if win != window || n <= 0 || n >= window || p != (100*n+win/2)/win {
		t.Errorf("/context: %q for a %d-token window", first, window)
	}
	for _, part := range []string{"system prompt", "tools", "summary", "messages", "auto-compaction"} {
		if !strings.Contains(r.Stdout, part) {
			t.Errorf("/context lacks %q:\n%s", part, r.Stdout)
		}
	}
}

// TestOrphanUserTurnIsMerged: a user turn persisted without a reply (the
// server refused the key, and the process died before the failed answer
// was recorded) and the next one reach a server that rejects two user
// messages in a row as one user message.
func TestOrphanUserTurnIsMerged(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{RejectConsecutiveUser: true})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	w.Server.Enqueue(llmtest.Unauthorized())
	if r := w.Run("-p", "first question"); r.Code != 1 {
		t.Fatalf("a 401 should end the run with exit 1\n%s", r)
	}
	// A run records its failed answer after the user turn; a crash before
	// that write leaves the user turn alone at the end: drop the answer.
	path := w.onlySession()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if last := lines[len(lines)-1]; bytes.Contains(last, []byte(`"type":"assistant"`)) {
		if err := os.WriteFile(path, bytes.Join(lines[:len(lines)-1], nil), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	recs := readRecords(t, path)
	if len(recs) == 0 || recs[len(recs)-1].Type != "user" || recs[len(recs)-1].Message.Content != "first question" {
		t.Fatalf("the failed run did not leave its user turn as the last record: %+v", recs)
	}

	before := len(w.Server.Requests())
	r := w.MustRun("-c", "-p", "second question")
	q := w.Server.Requests()[before]
	if q.Status != 200 {
		t.Fatalf("the request after the orphan turn was answered %d: %s", q.Status, q.Error)
	}
	if len(q.Messages) != 2 || q.Messages[1].Role != "user" {
		t.Fatalf("request after the orphan turn: %s, want system user", roles(q.Messages))
	}
	if got := q.Messages[1].Content; !strings.Contains(got, "first question") || !strings.HasSuffix(userText(got), "second question") || strings.Index(got, "first question") > strings.Index(got, "second question") {
		t.Errorf("merged user message %q, want the orphan turn then the new one", got)
	}
	if !strings.HasPrefix(r.Stdout, "You said: first question") {
		t.Errorf("answer %q", r.Stdout)
	}
	recs = readRecords(t, w.onlySession())
	users := 0
	for _, rec := range recs {
		if rec.Type == "user" {
			users++
		}
	}
	if users != 2 {
		t.Errorf("the file holds %d user records, want both turns as written (2)", users)
	}
}
