package acp

import (
	"context"
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// editorModes are the permission modes an editor's menu offers, as
// --permission-mode names them (bypass is reachable only from the
// command line's --dangerously-skip-permissions, and then listed too).
var editorModes = []struct {
	mode        tools.Mode
	name, about string
}{
	{tools.ModeDefault, "Default", "Ask before each change and command no rule allows"},
	{tools.ModeAcceptEdits, "Accept edits", "Write and Edit inside the project run without asking"},
	{tools.ModePlan, "Plan", "Read-only tools only: the model presents a plan, which you approve"},
}

// modeState is the session's modes for the client: those it may choose
// and the one in force.
func (s *session) modeState() *acpsdk.SessionModeState {
	current := s.eng.Modes.Mode()
	st := &acpsdk.SessionModeState{CurrentModeId: acpsdk.SessionModeId(current.String())}
	for _, m := range editorModes {
		about := m.about
		st.AvailableModes = append(st.AvailableModes, acpsdk.SessionMode{Id: acpsdk.SessionModeId(m.mode.String()), Name: m.name, Description: &about})
	}
	if current == tools.ModeBypass {
		about := "Every tool runs without asking (--dangerously-skip-permissions)"
		st.AvailableModes = append(st.AvailableModes, acpsdk.SessionMode{Id: acpsdk.SessionModeId(current.String()), Name: "Skip permissions", Description: &about})
	}
	s.mu.Lock()
	s.mode = current
	s.mu.Unlock()
	return st
}

// setMode is session/set_mode: one of the modes modeState offered.
func (s *session) setMode(id string) error {
	m, err := tools.ParseMode(id)
	if id == tools.ModeBypass.String() {
		m, err = tools.ModeBypass, nil
	}
	if err != nil {
		return invalidParams("%v", err)
	}
	if !s.eng.Modes.SetMode(m) {
		return invalidParams("mode %s can only be chosen by starting clawdcode with --dangerously-skip-permissions", id)
	}
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
	return nil
}

// reportMode tells the client of a mode it did not choose (a plan
// approved), once.
func (s *session) reportMode() {
	now := s.eng.Modes.Mode()
	s.mu.Lock()
	changed := now != s.mode
	s.mode = now
	s.mu.Unlock()
	if changed {
		s.notify(acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(now.String())}})
	}
}

// planChoices are the answers to a plan's approval, as the REPL's, and
// the mode each leaves plan mode for (ModePlan: keep planning).
var planChoices = []struct {
	id, name string
	kind     acpsdk.PermissionOptionKind
	mode     tools.Mode
}{
	{"approve", "Yes, approve: default mode (ask before each change)", acpsdk.PermissionOptionKindAllowOnce, tools.ModeDefault},
	{"approve-accept-edits", "Yes, approve: accept edits (Write and Edit in the project without asking)", acpsdk.PermissionOptionKindAllowAlways, tools.ModeAcceptEdits},
	{"keep-planning", "No, keep planning", acpsdk.PermissionOptionKindRejectOnce, tools.ModePlan},
}

var _ agent.PlanApprover = (*session)(nil)

// ApprovePlan puts the plan the model handed over (ExitPlanMode) to the
// editor as a permission question of the switch-mode kind, as the REPL
// puts it in its dialog: approved, plan mode is left — told to the
// client as the agent's own change of mode — and the model carries the
// plan out in the same turn; declined or cancelled, planning goes on and
// the turn ends. It runs on the turn's goroutine, which waits for it.
func (s *session) ApprovePlan(ctx context.Context, plan string) (agent.PlanAnswer, error) {
	s.plans++
	id := fmt.Sprintf("plan-approval-%d", s.plans)
	title := "Approve this plan and leave plan mode?"
	// Shown as a call first, so that every client has it to attach the
	// question to; answered, it is completed (approved) or failed.
	s.notify(acpsdk.SessionUpdate{ToolCall: &acpsdk.SessionUpdateToolCall{ToolCallId: acpsdk.ToolCallId(id), Title: title,
		Kind: acpsdk.ToolKindSwitchMode, Status: acpsdk.ToolCallStatusPending,
		Content: []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(clipText(plan)))}}})
	kind := acpsdk.ToolKindSwitchMode
	req := acpsdk.RequestPermissionRequest{SessionId: acpsdk.SessionId(s.id),
		ToolCall: acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(id), Title: &title, Kind: &kind}}
	for _, c := range planChoices {
		req.Options = append(req.Options, acpsdk.PermissionOption{OptionId: acpsdk.PermissionOptionId(c.id), Name: c.name, Kind: c.kind})
	}
	resp, err := s.srv.conn.RequestPermission(ctx, req)
	next := tools.ModePlan
	if err == nil && resp.Outcome.Selected != nil {
		for _, c := range planChoices {
			if string(resp.Outcome.Selected.OptionId) == c.id {
				next = c.mode
			}
		}
	}
	status := acpsdk.ToolCallStatusFailed
	if next != tools.ModePlan {
		status = acpsdk.ToolCallStatusCompleted
		// The engine leaves plan mode when this returns; the editor is
		// told now, once (reportMode then finds nothing changed).
		s.mu.Lock()
		s.mode = next
		s.mu.Unlock()
		s.notify(acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(next.String())}})
	}
	s.notify(acpsdk.SessionUpdate{ToolCallUpdate: &acpsdk.SessionToolCallUpdate{ToolCallId: acpsdk.ToolCallId(id), Status: &status}})
	if ctx.Err() != nil {
		return agent.PlanAnswer{Mode: tools.ModePlan}, ctx.Err()
	}
	return agent.PlanAnswer{Mode: next}, nil
}
