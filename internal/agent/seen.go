package agent

import (
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/toolcall"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// restoreSeen gives a resumed session's tools back what its live context
// shows they saw: every Read, Write and Edit that succeeded (however the
// model spelt the name: toolcall.Classify) marks its file
// as seen at the time of its result record, so Edit works on a file the
// model read before the session was left, as long as nothing changed the
// file since (its modification time is not later). Calls compacted away
// are not restored: the model no longer has their content.
func restoreSeen(env *tools.Env, live *storage.Live) {
	paths := make(map[string]string) // tool call id → file_path
	for _, lr := range live.Records {
		r := lr.Record
		switch {
		case r.Type == storage.TypeToolUse && r.Tool != nil:
			c := toolcall.Classify(r.Tool.Name, r.Tool.Input)
			if c.ReadsOrChanges() && strings.TrimSpace(c.Path) != "" {
				paths[r.Tool.ID] = c.Path
			}
		case r.Type == storage.TypeToolResult && r.ToolResult != nil:
			p, ok := paths[r.ToolResult.ID]
			if !ok || r.ToolResult.Error != "" {
				continue
			}
			env.RestoreSeen(p, r.Timestamp)
		}
	}
}
