package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestRecordErrorsSayItOnce: the conversation's errors already name the
// record they could not append and the file; the loop adds only what it
// alone knows (which tool), never a second "record …".
func TestRecordErrorsSayItOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role string
		want string
	}{
		{chat.RoleUser, "append user record: write /s/x.jsonl: file too large"},
		{chat.RoleAssistant, "append assistant record: write /s/x.jsonl: file too large"},
		{chat.RoleTool, "Read result: append tool_result record: write /s/x.jsonl: file too large"},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			t.Parallel()
			steps := []step{callTools(call("c1", "Read", `{"path":"a"}`)), say("done")}
			l, conv, _, _, _ := newTestLoop(steps...)
			name := tt.role
			if name == chat.RoleTool {
				name = "tool_result"
			}
			conv.failRole = tt.role
			conv.failErr = errors.New("append " + name + " record: write /s/x.jsonl: file too large")
			_, err := l.run(t.Context(), "hi")
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if !errors.Is(err, conv.failErr) {
				t.Errorf("the conversation's error is not wrapped: %v", err)
			}
		})
	}
}

// TestCreateErrorSaysItOnce: a session that cannot be created is reported
// by the store's own "create session: …", not wrapped in a second one.
func TestCreateErrorSaysItOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	home := filepath.Join(t.TempDir(), "home")
	proj, err := storage.NewStore(home).Project(w.root)
	if err != nil {
		t.Fatal(err)
	}
	// The home turns into a file after Project (which writes nothing), so
	// the first Create is what fails.
	if err := os.WriteFile(home, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.proj = proj
	e := w.engine(t, nil, 0)
	_, err = e.Turns().Submit(t.Context(), "hello", &recSink{})
	if err == nil {
		t.Fatal("Submit with an unusable home: no error")
	}
	if n := strings.Count(err.Error(), "create session"); n != 1 {
		t.Errorf("%q says \"create session\" %d times, want once", err, n)
	}
	if !strings.Contains(err.Error(), home) {
		t.Errorf("%q does not name the path that failed", err)
	}
}

// TestSessionLogAppendBatch: the engine's log hands a batch to the session
// as one, and refuses it without a session or after close, like Append.
func TestSessionLogAppendBatch(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	if _, err := (&sessionLog{}).AppendBatch(&storage.Record{Type: storage.TypeUser}); !errors.Is(err, ErrNoSession) {
		t.Errorf("without a session: %v, want ErrNoSession", err)
	}
	sess, err := w.proj.Create(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	log := &sessionLog{sess: sess}
	a := &storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "a"}}
	b := &storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "b"}}
	offs, err := log.AppendBatch(a, b)
	if err != nil || len(offs) != 2 || offs[0] != 0 || offs[1] <= 0 {
		t.Fatalf("AppendBatch = %v, %v", offs, err)
	}
	if b.ParentUUID == nil || *b.ParentUUID != a.UUID {
		t.Errorf("the second record's parent is %v, want %s", b.ParentUUID, a.UUID)
	}
	log.closed = true
	if _, err := log.AppendBatch(a); !errors.Is(err, ErrClosed) {
		t.Errorf("after close: %v, want ErrClosed", err)
	}
}
