package storage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/buildinfo"
)

func TestAppendFillsCommonFields(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	head := filepath.Join(root, ".git", "HEAD")
	if err := os.WriteFile(head, []byte("ref: refs/heads/feature/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := NewStore(t.TempDir()).Project(sub)
	if err != nil {
		t.Fatal(err)
	}
	s := mustCreate(t, p)
	defer s.Close()
	if _, err := uuid.Parse(s.ID()); err != nil || uuid.MustParse(s.ID()).Version() != 4 {
		t.Fatalf("session id %q is not a UUID v4", s.ID())
	}

	first := userRecord("hello")
	off0 := mustAppend(t, s, first)
	// A checkout between records shows in the next one.
	if err := os.WriteFile(head, []byte("0123456789abcdef0123456789abcdef01234567\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour) // make sure mtime differs
	os.Chtimes(head, future, future)
	second := assistantRecord("hi", 10, 2)
	off1 := mustAppend(t, s, second)

	if off0 != 0 {
		t.Errorf("first offset = %d, want 0", off0)
	}
	lines := readLines(t, s.Path())
	if len(lines) != 2 || off1 != int64(len(lines[0])+1) {
		t.Fatalf("second offset = %d with lines %q", off1, lines)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &raw); err != nil {
		t.Fatal(err)
	}
	if v, ok := raw["parentUuid"]; !ok || v != nil {
		t.Errorf("first record parentUuid = %v (present %v), want null", v, ok)
	}
	recs, _, _ := readAll(t, s.Path())
	r0, r1 := recs[0], recs[1]
	if r0.UUID != first.UUID || uuid.MustParse(r0.UUID).Version() != 4 {
		t.Errorf("uuid %q not filled back into the record (%q)", r0.UUID, first.UUID)
	}
	if r1.ParentUUID == nil || *r1.ParentUUID != r0.UUID {
		t.Errorf("second parentUuid = %v, want %s", r1.ParentUUID, r0.UUID)
	}
	want := struct{ sid, cwd, ver string }{s.ID(), p.Root, buildinfo.Version}
	for _, r := range recs {
		if r.SessionID != want.sid || r.CWD != want.cwd || r.Version != want.ver {
			t.Errorf("record %+v lacks sessionId/cwd/version %+v", r, want)
		}
		if r.Timestamp.Location() != time.UTC || r.Timestamp.IsZero() {
			t.Errorf("timestamp %v is not UTC", r.Timestamp)
		}
	}
	if !strings.Contains(lines[0], `"timestamp":"`) || !strings.Contains(lines[0], "Z\"") {
		t.Errorf("timestamp not RFC 3339 UTC in %s", lines[0])
	}
	if r0.GitBranch != "feature/x" || r1.GitBranch != "HEAD" {
		t.Errorf("gitBranch = %q, %q; want feature/x, HEAD", r0.GitBranch, r1.GitBranch)
	}
}

func TestAppendOutsideGitHasNoBranch(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	defer s.Close()
	mustAppend(t, s, userRecord("x"))
	if lines := readLines(t, s.Path()); strings.Contains(lines[0], "gitBranch") {
		t.Errorf("record outside a repository has a gitBranch: %s", lines[0])
	}
}

func TestAppendKeepsHTMLAndSubSecond(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	defer s.Close()
	ts := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
	mustAppend(t, s, &Record{Type: TypeUser, Timestamp: ts, Message: &Message{Role: "user", Content: "<a> & b"}})
	line := readLines(t, s.Path())[0]
	if !strings.Contains(line, `"<a> & b"`) {
		t.Errorf("content escaped: %s", line)
	}
	if !strings.Contains(line, `"2026-01-02T02:04:05.123456789Z"`) {
		t.Errorf("timestamp not UTC with nanoseconds: %s", line)
	}
}

func TestTornLastLine(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("one"))
	second := assistantRecord("two", 1, 1)
	mustAppend(t, s, second)
	s.Close()
	// A crash mid-write leaves half a record and no '\n'.
	appendRaw(t, s.Path(), `{"parentUuid":"x","uuid":"torn","type":"user","mess`)

	recs, _, warns := readAll(t, s.Path())
	if len(recs) != 2 || len(warns) != 1 || !strings.Contains(warns[0], "line 3") || !strings.Contains(warns[0], s.Path()) {
		t.Fatalf("torn file: %d records, warnings %q", len(recs), warns)
	}
	live, err := LoadLive(context.Background(), s.Path())
	if err != nil || len(live.Records) != 2 || len(live.Warnings) != 1 {
		t.Fatalf("LoadLive of torn file: %v, %+v", err, live)
	}

	s2, err := p.Open(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	third := userRecord("three")
	off := mustAppend(t, s2, third)
	s2.Close()

	lines := readLines(t, s.Path())
	if len(lines) != 4 || !strings.HasSuffix(lines[2], `"mess`) {
		t.Fatalf("the torn bytes did not stay on their own line: %q", lines)
	}
	if !strings.HasPrefix(lines[3], `{"parentUuid":`) {
		t.Fatalf("the next record does not start a fresh line: %q", lines[3])
	}
	b, _ := os.ReadFile(s.Path())
	if !strings.HasPrefix(string(b[off:]), `{"parentUuid":`) {
		t.Errorf("Append returned offset %d, which is not where its line starts", off)
	}
	if third.ParentUUID == nil || *third.ParentUUID != second.UUID {
		t.Errorf("parentUuid after reopen = %v, want the last good record %s", third.ParentUUID, second.UUID)
	}
	recs, _, warns = readAll(t, s.Path())
	if len(recs) != 3 || len(warns) != 1 {
		t.Fatalf("after repair: %d records, warnings %q", len(recs), warns)
	}
}

func TestReopenContinuesParentChain(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	var last string
	for i := range 5 {
		r := userRecord(fmt.Sprint(i))
		mustAppend(t, s, r)
		last = r.UUID
	}
	s.Close()
	s, err := p.Open(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := userRecord("after")
	mustAppend(t, s, r)
	if r.ParentUUID == nil || *r.ParentUUID != last {
		t.Fatalf("parentUuid = %v, want %s", r.ParentUUID, last)
	}
}

func TestOneWriterInProcess(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("first"))
	_, err := p.Open(context.Background(), s.ID())
	if !errors.Is(err, ErrSessionBusy) || !strings.Contains(err.Error(), s.ID()) {
		t.Fatalf("second Open = %v, want ErrSessionBusy naming %s", err, s.ID())
	}
	if err := p.Remove(s.ID()); !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("Remove of an open session = %v, want ErrSessionBusy", err)
	}
	s.Close()
	if _, err := s.Append(userRecord("late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close = %v, want ErrClosed", err)
	}
	s2, err := p.Open(context.Background(), s.ID())
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	s2.Close()
	if err := p.Remove(s.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Open(context.Background(), s.ID()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open after Remove = %v, want ErrNotFound", err)
	}
	if err := p.Remove(s.ID()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Remove = %v, want ErrNotFound", err)
	}
}

// helper runs the test binary as a second clawdcode process.
func helper(t *testing.T, p *Project, mode, id string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		"STORAGE_HELPER="+mode,
		"STORAGE_HOME="+p.store.home,
		"STORAGE_ROOT="+p.Root,
		"STORAGE_ID="+id,
		fmt.Sprint("STORAGE_N=", n),
	)
	return cmd
}

func TestSecondProcessIsRefused(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	const n = 2000
	done := make(chan error, 1)
	go func() {
		for i := range n {
			if _, err := s.Append(userRecord(fmt.Sprintf("parent %d", i))); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	// While the parent appends, a second process tries to append too.
	out, err := helper(t, p, "append", s.ID(), 100).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitBusy {
		t.Fatalf("second process: %v, output %s; want exit %d (busy)", err, out, exitBusy)
	}
	if !strings.Contains(string(out), "session "+s.ID()+" is open in another clawdcode process") {
		t.Errorf("busy error does not name the session: %s", out)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Once the lock is released, the other process may append.
	if out, err := helper(t, p, "append", s.ID(), 100).CombinedOutput(); err != nil {
		t.Fatalf("second process after Close: %v: %s", err, out)
	}

	recs, _, warns := readAll(t, s.Path())
	if len(warns) != 0 || len(recs) != n+100 {
		t.Fatalf("%d records (want %d), warnings %q", len(recs), n+100, warns)
	}
	for i, r := range recs {
		want := fmt.Sprintf("parent %d", i)
		if i >= n {
			want = fmt.Sprintf("child %d", i-n)
		}
		if r.Message.Content != want {
			t.Fatalf("record %d is %q, want %q", i, r.Message.Content, want)
		}
		if i > 0 && (r.ParentUUID == nil || *r.ParentUUID != recs[i-1].UUID) {
			t.Fatalf("record %d breaks the parentUuid chain", i)
		}
	}
}

func TestLockReleasedWhenHolderDies(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("x"))
	s.Close()

	cmd := helper(t, p, "hold", s.ID(), 0)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("holder said %q, %v", line, err)
	}
	if _, err := p.Open(context.Background(), s.ID()); !errors.Is(err, ErrSessionBusy) {
		t.Errorf("Open while another process holds the lock = %v, want ErrSessionBusy", err)
	}
	if err := p.Remove(s.ID()); !errors.Is(err, ErrSessionBusy) {
		t.Errorf("Remove while another process holds the lock = %v, want ErrSessionBusy", err)
	}
	// SIGKILL: no Close runs, the kernel drops the lock.
	cmd.Process.Kill()
	cmd.Wait()
	s2, err := p.Open(context.Background(), s.ID())
	if err != nil {
		t.Fatalf("Open after the holder died: %v", err)
	}
	s2.Close()
}

func TestSyncAndBigRecord(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	defer s.Close()
	big := strings.Repeat("x", 3<<20)
	mustAppend(t, s, &Record{Type: TypeToolResult, ToolResult: &ToolResult{ID: "c1", Output: big}})
	off := mustAppend(t, s, userRecord("after"))
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	recs, offs, warns := readAll(t, s.Path())
	if len(recs) != 2 || len(warns) != 0 || recs[0].ToolResult.Output != big || offs[1] != off {
		t.Fatalf("big record round trip: %d records, warnings %q", len(recs), warns)
	}
}

// TestLongRecordWithoutItsNewlineIsTheParent: a kill between a long
// record's last '}' and its '\n' leaves a record every reader takes (and
// the import's mark too): the next record appended is its child, as for
// a short one. Its line is past the prefix the tail is read by.
func TestLongRecordWithoutItsNewlineIsTheParent(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("one"))
	long := userRecord(strings.Repeat("x", 3*prefixBytes))
	mustAppend(t, s, long)
	s.Close()
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(), bytes.TrimSuffix(b, []byte("\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	s2, err := p.Open(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	next := userRecord("two")
	mustAppend(t, s2, next)
	s2.Close()
	if next.ParentUUID == nil || *next.ParentUUID != long.UUID {
		t.Errorf("parentUuid = %v, want the long record %s", next.ParentUUID, long.UUID)
	}
	if recs, _, warns := readAll(t, s.Path()); len(recs) != 3 || len(warns) != 0 {
		t.Errorf("%d records, warnings %q; want 3 and none", len(recs), warns)
	}
}
