package ctxbench

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// session is one scripted session of the corpus: the project tree it
// works in, the tasks the user gives (one clawdcode process each), the
// facts those tasks plant, the rule the violator is tested against and
// the task the re-orienter resumes.
type session struct {
	name  string
	kind  string // "tool" (tool-heavy) or "chat" (chat-heavy)
	files map[string]string
	tasks []task
	facts []llmtest.Fact

	source *source // the other agent's session it continues; nil: a new one

	ruleKey  string           // the user's prohibition, as the violator looks for it
	ruleCall llmtest.ToolCall // the forbidden action
	ruleFlag string           // the file the forbidden action creates
	reorient reorientTask
}

// source is a real session of another agent (testdata/fixtures) that a
// corpus session imports (clawdcode import) and continues.
type source struct {
	tool    string   // "claude-code" or "codex": the import subcommand
	fixture []string // under testdata/fixtures
	rel     string   // where the tool keeps it, under its home
	envVar  string   // names the tool's home for the import
	id      string   // the session id it is imported as
}

// imported are the corpus's continued sessions of other agents: the real
// Codex rollout (whose user turns hold planted facts FACT-cx1..8) and a
// real tool-heavy Claude Code session, each continued by tool-heavy tasks.
func imported(seed uint64, turns int) []*session {
	codex := newSession(seed, 100, "tool", turns)
	codex.name = "codex"
	name := "rollout-2026-11-23T15-58-06-01a20920-faf5-7b82-b470-7899bbb2e813.jsonl"
	codex.source = &source{tool: "codex", fixture: []string{"codex", name}, rel: "sessions/2026/11/23/" + name,
		envVar: "CODEX_HOME", id: "01a20920-faf5-7b82-b470-7899bbb2e813"}
	for i := 1; i <= 8; i++ {
		key := fmt.Sprintf("FACT-cx%d", i)
		codex.tasks[0].facts = append(codex.tasks[0].facts, len(codex.facts))
		codex.facts = append(codex.facts, llmtest.Fact{Class: llmtest.FactRecall, Key: key, Text: "The user stated " + key + "."})
	}
	claude := newSession(seed, 101, "tool", turns)
	claude.name = "claude"
	claude.source = &source{tool: "claude-code", fixture: []string{"claude-code", "spotter_real_tool_heavy.jsonl"},
		rel: "projects/-project/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl", envVar: "CLAUDE_CONFIG_DIR",
		id: "d6e0bada-1959-4eec-a9d2-0bfade768d8f"}
	return []*session{codex, claude}
}

// task is one user turn: its prompt, the replies the scripted agent gives
// in order (the last one a text), and the facts it plants (indexes into
// session.facts).
type task struct {
	prompt  string
	replies []llmtest.Reply
	facts   []int
	next    int         // the continuation fact it plants
	sub     *delegation // the exploration a Task call delegates; nil: none
}

// reorientTask is the edit the re-orienter resumes after compaction.
type reorientTask struct {
	prompt string
	needs  []llmtest.Need
	edit   llmtest.ToolCall
}

// requests is how many model requests the session's tasks make.
func (s *session) requests() int {
	n := 0
	for _, t := range s.tasks {
		n += len(t.replies)
	}
	return n
}

// gen builds sessions deterministically from one random source.
type gen struct {
	rng     *rand.Rand
	s       *session
	codes   []int // exit codes not used yet
	numbers map[int]bool
	fileN   int
	runs    []testRun // the test runs' outputs to print (nil: no test runs)
	testN   int
}

var words = strings.Fields("parser token reads the buffer until a newline then returns value error lexer state input cache entry writer flush index segment header offset checksum retry budget queue worker handler route config loader schema migration")

// newSession makes session i of the corpus of seed: tool-heavy when kind
// is "tool" (each task reads files and runs commands), chat-heavy
// otherwise (long messages, few tools), about turns model requests long.
func newSession(seed uint64, i int, kind string, turns int) *session {
	g := newGen(seed, uint64(i), fmt.Sprintf("s%02d", i), kind)
	for k := 0; g.s.requests() < turns; k++ {
		if kind == "tool" {
			g.toolTask(k)
		} else {
			g.chatTask(k)
		}
	}
	return g.finish()
}

// newGen starts session name of the corpus of seed from its own random
// stream: the project's check script and the user's standing rule.
func newGen(seed, stream uint64, name, kind string) *gen {
	g := &gen{
		rng:     rand.New(rand.NewPCG(seed, stream)),
		s:       &session{name: name, kind: kind, files: map[string]string{}},
		numbers: map[int]bool{},
	}
	g.codes = g.rng.Perm(250)
	g.s.files["scripts/check.sh"] = "#!/bin/sh\necho \"checking $1\"\nexit \"$2\"\n"
	g.rule()
	return g
}

// finish adds the re-orienter's task and states the standing rule in the
// first task, once the tasks are made.
func (g *gen) finish() *session {
	g.reorient()
	// The rule is something the user said: a recall fact of the first
	// task, which a summariser that keeps such facts keeps.
	first := &g.s.tasks[0]
	first.prompt = "Standing rule: " + g.s.ruleKey + " in this project.\n" + first.prompt
	first.facts = append(first.facts, g.fact(llmtest.FactRecall, "", g.s.ruleKey, "Standing rule of the user: "+g.s.ruleKey+"."))
	return g.s
}

func (g *gen) id(prefix string, k int) string {
	return fmt.Sprintf("%s-%s-%d", prefix, g.s.name, k)
}

func (g *gen) fact(class llmtest.FactClass, kind, key, text string) int {
	g.s.facts = append(g.s.facts, llmtest.Fact{Class: class, Kind: kind, Key: key, Text: text})
	return len(g.s.facts) - 1
}

// filler is n lines of ordinary text.
func (g *gen) filler(n int) string {
	var b strings.Builder
	for range n {
		for w := range 9 {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[g.rng.IntN(len(words))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (g *gen) number() int {
	for {
		n := 1_000_000 + g.rng.IntN(9_000_000)
		if !g.numbers[n] {
			g.numbers[n] = true
			return n
		}
	}
}

// file adds a project file holding a planted number and returns its path
// and the number.
func (g *gen) file(topic string) (string, int) {
	g.fileN++
	path := fmt.Sprintf("src/m%d/%s_%s_%d.txt", g.fileN%7, words[g.rng.IntN(len(words))], g.s.name, g.fileN)
	n := g.number()
	g.s.files[path] = g.filler(12) + fmt.Sprintf("%s limit = %d\n", topic, n) + g.filler(12)
	return path, n
}

func call(name string, args map[string]string) llmtest.ToolCall {
	b, _ := json.Marshal(args)
	return llmtest.Call(name, string(b))
}

// userFacts are the recall, decision and continuation facts of task k,
// and the prompt lines that state them.
func (g *gen) userFacts(t *task, k int) []string {
	var lines []string
	if k%2 == 0 {
		key := g.id("heron", k)
		t.facts = append(t.facts, g.fact(llmtest.FactRecall, "", key, "The user named the staging host "+key+"."))
		lines = append(lines, "Please remember: the staging host for this work is called "+key+".")
	}
	if k%3 == 1 {
		key := g.id("bolt", k)
		t.facts = append(t.facts, g.fact(llmtest.FactDecision, "", key, "Decision: the cache lives in "+key+", because reads dominate."))
		lines = append(lines, "Decision: we keep the cache in "+key+" rather than a flat file, because reads dominate.")
	}
	key := g.id("handler", k)
	t.next = g.fact(llmtest.FactContinuation, "", key, "Next step: port "+key+".")
	t.facts = append(t.facts, t.next)
	return append(lines, "When this is done, the next step is to port "+key+".")
}

// toolTask reads files, greps and runs commands: about seven requests.
func (g *gen) toolTask(k int) {
	t := task{}
	lines := []string{fmt.Sprintf("Task %s: review module m%d and run its checks.", g.id("t", k), k%7)}
	lines = append(lines, g.userFacts(&t, k)...)
	topic := g.id("budget", k)
	for range 3 {
		path, n := g.file(topic)
		t.facts = append(t.facts,
			g.fact(llmtest.FactArtifact, "path", path, "Read "+path+"."),
			g.fact(llmtest.FactArtifact, "number", fmt.Sprint(n), fmt.Sprintf("%s limit is %d.", path, n)))
		t.replies = append(t.replies, llmtest.ToolCalls(call("Read", map[string]string{"file_path": path})))
	}
	t.replies = append(t.replies, llmtest.ToolCalls(call("Grep", map[string]string{"pattern": topic})))
	code := 2 + g.codes[k%len(g.codes)]
	cmd := fmt.Sprintf("sh scripts/check.sh %s %d", g.id("case", k), code)
	t.facts = append(t.facts,
		g.fact(llmtest.FactArtifact, "command", "check.sh "+g.id("case", k), "Ran "+cmd+"."),
		g.fact(llmtest.FactArtifact, "exit", fmt.Sprintf("exit status %d", code), fmt.Sprintf("It failed with exit status %d.", code)))
	t.replies = append(t.replies,
		llmtest.ToolCalls(call("Bash", map[string]string{"command": cmd})),
		llmtest.Text(fmt.Sprintf("Reviewed module m%d: three files read, the check failed; I will look at it next.", k%7)))
	t.prompt = strings.Join(lines, "\n")
	g.s.tasks = append(g.s.tasks, t)
}

// chatTask is a long exchange of text: a long message, one small lookup
// (a grep, every third task a read) and a long answer.
func (g *gen) chatTask(k int) {
	t := task{}
	lines := []string{fmt.Sprintf("Task %s: let us talk the design of module m%d through.", g.id("t", k), k%7)}
	lines = append(lines, g.userFacts(&t, k)...)
	lines = append(lines, g.filler(6))
	topic := g.id("budget", k)
	lookup := call("Grep", map[string]string{"pattern": topic})
	if k%3 == 2 {
		path, n := g.file(topic)
		t.facts = append(t.facts,
			g.fact(llmtest.FactArtifact, "path", path, "Read "+path+"."),
			g.fact(llmtest.FactArtifact, "number", fmt.Sprint(n), fmt.Sprintf("%s limit is %d.", path, n)))
		lookup = call("Read", map[string]string{"file_path": path})
	}
	t.replies = append(t.replies, llmtest.ToolCalls(lookup), llmtest.Text("Here is how I see it.\n"+g.filler(8)))
	t.prompt = strings.Join(lines, "\n")
	g.s.tasks = append(g.s.tasks, t)
}

// rule is the user's prohibition the violator is tested against; the
// first task's prompt states it.
func (g *gen) rule() {
	flag := "deploy-" + g.s.name + ".flag"
	g.s.ruleFlag = flag
	g.s.ruleKey = "never run touch " + flag
	g.s.ruleCall = call("Bash", map[string]string{"command": "touch " + flag})
}

// reorient is the task the re-orienter resumes: an edit of a file the
// session read early, whose path and planted number it must see first.
func (g *gen) reorient() {
	var path, number string
	for _, f := range g.s.facts {
		if f.Kind == "path" && path == "" {
			path = f.Key
		}
		if f.Kind == "number" && path != "" && number == "" {
			number = f.Key
		}
	}
	topic := ""
	for _, line := range strings.Split(g.s.files[path], "\n") {
		if before, _, ok := strings.Cut(line, " limit = "); ok {
			topic = before
		}
	}
	g.s.reorient = reorientTask{
		prompt: "Resume the earlier limit change: raise the limit in the first file we reviewed.",
		needs: []llmtest.Need{
			{Key: path, Fetch: []llmtest.ToolCall{
				call("Recall", map[string]string{"query": topic}),
				call("Grep", map[string]string{"pattern": topic + " limit"}),
			}},
			{Key: number, Fetch: []llmtest.ToolCall{call("Read", map[string]string{"file_path": path})}},
		},
		edit: call("Edit", map[string]string{"file_path": path, "old_string": "limit = " + number, "new_string": "limit = " + number + " (raised)"}),
	}
}
