package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// subagentMark is in a subagent's system prompt and in no parent's.
const subagentMark = "You are a subagent"

// isSubagent tells a subagent's request from its parent's.
func isSubagent(r llmtest.Request) bool {
	return len(r.Messages) > 0 && r.Messages[0].Role == "system" && strings.Contains(r.Messages[0].Content, subagentMark)
}

// answered reports whether the last message of r is a tool result.
func answered(r llmtest.Request) bool {
	return len(r.Messages) > 0 && r.Messages[len(r.Messages)-1].Role == "tool"
}

func jsonArgs(v map[string]string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// bigFile writes a 1,200-line file to the project whose line 777 holds
// word, and returns its name.
func bigFile(t *testing.T, w *world, word string) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 1200; i++ {
		if i == 777 {
			fmt.Fprintf(&b, "line %d: the secret word is %s\n", i, word)
			continue
		}
		fmt.Fprintf(&b, "line %d: filler text that says nothing in particular, padding\n", i)
	}
	if err := os.WriteFile(filepath.Join(w.Project, "big.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return "big.txt"
}

// delegator scripts a parent that hands task to a subagent, and a
// subagent that does sub (one tool call) and answers answer.
func delegator(task string, sub llmtest.ToolCall, answer string) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		switch {
		case isSubagent(r) && !answered(r):
			return llmtest.ToolCalls(sub)
		case isSubagent(r):
			return llmtest.Text(answer)
		case !answered(r):
			return llmtest.ToolCalls(llmtest.Call("Task", jsonArgs(map[string]string{
				"description": "read big file", "prompt": task, "subagent_type": "general"})))
		default:
			return llmtest.Text("parent done")
		}
	}
}

// A parent that delegates the read of a 1,200-line file grows by the
// subagent's answer, not by the file; the subagent's requests carry its
// prompt, not the parent's conversation; and its transcript is a session
// of the project that search finds (issue 23).
func TestTaskKeepsTheFileOutOfTheParent(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	name := bigFile(t, w, "quetzalcoatl")
	read := llmtest.Call("Read", jsonArgs(map[string]string{"file_path": name}))

	// Without delegation: the parent reads the file itself.
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if !answered(r) {
			return llmtest.ToolCalls(read)
		}
		return llmtest.Text("parent done")
	})
	w.MustRun("-p", "find the secret word in big.txt")
	direct := w.Server.LastRequest().Tokens

	// The delegated run reads another word: only the subagent sees it.
	bigFile(t, w, "xiuhcoatl")
	w.Server.SetResponder(delegator("Read big.txt and tell me its secret word.", read, "The secret word is on line 777."))
	w.MustRun("-p", "PARENTONLY find the secret word in big.txt")
	delegated := w.Server.LastRequest().Tokens
	t.Logf("the parent's last request: %d tokens reading the file itself, %d delegating the read", direct, delegated)
	if delegated*5 > direct {
		t.Errorf("the parent's last request is %d tokens with delegation, %d without: the file entered the parent", delegated, direct)
	}
	if got := lastToolResult(t, w.Server); !strings.Contains(got, "line 777") {
		t.Errorf("the parent got %q, not the subagent's answer", got)
	}

	var subs int
	for _, r := range w.Server.Requests() {
		if !isSubagent(r) {
			continue
		}
		subs++
		text := llmtest.RequestText(r)
		if strings.Contains(text, "PARENTONLY") {
			t.Errorf("a subagent request carries the parent's conversation")
		}
		if r.Messages[1].Role != "user" || !strings.Contains(r.Messages[1].Content, "tell me its secret word") {
			t.Errorf("the subagent does not start from its prompt: %+v", r.Messages[1])
		}
		for _, tool := range r.Tools {
			if tool.Name == "Task" {
				t.Errorf("the subagent was offered Task")
			}
		}
	}
	if subs != 2 {
		t.Errorf("want the subagent's 2 requests, have %d", subs)
	}

	// The word only the subagent read is found, in the subagent's session.
	if got, want := searchSessions(t, w, "xiuhcoatl"), subagentSessions(t, w); len(got) != 1 || !want[got[0]] {
		t.Errorf("search finds the word only the subagent read in sessions %v; the subagents' are %v", got, want)
	}
}

// searchSessions are the sessions `clawdcode search --json query` names.
func searchSessions(t *testing.T, w *world, query string) []string {
	t.Helper()
	var hits []struct{ SessionID string }
	if err := json.Unmarshal([]byte(w.MustRun("search", "--json", query).Stdout), &hits); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.SessionID)
	}
	return ids
}

// subagentSessions are the project's sessions that have a parent.
func subagentSessions(t *testing.T, w *world) map[string]bool {
	t.Helper()
	var rows []struct{ ID, Parent string }
	if err := json.Unmarshal([]byte(w.MustRun("sessions", "list", "--json").Stdout), &rows); err != nil {
		t.Fatal(err)
	}
	subs := map[string]bool{}
	for _, r := range rows {
		if r.Parent != "" {
			subs[r.ID] = true
		}
	}
	return subs
}

// A subagent asks through the parent's permissions: in -p without a rule
// its Write is denied, and no file appears (CONTRACT §3, §12).
func TestTaskCannotWriteWithoutARule(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	write := llmtest.Call("Write", jsonArgs(map[string]string{"file_path": "planted.txt", "content": "x\n"}))
	w.Server.SetResponder(delegator("Write planted.txt.", write, "I tried."))
	w.MustRun("-p", "delegate a write")
	if _, err := os.Stat(filepath.Join(w.Project, "planted.txt")); err == nil {
		t.Fatal("the subagent wrote planted.txt without a rule")
	}
	var told bool
	for _, r := range w.Server.Requests() {
		if isSubagent(r) && answered(r) {
			told = strings.Contains(r.Messages[len(r.Messages)-1].Content, "denied")
		}
	}
	if !told {
		t.Error("the subagent was not told its Write was denied")
	}
}

// twoTasks scripts a parent that starts two subagents in one answer; sub
// answers each subagent's first request (by its prompt).
func twoTasks(sub func(r llmtest.Request, prompt string) llmtest.Reply) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		switch {
		case isSubagent(r):
			return sub(r, r.Messages[1].Content)
		case !answered(r):
			return llmtest.ToolCalls(
				llmtest.Call("Task", jsonArgs(map[string]string{"description": "task A", "prompt": "PROMPT-A", "subagent_type": "explore"})),
				llmtest.Call("Task", jsonArgs(map[string]string{"description": "task B", "prompt": "PROMPT-B", "subagent_type": "explore"})))
		default:
			return llmtest.Text("parent done")
		}
	}
}

// Two Task calls in one answer run at the same time: the first subagent
// to ask is held on its first request until the other's first request
// arrives (run one after the other, the first would have finished both of
// its requests before the second asked at all).
func TestTasksOfOneAnswerOverlap(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	secondArrived := make(chan struct{})
	var (
		mu         sync.Mutex
		requests   = map[string]int{}
		first      string
		overlapped bool
	)
	glob := llmtest.Call("Glob", jsonArgs(map[string]string{"pattern": "*"}))
	w.Server.SetResponder(twoTasks(func(r llmtest.Request, prompt string) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		requests[prompt]++
		if answered(r) {
			return llmtest.Text("answer of " + prompt)
		}
		if first == "" {
			first = prompt
			// Held until the other asks; the Pause only bounds a run
			// where it never does.
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{glob}, Text: "looking", PauseAfter: 1, Resume: secondArrived, Pause: 2 * time.Minute}
		}
		overlapped = requests[first] == 1
		close(secondArrived)
		return llmtest.ToolCalls(glob)
	}))
	w.MustRun("-p", "delegate two tasks")
	mu.Lock()
	defer mu.Unlock()
	if !overlapped {
		t.Errorf("the second subagent asked only after the first had made %d requests: the tasks ran one after the other", requests[first])
	}
	if got := lastToolResult(t, w.Server); !strings.Contains(got, "answer of PROMPT-") {
		t.Errorf("the parent's last tool result is %q", got)
	}
}

// An interrupt while two subagents wait for the server cancels both; every
// call is answered, so the session continues (the next request is valid).
func TestInterruptCancelsEveryTask(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(twoTasks(func(llmtest.Request, string) llmtest.Reply { return llmtest.Hang() }))
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	cmd := w.Command(ctx, "-p", "delegate two tasks")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	subRequests := func() int {
		n := 0
		for _, r := range w.Server.Requests() {
			if isSubagent(r) {
				n++
			}
		}
		return n
	}
	for subRequests() < 2 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("want exit 130 after the interrupt, have %d\n%s", code, stderr.String())
	}

	w.Server.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Text("resumed") })
	w.MustRun("-c", "-p", "go on")
	last := w.Server.LastRequest()
	answeredIDs := map[string]bool{}
	for _, m := range last.Messages {
		if m.Role == "tool" {
			answeredIDs[m.ToolCallID] = true
		}
	}
	var calls int
	for _, m := range last.Messages {
		for _, c := range m.ToolCalls {
			calls++
			if !answeredIDs[c.ID] {
				t.Errorf("call %s of the interrupted answer has no result", c.ID)
			}
		}
	}
	if calls != 2 {
		t.Errorf("the resumed request carries %d tool calls, want the 2 Task calls", calls)
	}
	if subRequests() != 2 {
		t.Errorf("the subagents asked %d times: they were not stopped", subRequests())
	}
}

// A subagent's transcript is a session of the project linked both ways;
// `sessions list` shows it under its parent, and -c continues the parent.
func TestTaskTranscriptIsLinkedToItsParent(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	glob := llmtest.Call("Glob", jsonArgs(map[string]string{"pattern": "*"}))
	w.Server.SetResponder(delegator("List the files.", glob, "There are none."))
	obj, _ := w.printJSON("-p", "delegate a listing")
	parent := obj.SessionID

	type link struct {
		Type, Subtype string
		Subagent      *struct{ SessionID, ToolUseID string }
	}
	firstLink := func(path, subtype string) *link {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var l link
			if json.Unmarshal([]byte(line), &l) == nil && l.Subtype == subtype && l.Subagent != nil {
				return &l
			}
		}
		return nil
	}
	files := w.sessionFiles()
	if len(files) != 2 {
		t.Fatalf("want the parent's and the subagent's session, have %v", files)
	}
	down := firstLink(files[parent], "subagent")
	if down == nil {
		t.Fatalf("the parent session has no subagent record")
	}
	child := down.Subagent.SessionID
	up := firstLink(files[child], "subagent_start")
	if up == nil || up.Subagent.SessionID != parent || up.Subagent.ToolUseID != down.Subagent.ToolUseID {
		t.Fatalf("the subagent's session does not name its parent and the call: %+v (parent %s, call %s)", up, parent, down.Subagent.ToolUseID)
	}

	if show := w.MustRun("sessions", "show", child).Stdout; !strings.Contains(show, "\nsubagent of session "+parent+" (clawdcode sessions show "+parent[:8]+")\n") {
		t.Errorf("sessions show of the subagent does not name its parent:\n%s", show)
	}
	list := w.MustRun("sessions", "list").Stdout
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], parent[:8]) || !strings.Contains(lines[2], "↳ subagent of "+parent[:8]+" · read big file") {
		t.Errorf("sessions list does not show the subagent under its parent:\n%s", list)
	}
	var rows []struct{ ID, Parent string }
	if err := json.Unmarshal([]byte(w.MustRun("sessions", "list", "--json").Stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].ID != child || rows[1].Parent != parent {
		t.Errorf("sessions list --json: %+v", rows)
	}
	for _, id := range []string{parent, child} {
		if r := w.Run("sessions", "check", id); r.Code != 0 {
			t.Errorf("sessions check %s:\n%s", id, r)
		}
	}
	w.Server.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Text("continued") })
	if obj, _ := w.printJSON("-c", "-p", "go on"); obj.SessionID != parent {
		t.Errorf("-c continued %s, not the parent %s", obj.SessionID, parent)
	}
}

// Custom subagent types come from agent files read through deffile: the
// project's wins over the user's, a symbolic link is refused, /agents
// lists them, Task offers them, and tools only narrows the parent's set.
func TestCustomSubagentTypes(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	write := func(dir, name, text string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	project := filepath.Join(w.Project, ".clawdcode", "agents")
	write(project, "reviewer.md", "---\ndescription: reviews code CUSTOMDESC\ntools: Read, Grep, Task, Frobnicate\nmodel: gpt-4o-mini\n---\nYou are REVIEWERBODY.\n")
	write(filepath.Join(w.Home, "agents"), "reviewer.md", "---\ndescription: the user's USERDESC\n---\nUSERBODY\n")
	write(w.Root, "secret.md", "---\ndescription: LINKED\n---\nSECRETBODY\n")
	if err := os.Symlink(filepath.Join(w.Root, "secret.md"), filepath.Join(project, "linked.md")); err != nil {
		t.Fatal(err)
	}

	r := w.MustRun("-p", "/agents")
	for _, want := range []string{"general", "explore", "reviewer", "CUSTOMDESC"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("/agents does not list %s:\n%s", want, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout, "USERDESC") || strings.Contains(r.Stdout, "LINKED") {
		t.Errorf("/agents lists the user's shadowed file or a symbolic link:\n%s", r.Stdout)
	}

	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		switch {
		case isSubagent(r):
			return llmtest.Text("reviewed")
		case !answered(r):
			return llmtest.ToolCalls(llmtest.Call("Task", jsonArgs(map[string]string{
				"description": "review", "prompt": "review main.go", "subagent_type": "reviewer"})))
		default:
			return llmtest.Text("parent done")
		}
	})
	w.MustRun("-p", "get a review")
	var sub, parent *llmtest.Request
	for _, r := range w.Server.Requests() {
		if isSubagent(r) {
			sub = &r
		} else if parent == nil {
			parent = &r
		}
	}
	if sub == nil || parent == nil {
		t.Fatal("no subagent request")
	}
	for _, tool := range parent.Tools {
		if tool.Name == "Task" && !strings.Contains(tool.Description, "reviewer: reviews code CUSTOMDESC") {
			t.Errorf("Task does not offer the custom type: %s", tool.Description)
		}
	}
	var names []string
	for _, tool := range sub.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "Read,Grep" {
		t.Errorf("the reviewer was offered %s, want Read,Grep", got)
	}
	if sub.Model != "gpt-4o-mini" || !strings.Contains(sub.Messages[0].Content, "You are REVIEWERBODY.") {
		t.Errorf("the reviewer's request: model %s, system prompt %q", sub.Model, sub.Messages[0].Content)
	}
}

// -p --output-format stream-json shows what a subagent does, each event
// tagged with the id of the Task call it runs for.
func TestTaskEventsInStreamJSON(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	glob := llmtest.Call("Glob", jsonArgs(map[string]string{"pattern": "*.txt"}))
	w.Server.SetResponder(delegator("List the text files.", glob, "SUBANSWER"))
	r := w.MustRun("-p", "delegate", "--output-format", "stream-json")
	type event struct{ Type, TaskID, ID, Name, Text string }
	var taskCall string
	var tagged []event
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var raw struct {
			Type   string `json:"type"`
			TaskID string `json:"task_id"`
			ID     string `json:"id"`
			Name   string `json:"name"`
			Text   string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		ev := event{raw.Type, raw.TaskID, raw.ID, raw.Name, raw.Text}
		switch {
		case ev.Type == "tool_use" && ev.Name == "Task" && ev.TaskID == "":
			taskCall = ev.ID
		case ev.TaskID != "":
			tagged = append(tagged, ev)
		}
	}
	if taskCall == "" {
		t.Fatalf("no Task call in the stream:\n%s", r.Stdout)
	}
	var sawGlob, sawAnswer bool
	for _, ev := range tagged {
		if ev.TaskID != taskCall {
			t.Errorf("event %+v is tagged with another task than %s", ev, taskCall)
		}
		sawGlob = sawGlob || (ev.Type == "tool_result" && ev.Name == "Glob")
		sawAnswer = sawAnswer || (ev.Type == "assistant" && ev.Text == "SUBANSWER")
	}
	if !sawGlob || !sawAnswer {
		t.Errorf("the subagent's Glob result and answer are not in the stream:\n%s", r.Stdout)
	}
}

// The run's usage counts the subagents' tokens: they were spent on it.
func TestTaskTokensCountInTheRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	glob := llmtest.Call("Glob", jsonArgs(map[string]string{"pattern": "*"}))
	w.Server.SetResponder(delegator("List the files.", glob, "There are none."))
	var obj struct {
		Usage struct {
			InputTokens int `json:"input_tokens"`
		} `json:"usage"`
	}
	w.RunJSON(&obj, "-p", "delegate a listing")
	var all, parent int
	for _, r := range w.Server.Requests() {
		all += r.Tokens
		if !isSubagent(r) {
			parent += r.Tokens
		}
	}
	if obj.Usage.InputTokens != all {
		t.Errorf("usage.input_tokens %d, want every request's %d (the parent's alone: %d)", obj.Usage.InputTokens, all, parent)
	}
}

// A subagent on a small window gets the brief forms of the system prompt
// and tools, as its parent does (issue 35): at 4k the full forms would
// leave it under a third of the trigger.
func TestTaskOnASmallWindowGetsTheBriefForms(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	if err := os.WriteFile(filepath.Join(w.Project, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Server.SetResponder(delegator("read notes.txt", llmtest.Call("Read", jsonArgs(map[string]string{"file_path": "notes.txt"})), "42"))
	w.MustRun("-p", "what is the answer?", "--context-window", "4000", "--dangerously-skip-permissions")
	var parent, sub *llmtest.Request
	for _, r := range w.Server.Requests() {
		switch {
		case isSubagent(r) && sub == nil:
			sub = &r
		case !isSubagent(r) && !llmtest.IsSummaryRequest(r) && parent == nil:
			parent = &r
		}
	}
	if parent == nil || sub == nil {
		t.Fatalf("want a parent's and a subagent's request")
	}
	const briefOpening = "You are clawdcode, a coding agent in the user's project."
	if !strings.HasPrefix(parent.Messages[0].Content, briefOpening) {
		t.Fatalf("the parent on a 4k window does not send the brief system prompt:\n%.200s", parent.Messages[0].Content)
	}
	if !strings.HasPrefix(sub.Messages[0].Content, briefOpening) || !strings.Contains(sub.Messages[0].Content, subagentMark) {
		t.Errorf("the subagent's system prompt is not the brief one:\n%.300s", sub.Messages[0].Content)
	}
	briefs := map[string]string{}
	for _, d := range parent.Tools {
		briefs[d.Name] = d.Description
	}
	for _, d := range sub.Tools {
		if briefs[d.Name] != d.Description {
			t.Errorf("the subagent's %s is not the brief form the parent sends:\n%.200s", d.Name, d.Description)
		}
	}
}
