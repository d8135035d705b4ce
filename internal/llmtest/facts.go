package llmtest

import (
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// FactClass is what kind of thing a planted fact is, for the context
// bench's probe (see Probe).
type FactClass string

// The four classes of planted facts.
const (
	// FactRecall is something the user said: a name, a preference.
	FactRecall FactClass = "recall"
	// FactArtifact is something the tools touched: a path, a command, an
	// exit code, a number (Fact.Kind says which).
	FactArtifact FactClass = "artifact"
	// FactContinuation is what was being done next.
	FactContinuation FactClass = "continuation"
	// FactDecision is a choice made and its reason.
	FactDecision FactClass = "decision"
)

// Fact is one planted fact: Key is the token whose presence in a request
// says the fact reached the model; Text is the sentence that states it (a
// scripted summariser writes it). Kind refines FactArtifact: "path",
// "command", "exit" or "number".
type Fact struct {
	Class FactClass
	Kind  string
	Key   string
	Text  string
}

// RequestText is every byte of r the model would read, as one normalised
// string: each message's role, content, and its tool calls' names and
// arguments, whitespace runs folded to one space. The probe and the
// behaviours below look for facts in it and nowhere else.
func RequestText(r Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Role)
		b.WriteByte(' ')
		b.WriteString(m.Content)
		for _, c := range m.ToolCalls {
			b.WriteByte(' ')
			b.WriteString(c.Name)
			b.WriteByte(' ')
			b.WriteString(c.Arguments)
		}
		b.WriteByte('\n')
	}
	return normalise(b.String())
}

// normalise folds each run of white space to one space.
func normalise(s string) string { return strings.Join(strings.Fields(s), " ") }

// Holds reports whether the normalised request text holds key.
func Holds(text, key string) bool { return strings.Contains(text, normalise(key)) }

// IsSummaryRequest tells a summarisation call from an agent turn: it
// offers no tools (a summary asked apart from the conversation), or
// offers the agent's tools with tool_choice "none" (a summary asked at
// the end of the agent's own request, which a prompt cache serves);
// clawdcode's agent requests carry tools and no tool_choice.
func IsSummaryRequest(r Request) bool { return len(r.Tools) == 0 || r.ToolChoice == "none" }

// SummaryMode is how a scripted summariser behaves (see Summariser).
type SummaryMode string

// The scripted summarisers.
const (
	// SummaryFaithful keeps every planted fact its request holds.
	SummaryFaithful SummaryMode = "faithful"
	// SummaryLossy keeps what the user said and the decisions, and drops
	// paths, commands, exit codes, numbers and what comes next — the
	// loss published figures report for real summaries.
	SummaryLossy SummaryMode = "lossy"
	// SummaryHallucinating keeps all but the continuation facts, and
	// claims every unfinished item is done.
	SummaryHallucinating SummaryMode = "hallucinating"
	// SummaryFail500 answers 500; SummaryOverflow answers 400
	// context_length_exceeded; SummaryEmpty answers an empty text.
	SummaryFail500  SummaryMode = "fail-500"
	SummaryOverflow SummaryMode = "fail-overflow"
	SummaryEmpty    SummaryMode = "fail-empty"
)

// Summariser answers a summarisation request in mode: a <summary> block
// with one line per planted fact of facts that the request holds and the
// mode keeps.
func Summariser(mode SummaryMode, facts []Fact) func(Request) Reply {
	return func(r Request) Reply {
		switch mode {
		case SummaryFail500:
			return ServerError()
		case SummaryOverflow:
			return ContextLengthExceeded(r.Tokens, r.Tokens+1)
		case SummaryEmpty:
			return Text("")
		}
		text := RequestText(r)
		var b strings.Builder
		b.WriteString("<summary>\n## Facts\n")
		for _, f := range facts {
			if keeps(mode, f) && Holds(text, f.Key) {
				b.WriteString("- " + f.Text + "\n")
			}
		}
		if mode == SummaryHallucinating {
			b.WriteString("## Pending tasks\nnone: every task is done.\n")
		}
		b.WriteString("</summary>")
		return Text(b.String())
	}
}

func keeps(mode SummaryMode, f Fact) bool {
	switch mode {
	case SummaryLossy:
		return f.Class == FactRecall || f.Class == FactDecision
	case SummaryHallucinating:
		return f.Class != FactContinuation
	}
	return true
}

// ProbePrefix opens the probe's answer.
const ProbePrefix = "PROBE present:"

// Probe answers from its request alone which of facts it holds: the line
// ProbePrefix, then the keys present, one a line, in facts' order.
// ParseProbe reads the answer back.
func Probe(facts []Fact) func(Request) Reply {
	return func(r Request) Reply {
		text := RequestText(r)
		keys := []string{ProbePrefix}
		for _, f := range facts {
			if Holds(text, f.Key) {
				keys = append(keys, f.Key)
			}
		}
		return Text(strings.Join(keys, "\n"))
	}
}

// ParseProbe is the set of keys a Probe answer names; ok is false when
// answer is not one.
func ParseProbe(answer string) (keys map[string]bool, ok bool) {
	i := strings.Index(answer, ProbePrefix)
	if i < 0 {
		return nil, false
	}
	keys = map[string]bool{}
	for _, k := range strings.Split(answer[i+len(ProbePrefix):], "\n") {
		if k = strings.TrimSpace(k); k != "" {
			keys[k] = true
		}
	}
	return keys, true
}

// Need is a fact the re-orienter must see before it edits, and the tool
// calls that bring it into the conversation, tried in order.
type Need struct {
	Key   string
	Fetch []ToolCall
}

// Reorienter plays an agent resuming a task: while a need's key is not in
// its request, it makes that need's next fetch call (one call a request);
// once every key is there, or a need has no fetch left, it makes the edit;
// after the edit's result it answers done. The calls it made before the
// edit are the task's re-orientation cost (ReorientCalls counts them).
func Reorienter(needs []Need, edit ToolCall, done string) func(Request) Reply {
	return func(r Request) Reply {
		made := callsSinceUser(r)
		for _, c := range made {
			if c.Name == edit.Name && c.Arguments == edit.Arguments {
				return Text(done)
			}
		}
		text := RequestText(r)
		for _, n := range needs {
			if Holds(text, n.Key) {
				continue
			}
			if k := countFetches(made, n.Fetch); k < len(n.Fetch) {
				return ToolCalls(n.Fetch[k])
			}
		}
		return ToolCalls(edit)
	}
}

// callsSinceUser are the tool calls of the assistant messages after r's
// last user message.
func callsSinceUser(r Request) []chat.ToolCall {
	start := len(r.Messages)
	for start > 0 && r.Messages[start-1].Role != chat.RoleUser {
		start--
	}
	var out []chat.ToolCall
	for _, m := range r.Messages[start:] {
		out = append(out, m.ToolCalls...)
	}
	return out
}

func countFetches(made []chat.ToolCall, fetch []ToolCall) int {
	n := 0
	for _, c := range made {
		for _, f := range fetch {
			if c.Name == f.Name && c.Arguments == f.Arguments {
				n++
			}
		}
	}
	return n
}

// ReorientCalls is how many tool calls the assistant made after the last
// user message of r before the first call named edit: read on the request
// that follows a Reorienter's edit, it is that task's re-orientation cost.
func ReorientCalls(r Request, edit string) int {
	for i, c := range callsSinceUser(r) {
		if c.Name == edit {
			return i
		}
	}
	return -1
}

// Violator plays an agent that attempts action unless its request holds
// rule, the user's earlier prohibition of it: it answers refused when the
// rule is there, makes the call when it is not, and answers done after
// the call's result.
func Violator(rule string, action ToolCall, refused, done string) func(Request) Reply {
	return func(r Request) Reply {
		if len(callsSinceUser(r)) > 0 {
			return Text(done)
		}
		if Holds(RequestText(r), rule) {
			return Text(refused)
		}
		return ToolCalls(action)
	}
}
