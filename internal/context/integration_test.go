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
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// TestWithTheRealStoreCounterAndAnalyzer runs a session through the real
// parts: a session file of the store, tiktoken, the file analyzer. It
// compacts, resumes from the file as -c does, and checks the request is
// the same and the summary request carried the edited file.
func TestWithTheRealStoreCounterAndAnalyzer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	writeFile(t, root, "lexer.go", "package lexer\n\n// Next returns the next <token>.\nfunc Next() string { return \"tok\" }\n")
	proj, err := storage.NewStore(t.TempDir()).Project(root)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := proj.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	summarizer := &fakeLLM{}
	opt := Options{
		Model:  "gpt-4o",
		Window: 3000,
		System: "You are clawdcode, a coding assistant.",
		Tools:  []chat.ToolDef{{Name: "Edit", Description: "edit a file", Parameters: []byte(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)}},
		Root:   root,
		LLM:    summarizer,
	}
	m, err := New(ctx, sess, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; m.Compactions() == 0; i++ {
		if i > 40 {
			t.Fatal("no compaction")
		}
		if err := m.AddUser(fmt.Sprintf("step %d: please change the lexer so that <tokens> & words %s", i, strings.Repeat("are split ", 30))); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Request(ctx); err != nil {
			t.Fatal(err)
		}
		call := chat.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "Edit", Arguments: `{"file_path": "lexer.go", "old_string": "<a>", "new_string": "b"}`}
		if err := m.AddAssistant(&llm.Response{Content: "Editing.", ToolCalls: []chat.ToolCall{call}}); err != nil {
			t.Fatal(err)
		}
		if err := m.AddToolResult(call.ID, strings.Repeat("edited line\n", 40), ""); err != nil {
			t.Fatal(err)
		}
	}
	body := summarizer.last().Messages[1].Content
	if !strings.Contains(body, "### lexer.go") || !strings.Contains(body, "func Next() string") {
		t.Error("the summary request lacks the current content of the edited file")
	}
	if err := m.AddUser("and now?"); err != nil {
		t.Fatal(err)
	}
	want, err := m.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := tokens.NewCounter("gpt-4o").Messages(want.Messages); n >= m.guard.trigger() {
		t.Errorf("request of %d tokens after compaction, trigger %d", n, m.guard.trigger())
	}

	live, err := storage.LoadLive(ctx, sess.Path())
	if err != nil {
		t.Fatal(err)
	}
	if live.Boundary == nil || live.Summary == nil || !reflect.DeepEqual(live.Summary.CompactMetadata.FilesIncluded, []string{"lexer.go"}) {
		t.Fatalf("loaded boundary %+v summary %+v", live.Boundary, live.Summary)
	}
	m2, err := New(ctx, sess, live, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m2.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Messages, want.Messages) {
		t.Errorf("resumed request differs:\n got %v\nwant %v", got.Messages, want.Messages)
	}
}
