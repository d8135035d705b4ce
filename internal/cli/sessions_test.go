package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// sessionsEnv is a project directory and a CLAWDCODE_HOME with one session
// written through the real store.
type sessionsEnv struct {
	home, root, id string
}

func newSessionsEnv(t *testing.T, messages ...string) sessionsEnv {
	t.Helper()
	env := sessionsEnv{home: filepath.Join(t.TempDir(), "home"), root: t.TempDir()}
	p, err := storage.NewStore(env.home).Project(env.root)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := p.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range messages {
		r := &storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: m}}
		if i%2 == 1 {
			r.Type, r.Message.Role = storage.TypeAssistant, "assistant"
		}
		if _, err := sess.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	sess.SetTitle(messages[0])
	env.id = sess.ID()
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	return env
}

// run executes a command line in-process with ios, in env's project.
func (e sessionsEnv) run(t *testing.T, ios *iostreams.IOStreams, args ...string) int {
	t.Helper()
	f := NewFactory(ios)
	f.Getenv = func(string) string { return "" }
	f.Getwd = func() (string, error) { return e.root, nil }
	f.Home = func() (string, error) { return e.home, nil }
	return Run(context.Background(), f, args)
}

func TestSessionsRmAsksOnATerminal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		answer  string
		deleted bool
	}{{"y\n", true}, {"yes\n", true}, {"n\n", false}, {"\n", false}, {"", false}} {
		t.Run(strings.TrimSpace(tt.answer), func(t *testing.T) {
			t.Parallel()
			env := newSessionsEnv(t, "fix the parser", "done")
			ios, in, out, errOut := iostreams.Test()
			ios.SetTTY(true, true, true)
			in.WriteString(tt.answer)
			if code := env.run(t, ios, "sessions", "rm", env.id[:6]); code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if !strings.Contains(errOut.String(), "Delete session "+env.id+" (fix the parser)? [y/N] ") {
				t.Errorf("no question on stderr: %q", errOut)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", out)
			}
			p, _ := storage.NewStore(env.home).Project(env.root)
			_, err := os.Stat(p.Path(env.id))
			if gone := os.IsNotExist(err); gone != tt.deleted {
				t.Errorf("answer %q: file gone = %v, want %v", tt.answer, gone, tt.deleted)
			}
		})
	}
}

func TestSessionsListJSONAndTable(t *testing.T) {
	t.Parallel()
	env := newSessionsEnv(t, "explain the index", "it caches listings", "thanks")

	ios, _, out, errOut := iostreams.Test()
	if code := env.run(t, ios, "sessions", "--json"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("stdout is not a JSON array: %v\n%s", err, out)
	}
	if len(rows) != 1 {
		t.Fatalf("rows = %v", rows)
	}
	for _, k := range []string{"id", "title", "created", "updated", "messages", "tokens", "project"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("row lacks %q: %v", k, rows[0])
		}
	}
	if rows[0]["id"] != env.id || rows[0]["title"] != "explain the index" || rows[0]["messages"] != float64(3) {
		t.Errorf("row = %v", rows[0])
	}

	ios, _, out, _ = iostreams.Test()
	ios.SetTTY(false, true, false)
	if code := env.run(t, ios, "sessions", "list"); code != 0 {
		t.Fatal(code)
	}
	if !strings.Contains(out.String(), env.id[:8]+"  just now") {
		t.Errorf("a terminal gets relative times:\n%s", out)
	}
}

func TestUnknownSubcommand(t *testing.T) {
	t.Parallel()
	env := sessionsEnv{home: t.TempDir(), root: t.TempDir()}
	ios, _, out, errOut := iostreams.Test()
	if code := env.run(t, ios, "sessions", "lsit"); code != ExitUsage {
		t.Errorf("exit %d, want %d", code, ExitUsage)
	}
	want := "clawdcode: unknown command \"lsit\" for \"clawdcode sessions\"\n  `clawdcode sessions --help` lists its commands\n"
	if errOut.String() != want || out.Len() != 0 {
		t.Errorf("stderr %q stdout %q, want stderr %q", errOut, out, want)
	}
}

// `sessions list --json` is written by the JSON v2 implementation, byte
// for byte as encoding/json's indenting Encoder wrote it (HTML characters
// escaped, empty strings and times kept, the parent left out when there
// is none), but for invalid UTF-8 (a project path may hold it), which
// both replace by U+FFFD, encoding/json as an escape: the same JSON.
func TestSessionsListJSONIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 8, 0, 0, 123456789, time.UTC)
	for _, rows := range [][]sessionRow{
		nil,
		{},
		{{ID: "a", Title: `<b> & "quotes" \ é` + "\u2028\x01", Created: at, Updated: at.Add(time.Hour), Messages: 3, Tokens: 1200, Project: "/p"}},
		{{ID: "b"}, {ID: "c", Parent: "b", Title: "sub", Created: at, Updated: at, Project: "/p"}},
		{{ID: "d", Title: "bad \xff byte", Project: "/p\xfe"}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := jsonv2.MarshalWrite(&got, rows, listJSONOptions); err != nil {
			t.Fatal(err)
		}
		got.WriteByte('\n')
		if strings.ContainsRune(want.String(), '\\') && strings.Contains(want.String(), `\ufffd`) {
			var g, w []sessionRow
			if json.Unmarshal(got.Bytes(), &g) != nil || json.Unmarshal(want.Bytes(), &w) != nil || !reflect.DeepEqual(g, w) {
				t.Errorf("rows %+v:\n got %s\nwant %s", rows, got.String(), want.String())
			}
			continue
		}
		if got.String() != want.String() {
			t.Errorf("rows %+v:\n got %s\nwant %s", rows, got.String(), want.String())
		}
	}
}
