package contextmgr

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/fileanalyzer"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// The opening of every summary record, so the model (and a reader of the
// file) knows what the message is.
const (
	summaryPreamble = "This conversation was compacted to fit the context window. " +
		"The summary below replaces the earlier messages; the messages after it are the most recent part of the conversation, kept word for word. " +
		"Continue the work from where it stopped."
	fallbackPreamble = "This conversation was compacted to fit the context window, but no summary could be written. " +
		"Below is a short digest of the earlier part; the messages after it are the most recent part of the conversation, kept word for word. " +
		"Continue the work from where it stopped, and ask the user if something essential is missing."
)

// summaryRules is what a summary must hold and how it is written, said
// the same way whether the summariser reads the conversation apart
// (summarizerInstructions) or at the end of the agent's own request
// (prefixInstructions).
const summaryRules = `First think in an <analysis> block: go through the conversation in order and note each user request, each decision and its reason, each file read or changed, each command run and what it showed, each error and what became of it. The analysis is private: it is thrown away.

Then write the summary in a <summary> block, in markdown, under exactly these headings:

## User requests and instructions
Every request and standing instruction of the user, in order; quote short ones word for word. (The user's own messages are also kept word for word after your summary, so restate long ones briefly.)
## Key decisions
Technical choices made and why.
## Files and changes
Every file read, created or modified, by its exact path: what changed and why; the functions, types and commands that matter, by their exact names.
## Commands and errors
Commands run that matter (exactly) and what they showed; errors met (the exact message), their causes, and how they were fixed or what was tried.
## Pending tasks
What the user asked for that is not finished.
## Current work
What was being done immediately before this point, in detail.
## Next step
The next action, consistent with the user's most recent request.

Write "none" under a heading with nothing to say. Do not invent facts and do not address the user.`

const summarizerInstructions = `Answer with text only. Do not call any tool: none is available, and a tool call would lose the summary.

You write the working memory of a coding assistant. The conversation you are given, between a user and an AI coding assistant with tools, is being removed from the assistant's context; the assistant will continue with only your summary and the few most recent messages. What you leave out is gone from its mind, so prefer exact facts to descriptions of them: copy file paths, shell commands, error messages, identifiers (functions, types, flags, variables), numbers and versions exactly as they appear.

` + summaryRules + `

Again: text only — an <analysis> block, then a <summary> block. No tool calls.`

const partInstructions = `Answer with text only; do not call any tool. You condense one part of a long conversation between a user and an AI coding assistant with tools, so that a later step can merge the parts into one summary. Keep every user request and instruction (verbatim when short), decisions, exact file paths and what changed in them, exact commands and error messages, identifiers and numbers, and unfinished work. Be dense and faithful; output only the condensed notes, no tool calls.`

// Bounds of how much of one record goes into the summarization material:
// long outputs are rarely needed word for word, and the files that matter
// are attached with their current content anyway.
const (
	renderTextMax   = 8000
	renderCallMax   = 2000
	renderResultMax = 3000
	maxSummaryDepth = 4
)

// summarizer writes a compaction's summary with the model: in one call
// when the material fits the window, else in parts whose notes are then
// merged. It keeps in the CacheStore what a retry after a failure need not
// redo: the notes on each part (keyed by the part's text), and, through
// the file analyzer, the file contents it read.
type summarizer struct {
	opt    *Options
	acct   *accountant
	guard  *windowGuard
	notify func(kind NoticeKind, format string, args ...any)
	// current is the request in force — what the agent's next request
	// sends — and its size: the prefix a summary asked at its end shares
	// (summaryprefix.go); nil asks every summary apart.
	current func() (llm.Request, int)
	// used is what the calls since the last takeUsage reported (the calls
	// of one summarize are made one after another).
	used storage.Usage
}

// takeUsage returns what the calls made since the last takeUsage used.
func (s *summarizer) takeUsage() storage.Usage {
	u := s.used
	s.used = storage.Usage{}
	return u
}

// piece is one rendered record of the material to summarise.
type piece struct {
	// head, body and tail are the piece's text, in three parts so that a
	// record's text is not copied to add its label: the material is most
	// of the window.
	head, body, tail string
	tokens           int
}

// text is the piece's text whole.
func (p piece) text() string { return p.head + p.body + p.tail }

// write appends the piece's text to b.
func (p piece) write(b *strings.Builder) {
	b.WriteString(p.head)
	b.WriteString(p.body)
	b.WriteString(p.tail)
}

// len is the bytes of the piece's text.
func (p piece) len() int { return len(p.head) + len(p.body) + len(p.tail) }

// summarize writes the summary of dropped (and of the summary in force).
// The material goes to the model in one call when it fits the window,
// otherwise in parts whose condensed notes are then merged. It returns the
// summary, the files included and the count of the summary record's
// message (summaryPreamble and the summary).
//
// prevSummary is the summary in force (nil = none), folded in; messages
// builds the request in force, for the file analyzer.
func (s *summarizer) summarize(ctx context.Context, prevSummary *entry, dropped []*entry, instructions string, messages func() []chat.Message) (string, []string, int, error) {
	prev := ""
	replaced := func(size func(*entry) int) int {
		n := 0
		for _, e := range dropped {
			n += size(e)
		}
		if prevSummary != nil {
			n += s.acct.countEntry(prevSummary)
		}
		return n
	}
	if prevSummary != nil {
		prev = summaryBody(messageContent(prevSummary.rec))
	}
	pieces := make([]piece, 0, len(dropped))
	for _, e := range dropped {
		if p, ok := s.render(e); ok {
			pieces = append(pieces, p)
		}
	}
	files := s.files(messages)
	prevTokens := 0
	if prevSummary != nil {
		// The summary record's count (stored with it) covers its body
		// and more: the preamble it drops outweighs any difference the
		// cut makes to the pieces at its edge.
		prevTokens = s.acct.countEntry(prevSummary)
	}
	text, included, asked, err := s.summarizePrefixed(ctx, prevSummary != nil, instructions, files)
	if !asked {
		text, included, err = s.summarizeMaterial(ctx, prev, prevTokens, pieces, instructions, files, 0)
	}
	if err != nil {
		return "", nil, 0, err
	}
	if text = privateAnalysisRemoved(text); text == "" {
		return "", nil, 0, fmt.Errorf("%w call: the answer held only the private analysis", errSummary)
	}
	n := s.acct.counter.Message(chat.Message{Role: chat.RoleUser, Content: summaryPreamble + "\n\n" + text})
	// The dropped part is counted only when the summary is not clearly
	// smaller: approx is at most about three times the exact count.
	if r := replaced(s.acct.approx); n >= r/4 {
		if r := replaced(s.acct.countEntry); n >= r {
			return "", nil, 0, fmt.Errorf("%w is not smaller than what it replaces (%d ≥ %d tokens)", errSummary, n, r)
		}
	}
	// The user's own words are added after that check: they are a part of
	// what is replaced, copied, within their own budget.
	if um := s.userMessages(prev, dropped); um != "" {
		text += um
		n = -1 // counted with the record
	}
	return text, included, n, nil
}

func (s *summarizer) summarizeMaterial(ctx context.Context, prev string, prevTokens int, pieces []piece, instructions string, files []fileanalyzer.File, depth int) (string, []string, error) {
	counter := s.acct.counter
	avail := s.summaryInputBudget()
	fixed := counter.Text(summarizerInstructions) + prevTokens + counter.Text(instructions) + 64
	material := 0
	for _, p := range pieces {
		material += p.tokens
	}
	if fixed+material <= avail {
		var fileText strings.Builder
		included := fitFiles(s, files, avail-fixed-material, &fileText)
		user := summaryRequestText(prev, pieces, fileText.String(), instructions, depth > 0)
		text, err := s.callSummarizer(ctx, summarizerInstructions, user)
		return text, included, err
	}
	if depth >= maxSummaryDepth {
		return "", nil, fmt.Errorf("%w: the material still does not fit the window after %d rounds", errSummary, depth)
	}
	partRoom := avail - counter.Text(partInstructions) - counter.Text(instructions) - 64
	if partRoom < 64 {
		return "", nil, fmt.Errorf("%w: the window is too small to summarise in parts", errSummary)
	}
	chunks := chunkPieces(pieces, partRoom)
	notes := make([]piece, 0, len(chunks))
	for i, chunk := range chunks {
		var b strings.Builder
		b.Grow(piecesLen(chunk) + len(instructions) + 160)
		fmt.Fprintf(&b, "Part %d of %d of the conversation, oldest first:\n\n", i+1, len(chunks))
		for _, p := range chunk {
			p.write(&b)
		}
		if instructions != "" {
			fmt.Fprintf(&b, "\n\nThe user asked that the summary follow these instructions: %s\n", instructions)
		}
		text, err := s.partNotes(ctx, b.String())
		if err != nil {
			return "", nil, fmt.Errorf("part %d of %d: %w", i+1, len(chunks), err)
		}
		note := fmt.Sprintf("### Notes on part %d of %d\n%s\n\n", i+1, len(chunks), text)
		notes = append(notes, piece{body: note, tokens: counter.Text(note)})
	}
	return s.summarizeMaterial(ctx, prev, prevTokens, notes, instructions, files, depth+1)
}

// fileBlocks renders the files for the summary request with their sizes.
// When their bytes fit room they need no counting (a token is at least a
// byte); otherwise they are counted exactly, in parallel: tokenizing a few
// thousand lines is the slowest local step of a compaction.
func (s *summarizer) fileBlocks(files []fileanalyzer.File, room int) ([]string, []int) {
	blocks := make([]string, len(files))
	sizes := make([]int, len(files))
	total := 0
	for i, f := range files {
		blocks[i] = fileBlock(f)
		sizes[i] = len(blocks[i])
		total += sizes[i]
	}
	if total <= room {
		return blocks, sizes
	}
	var wg sync.WaitGroup
	for i := range blocks {
		wg.Go(func() { sizes[i] = s.acct.counter.Text(blocks[i]) })
	}
	wg.Wait()
	return blocks, sizes
}

// summaryInputBudget is how much a summarization request may hold: the
// window less the summary's completion budget and a safety margin for the
// difference between our count and the server's.
func (s *summarizer) summaryInputBudget() int {
	w := s.guard.effective
	return w - s.guard.summaryMax() - w/20
}

// partNotes asks for the notes on one part of the material, or finds them
// in the CacheStore: when a later part or the merge fails, the retry (the
// next compaction) does not pay for the parts already condensed.
func (s *summarizer) partNotes(ctx context.Context, part string) (string, error) {
	key := ""
	if s.opt.Cache != nil {
		sum := sha256.Sum256([]byte(partInstructions + "\x00" + part))
		key = "ctxpart:" + s.opt.Model + ":" + hex.EncodeToString(sum[:])
		if v, ok := s.opt.Cache.Get(key); ok {
			if text, ok := v.(string); ok {
				return text, nil
			}
		}
	}
	text, err := s.callSummarizer(ctx, partInstructions, part)
	if err == nil && key != "" {
		s.opt.Cache.Add(key, text)
	}
	return text, err
}

// chunkPieces groups pieces into chunks of at most room tokens each; a
// single piece larger than room is split by bytes (a token is at least one
// byte, so room bytes are at most room tokens).
func chunkPieces(pieces []piece, room int) [][]piece {
	var chunks [][]piece
	var cur []piece
	size := 0
	flush := func() {
		if len(cur) > 0 {
			chunks = append(chunks, cur)
			cur, size = nil, 0
		}
	}
	for _, p := range pieces {
		if p.tokens > room {
			flush()
			for s := p.text(); s != ""; {
				part := cutUTF8(s, room)
				chunks = append(chunks, []piece{{body: part, tokens: len(part)}})
				s = s[len(part):]
			}
			continue
		}
		if size+p.tokens > room {
			flush()
		}
		cur = append(cur, p)
		size += p.tokens
	}
	flush()
	return chunks
}

func summaryRequestText(prev string, pieces []piece, files, instructions string, notes bool) string {
	var b strings.Builder
	b.Grow(len(prev) + piecesLen(pieces) + len(files) + len(instructions) + 1024) // the material is most of the window: no copy on the way
	if prev != "" {
		b.WriteString("UPDATE MODE. The conversation was compacted before: <previous-summary> is the summary in force, " +
			"and <conversation> is what happened since. Write ONE summary that merges both: keep everything from the previous " +
			"summary that still holds (requests, decisions, exact paths, commands, errors), update what changed, drop only what " +
			"is settled and no longer matters.\n\n")
		b.WriteString("<previous-summary>\n")
		b.WriteString(prev)
		b.WriteString("\n</previous-summary>\n\n")
	}
	if notes {
		b.WriteString("<conversation-notes>\nThe conversation was too long to read at once; these are notes on its consecutive parts, oldest first.\n\n")
	} else {
		b.WriteString("<conversation>\n")
	}
	for _, p := range pieces {
		p.write(&b)
	}
	if notes {
		b.WriteString("</conversation-notes>\n")
	} else {
		b.WriteString("</conversation>\n")
	}
	if files != "" {
		b.WriteString("\n<files>\nThe current content of the files this conversation touched most:\n\n")
		b.WriteString(files)
		b.WriteString("</files>\n")
	}
	b.WriteString("\nWrite the <analysis> and the <summary> now, as text; no tool calls.")
	if instructions != "" {
		// The user's instructions have the last word.
		b.WriteString("\n\nThe user gave instructions for this summary; they take precedence over everything above:\n")
		b.WriteString(instructions)
		b.WriteString("\n")
	}
	return b.String()
}

func fileBlock(f fileanalyzer.File) string {
	note := ""
	if f.Truncated {
		note = " (first lines only)"
	}
	return fmt.Sprintf("### %s%s\n```\n%s\n```\n\n", f.Path, note, strings.TrimRight(f.Content, "\n"))
}

// callSummarizer makes one summarization call of its own: the
// instructions system and the material user.
func (s *summarizer) callSummarizer(ctx context.Context, system, user string) (string, error) {
	return s.call(ctx, llm.Request{
		Model: s.opt.Model,
		Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: system},
			{Role: chat.RoleUser, Content: user},
		},
		MaxCompletionTokens: s.guard.summaryMax(),
	})
}

// call makes one summarization call, within the summary's timeout, and
// keeps what it used.
func (s *summarizer) call(ctx context.Context, req llm.Request) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opt.SummaryTimeout)
	defer cancel()
	resp, err := s.opt.LLM.Stream(ctx, req, func(llm.Delta) {})
	if err != nil {
		return "", fmt.Errorf("%w call: %w", errSummary, err)
	}
	s.used.Add(storage.Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens,
		CacheReadInputTokens: resp.Usage.CachedTokens})
	text := strings.TrimSpace(resp.Content)
	if text == "" {
		return "", fmt.Errorf("%w call: empty answer", errSummary)
	}
	return text, nil
}

// files asks the file analyzer which files' current content to include.
// Failing to read them is not worth failing the summary for.
func (s *summarizer) files(messages func() []chat.Message) []fileanalyzer.File {
	if s.opt.Root == "" {
		return nil
	}
	files, err := s.opt.Files(s.opt.Root, messages())
	if err != nil {
		s.notify(NoticeWarning, "could not read the files for the summary: %v", err)
		return nil
	}
	return files
}

// render writes one record of the material to summarise.
func (s *summarizer) render(e *entry) (piece, bool) {
	if e.cleared == storage.ClearStepCollapse {
		return piece{}, false // listed in the index after it, as the model last saw it
	}
	r := e.rec
	var head, body string
	limit := renderTextMax
	switch r.Type {
	case storage.TypeUser:
		head, body = "[user]\n", messageContent(r)
	case storage.TypeAssistant:
		head, body = "[assistant]\n", messageContent(r)
		if body == "" {
			return piece{}, false
		}
	case storage.TypeToolUse:
		head, body, limit = "[tool call "+r.Tool.Name+"] ", recordedArguments(r.Tool.Input), renderCallMax
	case storage.TypeToolResult:
		// A small window's summary call has room for less of each result.
		head, limit = "[tool result]\n", min(renderResultMax, max(s.guard.effective/4, 512))
		if e.cleared != "" {
			// Cleared by the ladder: its stub, as the model last saw it.
			return piece{head: head, body: e.trunc.ToolResult.Output, tail: "\n\n", tokens: s.acct.approx(e) + len(head) + 2}, true
		}
		if r.ToolResult.Error != "" {
			head = "[tool result, failed: " + cutUTF8(r.ToolResult.Error, 500) + "]\n"
		}
		body = r.ToolResult.Output
	default:
		return piece{}, false
	}
	// Sized by approx, not counted: the material only has to fit the
	// summarizer's budget, which keeps a margin of its own, and counting
	// every record the compaction drops was most of its local work.
	if len(body) <= limit && e.trunc == nil {
		// The record's own size covers its text; the label is a few bytes.
		return piece{head: head, body: body, tail: "\n\n", tokens: s.acct.approx(e) + len(head) + 2}, true
	}
	// Cut, the record's text is not copied but for the tail it keeps; the
	// label and the blank line are counted a token a byte, as above.
	kept, rest := truncatedParts(body, limit, "")
	return piece{head: head, body: kept, tail: rest + "\n\n", tokens: s.acct.approxText(kept) + s.acct.approxText(rest) + len(head) + 2}, true
}

// summaryBody strips the preamble and the recall note from a summary
// record's content.
func summaryBody(content string) string {
	if i := strings.Index(content, carriedStart); i >= 0 {
		content = content[:i]
	}
	if i := strings.LastIndex(content, recallNoteStart); i >= 0 {
		content = content[:i]
	}
	for _, p := range []string{summaryPreamble, fallbackPreamble, handoffPreamble, handoffDigestPreamble} {
		if rest, ok := strings.CutPrefix(content, p); ok {
			return strings.TrimSpace(rest)
		}
	}
	return content
}

// digest is the fallback's stand-in for a summary: the previous summary
// and the user's requests in the dropped part, most recent kept first when
// space runs out. Deterministic, no model involved.
func (s *summarizer) digest(prevSummary *entry, dropped []*entry) string {
	// In bytes: about twice the summary budget in tokens for ordinary text,
	// and commit cuts the retained part down if the digest weighs more.
	limit := 2 * s.guard.summaryMax()
	var users []string
	for _, e := range dropped {
		if e.rec.Type == storage.TypeUser {
			users = append(users, messageContent(e.rec))
		}
	}
	perRequest := min(max(limit/max(len(users), 1), 80), 300)
	var reqs []string
	for _, u := range users {
		if s := termtext.Flatten(u, perRequest); s != "" {
			reqs = append(reqs, "- "+s)
		}
	}
	var b strings.Builder
	if prevSummary != nil {
		if prev := summaryBody(messageContent(prevSummary.rec)); prev != "" {
			b.WriteString("Earlier summary:\n")
			b.WriteString(cutUTF8(prev, limit/2))
			b.WriteString("\n\n")
		}
	}
	if len(reqs) == 0 {
		b.WriteString("The user made no new requests in the compacted part.")
		return cutUTF8(b.String(), limit)
	}
	b.WriteString("The user's requests in the compacted part, oldest first:\n")
	room := limit - b.Len()
	first := len(reqs)
	for first > 0 && room-len(reqs[first-1])-1 >= 0 {
		first--
		room -= len(reqs[first]) + 1
	}
	if first > 0 {
		fmt.Fprintf(&b, "- (%d earlier requests left out)\n", first)
	}
	b.WriteString(strings.Join(reqs[first:], "\n"))
	return cutUTF8(b.String(), limit)
}

// privateAnalysisRemoved keeps what the summariser wrote for the record:
// the <summary> block when there is one, and never the private
// <analysis> (nor an analysis left unclosed by a cut answer).
func privateAnalysisRemoved(text string) string {
	if i := strings.Index(text, "<summary>"); i >= 0 {
		body := text[i+len("<summary>"):]
		if j := strings.LastIndex(body, "</summary>"); j >= 0 {
			body = body[:j]
		}
		return strings.TrimSpace(body)
	}
	for {
		i := strings.Index(text, "<analysis>")
		if i < 0 {
			break
		}
		j := strings.Index(text[i:], "</analysis>")
		if j < 0 {
			text = text[:i]
			break
		}
		text = text[:i] + text[i+j+len("</analysis>"):]
	}
	return strings.TrimSpace(text)
}

// piecesLen is the bytes of pieces' texts.
func piecesLen(pieces []piece) int {
	n := 0
	for _, p := range pieces {
		n += p.len()
	}
	return n
}
