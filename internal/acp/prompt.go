package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// Prompt is session/prompt: one turn, its events streamed as updates, its
// end said by the stop reason. A prompt that starts with /name runs the
// command as the REPL would. The turn's context is the session's own
// (session/cancel, the connection's end), not the request's.
func (s *server) Prompt(_ context.Context, req acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	sess, err := s.session(s.life, string(req.SessionId))
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	text, images, err := promptContent(req.Prompt)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	ctx, end, err := sess.begin()
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	defer end()
	if name, _, ok := slash.Parse(text); ok {
		if expanded, ok := sess.eng.Commands.Expand(text); ok {
			text = expanded
		} else {
			return sess.runCommand(ctx, name, text), nil
		}
	}
	return sess.runTurn(ctx, text, images)
}

// runTurn submits one message and says how the turn ended.
func (s *session) runTurn(ctx context.Context, text string, images []chat.Image) (acpsdk.PromptResponse, error) {
	before := s.eng.Context.Spend()
	sink := newTurnSink(ctx, s)
	res, err := s.eng.Turns.SubmitImages(ctx, text, images, sink)
	stop, err := stopReason(ctx, res, err)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	s.turns++
	cost := turnSpend(before, s.eng.Context.Spend(), res)
	return acpsdk.PromptResponse{StopReason: stop, Meta: s.reportUsage(&cost)}, nil
}

// stopReason is how a turn that returned res and err ended, in the
// protocol's words: a reply cut at its max tokens is max_tokens, one the
// server's filter stopped a refusal. An error that is no way a turn ends
// (the model server failed, a record could not be written) is the
// request's error, its message the engine's.
func stopReason(ctx context.Context, res *agent.TurnResult, err error) (acpsdk.StopReason, error) {
	switch {
	case err == nil && res != nil && res.FinishReason == "length":
		return acpsdk.StopReasonMaxTokens, nil
	case err == nil && res != nil && res.FinishReason == "content_filter":
		return acpsdk.StopReasonRefusal, nil
	case err == nil:
		return acpsdk.StopReasonEndTurn, nil
	case errors.Is(err, agent.ErrInterrupted), ctx.Err() != nil && errors.Is(err, context.Canceled):
		return acpsdk.StopReasonCancelled, nil
	case errors.Is(err, agent.ErrMaxTurns):
		return acpsdk.StopReasonMaxTurnRequests, nil
	case errors.Is(err, agent.ErrEmptyMessage):
		return "", invalidParams("the prompt has no text")
	}
	return "", internalError(err)
}

// promptContent is a prompt's blocks as the engine takes a message: the
// text, in order, with each embedded resource's text quoted and each link
// named (a file as @path, which attaches an image file as the REPL does),
// and the images apart. Audio is refused: it was not offered.
func promptContent(blocks []acpsdk.ContentBlock) (string, []chat.Image, error) {
	var b strings.Builder
	var images []chat.Image
	sep := func() {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
	}
	for _, block := range blocks {
		switch {
		case block.Text != nil:
			sep()
			b.WriteString(block.Text.Text)
		case block.Image != nil:
			data, err := base64.StdEncoding.DecodeString(block.Image.Data)
			if err != nil {
				return "", nil, invalidParams("an image block's data is not base64: %v", err)
			}
			images = append(images, chat.Image{MediaType: block.Image.MimeType, Data: data})
		case block.ResourceLink != nil:
			sep()
			b.WriteString(linkText(block.ResourceLink.Uri, block.ResourceLink.Name))
		case block.Resource != nil:
			sep()
			b.WriteString(resourceText(block.Resource.Resource))
		case block.Audio != nil:
			return "", nil, invalidParams("audio prompts are not supported (promptCapabilities.audio is false)")
		}
	}
	return b.String(), images, nil
}

// linkText names a linked resource: a file as @path (the engine attaches
// an image file so named), anything else by its URI.
func linkText(uri, name string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" && u.Path != "" {
		return "@" + strings.ReplaceAll(u.Path, " ", `\ `)
	}
	if name != "" && name != uri {
		return fmt.Sprintf("%s (%s)", name, uri)
	}
	return uri
}

// resourceText quotes an embedded resource's text (the editor's selection
// or file, as the user attached it); a binary one is only named.
func resourceText(r acpsdk.EmbeddedResourceResource) string {
	if t := r.TextResourceContents; t != nil {
		fence := "```"
		for strings.Contains(t.Text, fence) {
			fence += "`"
		}
		return fmt.Sprintf("Attached %s:\n%s\n%s\n%s", displayURI(t.Uri), fence, strings.TrimRight(t.Text, "\n"), fence)
	}
	if blob := r.BlobResourceContents; blob != nil {
		return fmt.Sprintf("(attached %s, binary, not shown)", displayURI(blob.Uri))
	}
	return ""
}

// displayURI is a file URI's path, any other URI as it is.
func displayURI(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" && u.Path != "" {
		return u.Path
	}
	return uri
}

// turnSpend is what one turn cost: the session's spend after it less
// before (its summary calls' and subagents' included).
func turnSpend(before, after spendFigures, res *agent.TurnResult) turnCost {
	c := turnCost{Priced: after.Priced}
	add := func(u storage.Usage, sign int) {
		c.Input += sign * u.InputTokens
		c.Output += sign * u.OutputTokens
		c.Cached += sign * u.CacheReadInputTokens
	}
	for _, u := range []storage.Usage{after.Session, after.Summaries, after.Subagents} {
		add(u, 1)
	}
	for _, u := range []storage.Usage{before.Session, before.Summaries, before.Subagents} {
		add(u, -1)
	}
	if c.Input == 0 && c.Output == 0 && res != nil {
		c.Input, c.Output = res.Usage.InputTokens, res.Usage.OutputTokens
	}
	if c.Priced {
		c.USD = after.Price.Cost(c.Input, c.Cached, c.Output)
	}
	return c
}
