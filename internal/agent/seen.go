package agent

import (
	"encoding/json"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// restoreSeen gives a resumed session's tools back what its live context
// shows they saw: every Read, Write and Edit that succeeded marks its file
// as seen at the time of its result record, so Edit works on a file the
// model read before the session was left, as long as nothing changed the
// file since (its modification time is not later). Calls compacted away
// are not restored: the model no longer has their content.
func restoreSeen(env *tools.Env, set []tools.Tool, live *storage.Live) {
	paths := make(map[string]string) // tool call id → file_path
	for _, lr := range live.Records {
		r := lr.Record
		switch {
		case r.Type == storage.TypeToolUse && r.Tool != nil:
			t, ok := tools.Lookup(set, r.Tool.Name)
			if !ok {
				continue
			}
			switch t.Name() {
			case tools.NameRead, tools.NameWrite, tools.NameEdit:
			default:
				continue
			}
			var in struct {
				FilePath string `json:"file_path"`
			}
			if json.Unmarshal(r.Tool.Input, &in) == nil && strings.TrimSpace(in.FilePath) != "" {
				paths[r.Tool.ID] = in.FilePath
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
