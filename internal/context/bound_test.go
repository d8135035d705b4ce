package contextmgr

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// TestBoundsHoldForTheRealCounter checks the premise of never tokenizing
// below the trigger: the cheap bounds are never below the real counts, for
// the contract's tool definitions and for every kind of record.
func TestBoundsHoldForTheRealCounter(t *testing.T) {
	t.Parallel()
	var defs []chat.ToolDef
	for _, tl := range tools.Set(tools.NewEnv(t.TempDir())) {
		defs = append(defs, tl.Definition())
	}
	texts := []string{"", "hello", strings.Repeat("func main() {}\n", 50), "你好，世界。これは日本語です。", "\xff\xfe broken utf-8 \xc3", strings.Repeat(" ", 300), "émigré naïve café"}
	for _, model := range []string{"gpt-4o", "gpt-4", "llama3"} {
		c := tokens.NewCounter(model)
		if ub, n := toolsUpperBound(defs), c.Tools(defs); ub < n {
			t.Errorf("%s: tools bound %d < count %d", model, ub, n)
		}
		for _, s := range texts {
			for _, r := range []*storage.Record{
				userRec(s), asstRec(s), summaryRec(s),
				useRec("call_1", "Bash", string(toolInput(`{"command":"`+strings.ReplaceAll(s, `"`, "")+`"}`))),
				resultRec("call_1", s, ""), resultRec("call_1", s, "exit status 1"),
			} {
				msg := recordMessage(r)
				if ub, n := tokens.MessageUpperBound(msg), c.Message(msg); ub < n {
					t.Errorf("%s: %s record %.20q: bound %d < count %d", model, r.Type, s, ub, n)
				}
			}
		}
		if ub, n := tokens.MessageUpperBound(interruptedAnswer), c.Message(interruptedAnswer); ub < n {
			t.Errorf("%s: stand-in answer bound %d < count %d", model, ub, n)
		}
	}
}
