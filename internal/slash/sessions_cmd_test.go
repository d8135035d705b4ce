package slash

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// seedProject creates sessions in a real project on disk, oldest first,
// and returns their ids in that order.
func seedProject(t *testing.T, titles ...string) (*storage.Project, []string) {
	t.Helper()
	proj, err := storage.NewStore(t.TempDir()).Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i, title := range titles {
		sess, err := proj.Create(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Hour)
		for _, r := range []*storage.Record{
			{Type: storage.TypeUser, Timestamp: at, Message: &storage.Message{Role: "user", Content: title}},
			{Type: storage.TypeAssistant, Timestamp: at.Add(time.Minute), Message: &storage.Message{Role: "assistant", Content: "ok"}},
		} {
			if _, err := sess.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, sess.ID())
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return proj, ids
}

func TestSessionsCommand(t *testing.T) {
	t.Parallel()
	proj, ids := seedProject(t, "fix the parser", "add a flag", "write docs")
	e := &fakeEngine{project: proj, id: ids[1]}
	env, out := testEnv(e)
	if err := Default().Run(t.Context(), env, "/sessions"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("/sessions printed:\n%s", out)
	}
	// Newest first, the current one marked, with updated time and count.
	for i, want := range []string{"  " + termtext.ShortID(ids[2]), "* " + termtext.ShortID(ids[1]), "  " + termtext.ShortID(ids[0])} {
		if !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("row %d = %q, want it to start %q", i, lines[i+1], want)
		}
	}
	if !strings.Contains(lines[1], "write docs") || !strings.Contains(lines[1], " 2 ") {
		t.Errorf("row = %q", lines[1])
	}

	empty, _ := seedProject(t)
	env, out = testEnv(&fakeEngine{project: empty})
	if err := Default().Run(t.Context(), env, "/sessions"); err != nil || out.String() != "No sessions in this project yet.\n" {
		t.Fatalf("empty project: %q, %v", out, err)
	}
}

func TestSwitchCommand(t *testing.T) {
	t.Parallel()
	proj, ids := seedProject(t, "fix the parser", "fix CI", "write docs")
	tests := []struct {
		query   string
		resumed string
		out     string
		err     string
	}{
		{query: "write", resumed: ids[2], out: "Switched to session " + termtext.ShortID(ids[2]) + " (write docs), 2 messages.\n"},
		{query: ids[0][:6], resumed: ids[0]},
		{query: "Fix The", resumed: ids[0]},
		{query: "fix", err: `"fix" matches 2 sessions`},
		{query: "nothing like it", err: `no session "nothing like it" in this project`},
		{query: "", err: "usage: /switch <id-prefix or title-prefix>"},
	}
	for _, tt := range tests {
		e := &fakeEngine{project: proj}
		env, out := testEnv(e)
		err := Default().Run(t.Context(), env, "/switch "+tt.query)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || len(e.resumed) != 0 {
				t.Errorf("/switch %q: err = %v, resumed %v", tt.query, err, e.resumed)
			}
			continue
		}
		if err != nil || len(e.resumed) != 1 || e.resumed[0] != tt.resumed {
			t.Errorf("/switch %q: err = %v, resumed %v, want %s", tt.query, err, e.resumed, tt.resumed)
		}
		if tt.out != "" && out.String() != tt.out {
			t.Errorf("/switch %q printed %q, want %q", tt.query, out, tt.out)
		}
	}

	// The ambiguous error lists both candidates.
	env, _ := testEnv(&fakeEngine{project: proj})
	err := Default().Run(t.Context(), env, "/switch fix")
	if err == nil || !strings.Contains(err.Error(), termtext.ShortID(ids[0])) || !strings.Contains(err.Error(), termtext.ShortID(ids[1])) {
		t.Fatalf("ambiguous: %v", err)
	}
	// Switching to the current session changes nothing.
	e := &fakeEngine{project: proj, id: ids[2]}
	env, out := testEnv(e)
	if err := Default().Run(t.Context(), env, "/switch write"); err != nil || len(e.resumed) != 0 || !strings.HasPrefix(out.String(), "Already in session") {
		t.Fatalf("switch to current: %q, %v, resumed %v", out, err, e.resumed)
	}
	// A resume failure (the session is open elsewhere) surfaces.
	e = &fakeEngine{project: proj, err: storage.ErrSessionBusy}
	env, _ = testEnv(e)
	if err := Default().Run(t.Context(), env, "/switch write"); !errors.Is(err, storage.ErrSessionBusy) {
		t.Fatalf("busy: err = %v", err)
	}
}

func TestResumeCommand(t *testing.T) {
	t.Parallel()
	proj, ids := seedProject(t, "fix the parser", "write docs")

	t.Run("not interactive lists and says how", func(t *testing.T) {
		t.Parallel()
		e := &fakeEngine{project: proj}
		env, out := testEnv(e)
		if err := Default().Run(t.Context(), env, "/resume"); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{termtext.ShortID(ids[0]), termtext.ShortID(ids[1]), "clawdcode -r <id>"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("/resume output lacks %q:\n%s", want, out)
			}
		}
		if len(e.resumed) != 0 {
			t.Fatal("resumed without being asked")
		}
	})
	t.Run("picker", func(t *testing.T) {
		t.Parallel()
		e := &fakeEngine{project: proj}
		env, out := testEnv(e)
		var offered []string
		env.Pick = func(_ context.Context, list []storage.SessionInfo) (string, error) {
			for _, s := range list {
				offered = append(offered, s.ID)
			}
			return ids[0], nil
		}
		if err := Default().Run(t.Context(), env, "/resume"); err != nil {
			t.Fatal(err)
		}
		if len(offered) != 2 || offered[0] != ids[1] || len(e.resumed) != 1 || e.resumed[0] != ids[0] {
			t.Fatalf("offered %v, resumed %v", offered, e.resumed)
		}
		if !strings.HasPrefix(out.String(), "Switched to session "+termtext.ShortID(ids[0])) {
			t.Fatalf("printed %q", out)
		}
	})
	t.Run("picker cancelled", func(t *testing.T) {
		t.Parallel()
		e := &fakeEngine{project: proj}
		env, out := testEnv(e)
		env.Pick = func(context.Context, []storage.SessionInfo) (string, error) { return "", nil }
		if err := Default().Run(t.Context(), env, "/resume"); err != nil || len(e.resumed) != 0 || out.Len() != 0 {
			t.Fatalf("err %v, resumed %v, out %q", err, e.resumed, out)
		}
	})
}
