package contextmgr

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestMessagesPassTheStrictServer sends what buildMessages rebuilds from
// random, damaged record sequences through the real client to the
// in-repo server that enforces the API's ordering rules (and, stricter
// than the API, rejects two user messages in a row).
func TestMessagesPassTheStrictServer(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{RejectConsecutiveUser: true})
	srv.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "test", Retry: llm.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	ids := []string{"a", "b", "c", ""}
	texts := []string{"", "text"}
	for round := range 150 {
		var recs []*storage.Record
		for range rng.IntN(14) {
			id := ids[rng.IntN(len(ids))]
			switch rng.IntN(8) {
			case 0, 1:
				recs = append(recs, userRec(texts[rng.IntN(2)]))
			case 2:
				recs = append(recs, asstRec(texts[rng.IntN(2)]))
			case 3:
				recs = append(recs, useRec(id, []string{"Read", ""}[rng.IntN(2)], []string{`{}`, `"bad`, ``}[rng.IntN(3)]))
			case 4, 5:
				recs = append(recs, resultRec(id, texts[rng.IntN(2)], texts[rng.IntN(2)]))
			case 6:
				recs = append(recs, summaryRec("sum"))
			case 7:
				recs = append(recs, boundaryRec())
			}
		}
		msgs := append([]chat.Message{{Role: chat.RoleSystem, Content: "sys"}}, messagesOf(recs)...)
		if len(msgs) == 1 {
			msgs = append(msgs, chat.Message{Role: chat.RoleUser, Content: "hi"})
		}
		_, err := client.Stream(context.Background(), llm.Request{Model: "gpt-4o", Messages: msgs}, func(llm.Delta) {})
		if err != nil {
			t.Fatalf("round %d: the server rejected %v\nrecords %s: %v", round, msgs, describe(recs), err)
		}
	}
}

func describe(recs []*storage.Record) string {
	s := ""
	for _, r := range recs {
		s += r.Type
		switch {
		case r.Tool != nil:
			s += "(" + r.Tool.ID + "," + r.Tool.Name + ")"
		case r.ToolResult != nil:
			s += "(" + r.ToolResult.ID + ")"
		}
		s += " "
	}
	return s
}
