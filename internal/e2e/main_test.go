package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == noLandlockArg {
		os.Exit(execWithoutLandlock(os.Args[2:]))
	}
	os.Exit(harness.Main(m, os.Stderr, "e2e"))
}

// world is one isolated user (see harness.World) whose API key names the
// test, so that a leak of it can be found anywhere.
type world struct{ *harness.World }

func newWorld(t *testing.T, opts llmtest.Options) *world {
	t.Helper()
	w := &world{harness.NewWorld(t, opts)}
	w.Key = "sk-e2e-" + strings.ReplaceAll(t.Name(), "/", "-") + "-SECRETMARKER-7f3a9c"
	return w
}

// result is a finished clawdcode process.
type result = harness.Result

// printJSON runs `clawdcode <args> --output-format json` and decodes the
// result object.
func (w *world) printJSON(args ...string) (resultObject, result) {
	w.T.Helper()
	var obj resultObject
	r := w.RunJSON(&obj, args...)
	return obj, r
}

// resultObject is CONTRACT.md section 5.
type resultObject = harness.ResultObject

// projectsDir is $CLAWDCODE_HOME/projects.
func (w *world) projectsDir() string { return filepath.Join(w.Home, "projects") }

// sessionFiles maps session id → file for every session of every project.
func (w *world) sessionFiles() map[string]string {
	w.T.Helper()
	files := map[string]string{}
	matches, err := filepath.Glob(filepath.Join(w.projectsDir(), "*", "*.jsonl"))
	if err != nil {
		w.T.Fatal(err)
	}
	for _, m := range matches {
		files[strings.TrimSuffix(filepath.Base(m), ".jsonl")] = m
	}
	return files
}

// onlySession is the one session file there is; the test fails otherwise.
func (w *world) onlySession() (id, path string) {
	w.T.Helper()
	files := w.sessionFiles()
	if len(files) != 1 {
		w.T.Fatalf("want exactly one session file, have %d: %v", len(files), files)
	}
	for id, path := range files {
		return id, path
	}
	panic("unreachable")
}

// record is a session record (CONTRACT.md section 4).
type record = harness.Record

// parsedFile is a session file split into lines: the records of the lines
// that parse, and the numbers (1-based) of those that do not.
type parsedFile struct {
	records  []record
	bad      []int
	lines    int  // complete lines ('\n'-terminated)
	tornTail bool // bytes after the last '\n'
}

func parseSession(t *testing.T, path string) parsedFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseSessionBytes(data)
}

func parseSessionBytes(data []byte) parsedFile {
	var p parsedFile
	lines := bytes.Split(data, []byte("\n"))
	if last := lines[len(lines)-1]; len(last) == 0 {
		lines = lines[:len(lines)-1]
	} else {
		p.tornTail = true
	}
	p.lines = len(lines)
	if p.tornTail {
		p.lines--
	}
	for i, line := range lines {
		var r record
		if err := json.Unmarshal(line, &r); err != nil || r.UUID == "" || r.Type == "" {
			p.bad = append(p.bad, i+1)
			continue
		}
		p.records = append(p.records, r)
	}
	return p
}

// checkChain asserts the contract's invariants over a file's good records:
// one session id, unique uuids, each parentUuid naming an earlier record,
// every tool_result answering a tool_use, and each compaction summary
// right after its compact_boundary. (A boundary may lack its summary: a
// crash between the two appends leaves exactly that.)
func checkChain(t *testing.T, id string, recs []record) {
	t.Helper()
	seen := map[string]bool{}
	calls := map[string]bool{}
	for i, r := range recs {
		if r.SessionID != id {
			t.Errorf("record %d (%s): sessionId %q, want %q", i, r.UUID, r.SessionID, id)
		}
		if seen[r.UUID] {
			t.Errorf("record %d: uuid %s appears twice", i, r.UUID)
		}
		if i == 0 && r.ParentUUID != nil {
			t.Errorf("first record has parentUuid %q, want null", *r.ParentUUID)
		}
		if i > 0 && (r.ParentUUID == nil || !seen[*r.ParentUUID]) {
			t.Errorf("record %d (%s): parentUuid %v does not name an earlier record", i, r.UUID, r.ParentUUID)
		}
		seen[r.UUID] = true
		switch r.Type {
		case "tool_use":
			if r.Tool != nil {
				calls[r.Tool.ID] = true
			}
		case "tool_result":
			if r.ToolResult == nil || !calls[r.ToolResult.ID] {
				t.Errorf("record %d: tool_result %+v answers no earlier tool_use", i, r.ToolResult)
			}
		}
		if r.IsCompactSummary && (i == 0 || recs[i-1].Subtype != "compact_boundary") {
			t.Errorf("record %d: a compaction summary not right after a compact_boundary", i)
		}
	}
}

// tree lists every path under dir (relative, with its mode), for
// before/after comparisons.
func tree(t *testing.T, dir string) map[string]os.FileMode {
	t.Helper()
	out := map[string]os.FileMode{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrPermission) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		out[rel] = info.Mode()
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// added lists the paths in after that are not in before, sorted.
func added(before, after map[string]os.FileMode) []string {
	var out []string
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// oneErrorLine asserts the contract's error shape: exactly one line
// starting "clawdcode: " that is not a warning, followed by at most a few
// hint lines. It returns that line.
func oneErrorLine(t *testing.T, r result) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n")
	idx := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "clawdcode: ") && !strings.HasPrefix(l, "clawdcode: warning:") {
			if idx >= 0 {
				t.Errorf("more than one \"clawdcode: \" error line on stderr\n%s", r)
			}
			idx = i
		}
	}
	if idx < 0 {
		t.Errorf("no \"clawdcode: \" error line on stderr\n%s", r)
		return ""
	}
	if hints := len(lines) - idx - 1; hints > 5 {
		t.Errorf("error followed by %d lines, want at most a few hints\n%s", hints, r)
	}
	return lines[idx]
}
