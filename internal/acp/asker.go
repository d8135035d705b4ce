package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// The options of a permission question, as the REPL's: once, always (for
// this session, the narrowest rules the policy proposes) or not.
const (
	optionAllowOnce   = "allow-once"
	optionAllowAlways = "allow-always"
	optionReject      = "reject"
)

var _ tools.Asker = (*session)(nil)

// askSeq names the rare question about a call that came without an id.
var askSeq atomic.Int64

// Ask puts the policy's question to the client (session/request_permission)
// wherever the REPL would ask: the call is shown first, pending, with its
// diff. "Always" is the policy's own AllowAlways, which adds the rules it
// proposes for the call; a rejection becomes the policy's denial, which
// the model reads as it does the REPL's. A client that answers the question
// as cancelled has cancelled the turn: the turn ends as interrupted.
func (s *session) Ask(ctx context.Context, tool tools.Tool, input json.RawMessage) (tools.Decision, error) {
	id := tools.CallID(ctx)
	if id == "" {
		id = fmt.Sprintf("ask-%d", askSeq.Add(1))
	}
	s.announce(ctx, id, tool.Name(), input, acpsdk.ToolCallStatusPending)
	// The Notification hooks run as they do for the REPL's dialog.
	if s.eng != nil && s.eng.Turns != nil {
		s.eng.Turns.Notify(ctx, agent.NotifyPermission, agent.PermissionMessage(tool.Name()))
	}
	title := tool.Describe(input)
	resp, err := s.srv.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(s.id),
		ToolCall:  acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(id), Title: &title},
		Options:   s.permissionOptions(tool, input),
	})
	switch {
	case ctx.Err() != nil:
		return tools.Deny, ctx.Err()
	case err != nil:
		return tools.Deny, fmt.Errorf("the editor did not answer: %w", err)
	case resp.Outcome.Cancelled != nil:
		s.cancelTurn()
		return tools.Deny, context.Canceled
	case resp.Outcome.Selected == nil:
		return tools.Deny, nil
	}
	switch string(resp.Outcome.Selected.OptionId) {
	case optionAllowOnce:
		return tools.AllowOnce, nil
	case optionAllowAlways:
		return tools.AllowAlways, nil
	}
	return tools.Deny, nil
}

// permissionOptions are a question's answers; "always" names the rules
// it adds, as the REPL's dialog does.
func (s *session) permissionOptions(tool tools.Tool, input json.RawMessage) []acpsdk.PermissionOption {
	always := "Always allow " + tool.Name() + " in this session"
	if s.eng != nil && s.eng.Propose != nil {
		var rules []string
		for _, r := range s.eng.Propose(tool, input) {
			rules = append(rules, r.String())
		}
		if len(rules) > 0 {
			always = "Always allow " + strings.Join(rules, ", ") + " in this session"
		}
	}
	return []acpsdk.PermissionOption{
		{OptionId: optionAllowOnce, Name: "Allow once", Kind: acpsdk.PermissionOptionKindAllowOnce},
		{OptionId: optionAllowAlways, Name: always, Kind: acpsdk.PermissionOptionKindAllowAlways},
		{OptionId: optionReject, Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce},
	}
}
