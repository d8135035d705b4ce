package llmtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// Agent returns a responder that plays a small, predictable coding agent
// with clawdcode's tool names, for end-to-end and kill tests.
//
// Trailing system messages (plan mode's note) are passed over: the last
// message is the one before them.
//
// When the last message is from the user, each of its lines of one of these
// forms becomes a tool call (several lines: parallel calls, in order; the
// verb is case-insensitive and must start the line):
//
//	read <path>            → Read  {"file_path": "<path>"}
//	write <path> <text>    → Write {"file_path": "<path>", "content": "<text>"}
//	bash <command>         → Bash  {"command": "<command>"}
//	edit <path> <old> <new> → Edit {"file_path": "<path>", "old_string": "<old>", "new_string": "<new>"}
//	recall <query>         → Recall {"query": "<query>"}
//	recall-project <query> → Recall {"query": "<query>", "scope": "project"}
//	recall-ref <uuid>      → Recall {"ref": "<uuid>"}
//	bash-bg <command>      → Bash  {"command": "<command>", "run_in_background": true}
//	bash-output <id>       → BashOutput {"bash_id": "<id>"}
//	kill-shell <id>        → KillShell {"shell_id": "<id>"}
//	webfetch <url> [prompt] → WebFetch {"url": "<url>", "prompt": "<prompt>"}
//	exit-plan <plan>       → ExitPlanMode {"plan": "<plan>"}, each `\n` in it a line break
//	task <type> <prompt>   → Task  {"description": "<type> task", "prompt": "<prompt>", "subagent_type": "<type>"}
//	skill <name> [file]    → Skill {"name": "<name>", "file": "<file>"}
//
// A user message with no such line is answered with the text
// "You said: <its first line>".
//
// When the last message is a tool result, the answer is the text
// "Tool results:" followed by one line per tool message at the end of the
// conversation, "- <tool_call_id>: <Digest(content)>", so a test can check
// exactly which results the model was sent. Any other last message is
// answered "OK".
func Agent() func(Request) Reply {
	return func(r Request) Reply {
		if len(r.Messages) == 0 {
			return Text("OK")
		}
		// A trailing system note (plan mode's) is read, not answered: the
		// message before it is the one to answer.
		end := len(r.Messages)
		for end > 1 && r.Messages[end-1].Role == chat.RoleSystem {
			end--
		}
		last := r.Messages[end-1]
		switch last.Role {
		case chat.RoleUser:
			if calls := agentCalls(last.Content); len(calls) > 0 {
				return ToolCalls(calls...)
			}
			first, _, _ := strings.Cut(last.Content, "\n")
			return Text("You said: " + first)
		case chat.RoleTool:
			var b strings.Builder
			b.WriteString("Tool results:")
			start := end
			for start > 0 && r.Messages[start-1].Role == chat.RoleTool {
				start--
			}
			for _, m := range r.Messages[start:end] {
				fmt.Fprintf(&b, "\n- %s: %s", m.ToolCallID, Digest(m.Content))
			}
			return Text(b.String())
		}
		return Text("OK")
	}
}

func agentCalls(content string) []ToolCall {
	var calls []ToolCall
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		verb, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if rest == "" {
			continue
		}
		var name string
		var args map[string]any
		switch strings.ToLower(verb) {
		case "read":
			name, args = "Read", map[string]any{"file_path": rest}
		case "write":
			path, text, _ := strings.Cut(rest, " ")
			name, args = "Write", map[string]any{"file_path": path, "content": text}
		case "bash":
			name, args = "Bash", map[string]any{"command": rest}
		case "edit":
			path, words, _ := strings.Cut(rest, " ")
			old, repl, _ := strings.Cut(strings.TrimSpace(words), " ")
			name, args = "Edit", map[string]any{"file_path": path, "old_string": old, "new_string": strings.TrimSpace(repl)}
		case "recall":
			name, args = "Recall", map[string]any{"query": rest}
		case "recall-project":
			name, args = "Recall", map[string]any{"query": rest, "scope": "project"}
		case "recall-ref":
			name, args = "Recall", map[string]any{"ref": rest}
		case "bash-bg":
			name, args = "Bash", map[string]any{"command": rest, "run_in_background": true}
		case "bash-output":
			name, args = "BashOutput", map[string]any{"bash_id": rest}
		case "kill-shell":
			name, args = "KillShell", map[string]any{"shell_id": rest}
		case "exit-plan":
			name, args = "ExitPlanMode", map[string]any{"plan": strings.ReplaceAll(rest, `\n`, "\n")}
		case "task":
			typ, prompt, _ := strings.Cut(rest, " ")
			name, args = "Task", map[string]any{"description": typ + " task", "prompt": strings.TrimSpace(prompt), "subagent_type": typ}
		case "skill":
			skill, file, _ := strings.Cut(rest, " ")
			name, args = "Skill", map[string]any{"name": skill}
			if file = strings.TrimSpace(file); file != "" {
				args["file"] = file
			}
		case "webfetch":
			u, prompt, _ := strings.Cut(rest, " ")
			name, args = "WebFetch", map[string]any{"url": u}
			if prompt = strings.TrimSpace(prompt); prompt != "" {
				args["prompt"] = prompt
			}
		default:
			continue
		}
		b, _ := json.Marshal(args)
		calls = append(calls, Call(name, string(b)))
	}
	return calls
}

// Digest summarises a tool result in one line: its first line (at most 60
// bytes), its length, and the first 12 hex digits of its SHA-256.
func Digest(output string) string {
	first, _, _ := strings.Cut(output, "\n")
	if len(first) > 60 {
		first = first[:60]
	}
	sum := sha256.Sum256([]byte(output))
	return fmt.Sprintf("%q (%d bytes, sha256 %s)", first, len(output), hex.EncodeToString(sum[:6]))
}
