package repl

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/clawdcode/clawdcode/internal/chat"
	"io"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// replayExchanges is how many of the last user messages (with what
// followed each) a resumed session shows.
const replayExchanges = 3

// replayLines bounds the lines shown of one message.
const replayLines = 12

// recentConversation lays out the end of a session's live context as the
// user saw it: a marker for what compaction summarised, then the last
// exchanges — the user's messages, the assistant's words (first lines),
// one line per tool call and its outcome.
func recentConversation(live *storage.Live, total int, cs colorScheme, root string, width int) []string {
	recs := live.Records
	start := exchangesFrom(recs, replayExchanges)
	shownMsgs := 0
	for _, lr := range recs[start:] {
		if t := lr.Record.Type; (t == storage.TypeUser && !lr.Record.IsCompactSummary) || t == storage.TypeAssistant {
			shownMsgs++
		}
	}
	var out []string
	earlier := total - shownMsgs
	if live.Summary != nil || earlier > 0 {
		switch {
		case live.Summary != nil && earlier > 0:
			out = append(out, cs.dim(fmt.Sprintf("── %s summarised ──", plural(earlier, "earlier message"))))
		case live.Summary != nil:
			out = append(out, cs.dim("── earlier messages summarised ──"))
		default:
			out = append(out, cs.dim(fmt.Sprintf("── %s not shown ──", plural(earlier, "earlier message"))))
		}
	}
	return append(out, conversationLines(recs[start:], cs, root, width)...)
}

// exchangesFrom is where the last n exchanges of recs start: the index of
// the n-th user message from the end (0 when there are fewer).
func exchangesFrom(recs []storage.LiveRecord, n int) int {
	users := 0
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i].Record
		if r.Type == storage.TypeUser && !r.IsCompactSummary && r.Message != nil {
			users++
			if users == n {
				return i
			}
		}
	}
	return 0
}

// conversationLines lays out records as the user saw them: the user's
// messages, the assistant's words (first lines), one line per tool call
// and its outcome; other records show nothing.
func conversationLines(recs []storage.LiveRecord, cs colorScheme, root string, width int) []string {
	var out []string
	names := map[string]string{}
	for _, lr := range recs {
		r := lr.Record
		switch r.Type {
		case storage.TypeUser:
			if r.IsCompactSummary || r.Message == nil {
				continue
			}
			text := r.Message.Content
			if said, ok := chat.CommandText(text); ok { // an imported slash command
				if text = said; text == "" {
					continue
				}
			}
			lines := clipLines(safe(text), replayLines, width-3)
			for i, l := range lines {
				lead := "  "
				if i == 0 {
					lead = "> "
				}
				out = append(out, cs.bold(lead)+l)
			}
		case storage.TypeAssistant:
			if r.Message == nil || strings.TrimSpace(r.Message.Content) == "" {
				continue
			}
			out = append(out, clipLines(renderMarkdown(safe(r.Message.Content), width, cs), replayLines, width-1)...)
		case storage.TypeToolUse:
			if r.Tool == nil {
				continue
			}
			names[r.Tool.ID] = r.Tool.Name
			arg := toolArgument(r.Tool.Name, json.RawMessage(r.Tool.Input), root)
			out = append(out, clipStyled(cs.wrap(styleCode, styleFgReset, "⏺")+" "+cs.bold(r.Tool.Name)+"("+safe(arg)+")", width-1))
		case storage.TypeToolResult:
			if r.ToolResult == nil {
				continue
			}
			name := names[r.ToolResult.ID]
			head, body := resultLines(name, tools.Result{Output: r.ToolResult.Output, Error: r.ToolResult.Error}, cs, nil, "", 0)
			line := head
			if len(body) > 0 {
				line += cs.dim(fmt.Sprintf(" (+%s)", plural(len(body), "line")))
			}
			out = append(out, clipStyled("  "+cs.dim("⎿")+"  "+line, width-1))
		}
	}
	return out
}

// renderMarkdown is text rendered as the stream shows it, at width.
func renderMarkdown(text string, width int, cs colorScheme) string {
	var b strings.Builder
	md := newMarkdownWriter(&b, func() int { return width })
	_ = md.WriteString(text)
	_ = md.Flush()
	if !cs.on {
		return ansiSGR.ReplaceAllString(b.String(), "")
	}
	return b.String()
}

// clipLines is at most n lines of s, each cut to width, with a count of the rest.
func clipLines(s string, n, width int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var out []string
	for i, l := range lines {
		if i == n {
			out = append(out, fmt.Sprintf("  … +%s", plural(len(lines)-n, "line")))
			break
		}
		out = append(out, clipWidth(l, width))
	}
	return out
}

// replaySession prints the recent conversation of the session the engine
// has open, after a resume.
func (s *session) replaySession(ctx context.Context, w io.Writer) {
	id := s.opts.Parts.Sessions.ID()
	p := s.opts.Parts.Sessions.Project()
	if id == "" || p == nil {
		return
	}
	live, err := s.opts.Parts.Sessions.Live(ctx)
	if err != nil || live == nil {
		return // the resume itself has reported what is wrong with the file
	}
	total := 0
	if list, err := p.List(); err == nil {
		for _, si := range list {
			if si.ID == id {
				total = si.Messages
			}
		}
	}
	width := 100
	if s.con != nil && s.con.width != nil {
		width = s.con.width()
	}
	for _, l := range recentConversation(live, total, s.cs, s.projectRoot(), width) {
		fmt.Fprintln(w, l)
	}
}
