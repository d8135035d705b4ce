package contextmgr

import (
	"context"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/fileanalyzer"
	"github.com/clawdcode/clawdcode/internal/llm"
)

// A summary asked apart from the conversation — its own system prompt,
// the conversation rendered as one message, no tools — shares nothing
// with the agent's requests, so a prompt cache serves none of it, and the
// agent's next request misses the cache from its system prompt on (a
// server that keeps one prefix a model). Asked at the end of the agent's
// own request instead — the same system prompt, tools and messages, as
// the server last received them, then the instruction — all but the
// instruction is a prefix the server has cached, and the request after
// the compaction shares its system prompt and tools with it.
//
// It is asked so whenever the request in force, the instruction, the
// summary's reply budget and a margin for the server's count fit the
// window; otherwise (a request the server already refused as too long,
// a window too small for the reply budget beside the request) the
// conversation goes to the model apart, in parts if need be
// (summarizeMaterial). The tools are offered with tool_choice "none":
// they are part of the prefix, and the answer must be text.

// prefixInstructions ends the agent's own request to ask for the summary.
const prefixInstructions = `Stop the task for a moment: this conversation is about to be compacted. Everything above but the most recent messages will be replaced by the summary you write now, and you will continue the work from that summary alone. What you leave out is gone from your mind, so prefer exact facts to descriptions of them: copy file paths, shell commands, error messages, identifiers, numbers and versions exactly as they appear.

Answer with text only: do not call any tool now, a tool call would lose the summary.

` + summaryRules

// prefixUpdate tells a summariser that the conversation opens with the
// summary in force.
const prefixUpdate = "\n\nThe first user message above is the summary of the work before it: write ONE summary that merges it with what happened since — keep what still holds, update what changed. Leave out what it carries forward after the summary (the evidence ledger, the re-orientation): clawdcode restates that itself."

// summarizePrefixed asks for the summary at the end of the request in
// force when it fits the window (asked reports whether it was asked so),
// with the current content of the files that fit beside it.
func (s *summarizer) summarizePrefixed(ctx context.Context, update bool, instructions string, files []fileanalyzer.File) (text string, included []string, asked bool, err error) {
	if s.current == nil {
		return "", nil, false, nil
	}
	req, n := s.current()
	var b strings.Builder
	b.WriteString(prefixInstructions)
	if update {
		b.WriteString(prefixUpdate)
	}
	tail := "\n\nWrite the <analysis> and the <summary> now, as text; no tool calls."
	if instructions != "" {
		// The user's instructions have the last word.
		tail += "\n\nThe user gave instructions for this summary; they take precedence over everything above:\n" + instructions
	}
	ask := b.String()
	room := s.guard.effective - s.guard.summaryMax() - prefixMargin(s.acct, s.guard) - n - s.acct.counter.Text(ask+tail) - replyPriming
	if room < 0 {
		return "", nil, false, nil
	}
	var fileText strings.Builder
	included = fitFiles(s, files, room, &fileText)
	if fileText.Len() > 0 {
		b.WriteString("\n\n<files>\nThe current content of the files this conversation touched most:\n\n")
		b.WriteString(fileText.String())
		b.WriteString("</files>")
	}
	b.WriteString(tail)
	req.Messages = withInstruction(req.Messages, b.String())
	req.MaxCompletionTokens, req.ToolChoice = s.guard.summaryMax(), llm.ToolChoiceNone
	text, err = s.call(ctx, req)
	if llm.IsOverflow(err) {
		// The server counts the request larger than clawdcode did: the
		// summary is asked apart, within its own budget.
		return "", nil, false, nil
	}
	return text, included, true, err
}

// prefixMargin is what the prefix's fit keeps for the server counting
// the request larger than clawdcode: a twentieth of the window, and, when
// no server count covers the request (a step of the ladder changed it
// since), the tool definitions' count again — servers render the tools
// into the prompt their own way, and a step that changes the request
// leaves clawdcode's own count of them alone.
func prefixMargin(a *accountant, g *windowGuard) int {
	m := g.effective / 20
	if !a.calib.ok {
		m += a.partSize(&a.tools, exact)
	}
	return m
}

// minFileRoom is the least room (tokens) a file's first lines are worth
// including for.
const minFileRoom = 128

// fitFiles writes to b the files that fit room (tokens), in their order,
// and the first lines of the first one that does not, when room enough
// is left: at a small window the request leaves little beside it. It
// returns the paths included.
func fitFiles(s *summarizer, files []fileanalyzer.File, room int, b *strings.Builder) []string {
	var included []string
	blocks, sizes := s.fileBlocks(files, room)
	for i, block := range blocks {
		if sizes[i] <= room {
			room -= sizes[i]
			b.WriteString(block)
			included = append(included, files[i].Path)
			continue
		}
		if room < minFileRoom {
			continue
		}
		// A token is at least a byte: room bytes are at most room tokens.
		f := files[i]
		head := cutUTF8(f.Content, room-len(f.Path)-64)
		if j := strings.LastIndexByte(head, '\n'); j > 0 {
			head = head[:j+1]
		}
		f.Content, f.Truncated = head, true
		b.WriteString(fileBlock(f))
		included = append(included, f.Path)
		break
	}
	return included
}

// withInstruction is msgs with the instruction at the end as a user
// message, msgs itself untouched: a new message after the last, or, when
// the last is the user's (a turn that compacts before its first reply),
// joined to it, so that no two user messages follow each other.
func withInstruction(msgs []chat.Message, instruction string) []chat.Message {
	out := make([]chat.Message, len(msgs), len(msgs)+1)
	copy(out, msgs)
	if last := len(out) - 1; last >= 0 && out[last].Role == chat.RoleUser {
		out[last].Content += "\n\n" + instruction
		return out
	}
	return append(out, chat.Message{Role: chat.RoleUser, Content: instruction})
}
