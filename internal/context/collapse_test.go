package contextmgr

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// indexOf is the index the request sends for folded rounds ("" = none).
func indexOf(msgs []chat.Message) string {
	for _, m := range msgs {
		if m.Role == chat.RoleTool && strings.Contains(m.Content, "one line each; Recall ref shows what it returned") {
			return m.Content
		}
	}
	return ""
}

// TestLadderFoldsOldRoundsBeforeItSummarises: at a small window, reads
// past what clearing can free are folded — their rounds leave the request
// and one index lists each with its ref — before any summary; the request
// stays a valid sequence of tool rounds, and a resume from the file sends
// the very same messages.
func TestLadderFoldsOldRoundsBeforeItSummarises(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 6000)
	m := s.open(false)
	must(t, m.AddUser("read the files"))
	var req llm.Request
	for i := 0; indexOf(req.Messages) == ""; i++ {
		if i == 200 {
			t.Fatalf("nothing was folded after 200 reads (%d compactions, %d stubs, %d tokens)", m.Compactions(), len(stubs(req.Messages)), m.acct.requestTokens(exact))
		}
		readTurn(t, m, fmt.Sprint("c", i), fmt.Sprintf("src/f%d.go", i), strings.Repeat(fmt.Sprintf("max_bytes = %d\n", 4096+i), 60))
		var err error
		if req, err = m.Request(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if s.sum.calls() != 0 || m.Compactions() != 0 {
		t.Errorf("%d summary calls, %d compactions: folding must come first", s.sum.calls(), m.Compactions())
	}
	index := indexOf(req.Messages)
	if !strings.Contains(index, "Read src/f0.go; max_bytes = 4096; max_bytes = 4096 ref=") {
		t.Errorf("the index does not list the first read with its number and ref:\n%s", index)
	}
	calls, results := 0, 0
	for _, msg := range req.Messages {
		calls += len(msg.ToolCalls)
		if msg.Role == chat.RoleTool {
			results++
		}
	}
	if calls != results {
		t.Errorf("%d calls and %d results: the request must keep whole tool rounds", calls, results)
	}
	if !hasStepRecord(fileRecords(t, s.sess.Path()), storage.ClearStepCollapse) {
		t.Error("no context_clear record of the collapse step")
	}
	m2 := s.open(true)
	got, err := m2.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Messages, req.Messages) {
		t.Errorf("the resumed request differs:\n got %.800v\nwant %.800v", got.Messages, req.Messages)
	}
}

func hasStepRecord(recs []*storage.Record, step string) bool {
	for _, r := range recs {
		if r.Subtype == storage.SubtypeContextClear && r.CompactMetadata != nil {
			for _, s := range r.CompactMetadata.Cleared {
				if s == step {
					return true
				}
			}
		}
	}
	return false
}
