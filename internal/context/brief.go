package contextmgr

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// BriefForms are the brief forms of the system prompt and the tool
// definitions that a front end offers for small windows (the agent's
// brief system prompt, tools.BriefDefinition). Which forms a session
// sends is chosen once, when it starts (chooseForms), and recorded, so a
// session's system prompt and tools never change under it and a resume
// sends the very same request bytes.
type BriefForms struct {
	System string
	Tools  []chat.ToolDef
}

// briefShare is the share of the trigger above which the full system
// prompt and tools are too heavy for a new session: at 4k the full
// forms (about 2.3k tokens) would leave the conversation under a third
// of the trigger. Below it the full forms stay: at 8k they take a third
// of the trigger, and the ladder (with its collapse step) finishes there
// at 0.025 summaries a call with them.
const briefShare = 0.5

// formsState is which forms the session sends, and whether its file
// says so yet.
type formsState struct {
	brief    bool
	recorded bool
}

// chooseForms decides which forms a session sends, and puts the brief
// ones in opt when it is them: a session with records sends what they
// say it started with (a brief_forms record, or a boundary that carries
// briefForms), whatever the window now; a new one the brief forms when
// the full ones would take more than briefShare of the trigger.
func chooseForms(opt *Options, live *storage.Live) formsState {
	if opt.Brief == nil {
		return formsState{}
	}
	var s formsState
	if live != nil && (live.Boundary != nil || len(live.Records) > 0) {
		s = formsState{brief: recordedBrief(live), recorded: true}
	} else {
		g := newWindowGuard(*opt)
		full := replyPriming + estimateMessage(opt.Estimate, chat.Message{Role: chat.RoleSystem, Content: opt.System})
		b, _ := json.Marshal(opt.Tools)
		full += opt.Estimate(string(b))
		s.brief = float64(full) > briefShare*float64(g.trigger())
	}
	if s.brief {
		opt.System, opt.Tools = opt.Brief.System, briefTools(opt.Tools, opt.Brief.Tools)
	}
	return s
}

// recordedBrief reports whether the records of live say the session
// sends the brief forms.
func recordedBrief(live *storage.Live) bool {
	if b := live.Boundary; b != nil && b.CompactMetadata != nil && b.CompactMetadata.BriefForms {
		return true
	}
	for _, lr := range live.Records {
		if r := lr.Record; r != nil && r.Type == storage.TypeSystem && r.Subtype == storage.SubtypeBriefForms {
			return true
		}
	}
	return false
}

// briefTools is defs with each tool that has a brief form in brief in
// that form (an MCP server's tools have none, and stay as they are).
func briefTools(defs, brief []chat.ToolDef) []chat.ToolDef {
	out := make([]chat.ToolDef, len(defs))
	for i, d := range defs {
		out[i] = d
		for _, b := range brief {
			if b.Name == d.Name {
				out[i] = b
				break
			}
		}
	}
	return out
}

// recordForms writes, right after a new session's first record and before
// any request, that it sends the brief forms (nothing when it sends the
// full ones: no record is what every session before format 1.14 says). A
// crash between the two leaves a session that never sent anything with
// the brief forms: it goes on with the full ones. The first line of the
// file stays the session's first message.
func recordForms(log PersistentStore, s *formsState) error {
	if !s.brief || s.recorded {
		return nil
	}
	r := &storage.Record{UUID: uuid.NewString(), Type: storage.TypeSystem, Subtype: storage.SubtypeBriefForms}
	if _, err := log.Append(r); err != nil {
		return fmt.Errorf("record the brief system prompt and tools: %w", err)
	}
	s.recorded = true
	return nil
}
