package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// limitedCommand runs clawdcode under a file-size limit of blocks × 1024
// bytes. SIGXFSZ is ignored (an ignored disposition survives exec, and Go
// leaves it alone), so a write past the limit fails with EFBIG instead of
// killing the process — what a full disk looks like to a program: a short
// write, then an error.
func (w *world) limitedCommand(ctx context.Context, blocks int, args ...string) *exec.Cmd {
	script := `trap '' XFSZ; ulimit -f "$1" || exit 99; shift; exec "$0" "$@"`
	cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", script, w.Binary, strconv.Itoa(blocks)}, args...)...)
	cmd.Dir = w.Project
	cmd.Env = w.Env()
	return cmd
}

func TestWriteErrorMidTurn(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for ulimit -f")
	}
	w := newWorld(t, llmtest.Options{})
	id, path := w.establish()
	flags := []string{"-p", "--dangerously-skip-permissions"}

	sawTorn := false
	for i, room := range []int{0, 1, 2, 1} {
		before := readFile(t, path)
		// The limit lands between 0 and (room+1) KiB past the current
		// end: inside the next step's records.
		blocks := (len(before)+1023)/1024 + room
		ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
		r := harness.Wait(t, ctx, w.limitedCommand(ctx, blocks, append(append([]string{"-c"}, flags...), stepPrompt(2+i))...))
		cancel()
		if r.Code == 99 {
			t.Skip("ulimit -f is not permitted here")
		}
		if r.Code != 1 {
			t.Fatalf("attempt %d (limit %d KiB, file %d B): want exit 1 from a write error\n%s", i, blocks, len(before), r)
		}
		line := oneErrorLine(t, r)
		if !strings.Contains(strings.ToLower(line), "file too large") {
			t.Errorf("attempt %d: the error does not say what failed (want the EFBIG text \"file too large\"): %q", i, line)
		}
		if first := nonEmptyLines(r.Stderr)[0]; first != line {
			t.Errorf("attempt %d: the cause is not the first stderr line: %q before %q", i, first, line)
		}
		checkSaidOnce(t, line, id)
		after := readFile(t, path)
		if !bytes.HasPrefix(after, before) {
			t.Fatalf("attempt %d: the failed run changed earlier lines of the session", i)
		}
		p := parseSessionBytes(after)
		// The write the limit cut short is taken back out: the file
		// holds only complete lines, none of them broken.
		prior := parseSessionBytes(before)
		if len(p.bad) != len(prior.bad) || p.tornTail {
			t.Errorf("attempt %d: unparsable lines %v (before %v), torn tail %v: the failed append left a partial line", i, p.bad, prior.bad, p.tornTail)
		}
		sawTorn = sawTorn || p.tornTail
		checkChain(t, id, p.records)

		show := w.Run("sessions", "show", id)
		if show.Code != 0 {
			t.Fatalf("attempt %d: the session does not load after the write error\n%s", i, show)
		}
		if warnings := nonEmptyLines(show.Stderr); len(warnings) > 0 {
			t.Errorf("attempt %d: loading after the write error warns\n%s", i, show)
		}

		mark := len(w.Server.Requests())
		obj, cont := w.printJSON("-c", "-p", "--dangerously-skip-permissions", "continue")
		if cont.Code != 0 || obj.IsError || obj.SessionID != id {
			t.Fatalf("attempt %d: -c without the limit: want success on %s\n%s", i, id, cont)
		}
		for _, req := range w.Server.Requests()[mark:] {
			if req.Status != 200 {
				t.Errorf("attempt %d: -c after the write error sent a rejected request: %d %s", i, req.Status, req.Error)
			}
		}
		final := parseSession(t, path)
		if final.tornTail {
			t.Errorf("attempt %d: the file still ends inside a line after a successful -c", i)
		}
		checkChain(t, id, final.records)
	}
	if sawTorn {
		t.Errorf("a failed write left a torn line")
	}
}

// TestWriteErrorOnFirstUse: with no room at all, the very first run of a
// project fails clearly, leaves no half-made session or marker behind, and
// the project works once there is room again.
func TestWriteErrorOnFirstUse(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for ulimit -f")
	}
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	r := harness.Wait(t, ctx, w.limitedCommand(ctx, 0, "-p", "hello"))
	if r.Code == 99 {
		t.Skip("ulimit -f is not permitted here")
	}
	if r.Code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	line := oneErrorLine(t, r)
	if !strings.Contains(line, "file too large") {
		t.Errorf("the error does not say what failed: %q", line)
	}
	checkSaidOnce(t, line, w.Home)
	for p, mode := range tree(t, w.Home) {
		// The diagnostic log is no part of a session: an empty one may
		// stay, as its record of the failure could not be written.
		if !mode.IsDir() && !strings.HasPrefix(p, "logs/") {
			t.Errorf("the failed first run left %s behind", p)
		}
	}
	if list := w.Run("sessions", "list"); list.Code != 0 {
		t.Errorf("sessions list after the failed first run\n%s", list)
	}
	w.MustRun("-p", "hello again")
	id, path := w.onlySession()
	p := parseSession(t, path)
	if len(p.bad) > 0 {
		t.Errorf("unparsable lines %v", p.bad)
	}
	checkChain(t, id, p.records)
}

// TestWriteErrorOnFirstRecord: with room for the project's marker but not
// for the first record, the run fails with the cause as its first stderr
// line and leaves no session file (not even an empty one) behind; the next
// run with room works.
func TestWriteErrorOnFirstRecord(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for ulimit -f")
	}
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	// One KiB: the marker (the project's path) fits, a 4 KiB prompt not.
	r := harness.Wait(t, ctx, w.limitedCommand(ctx, 1, "-p", "hello "+strings.Repeat("word ", 800)))
	if r.Code == 99 {
		t.Skip("ulimit -f is not permitted here")
	}
	if r.Code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	line := oneErrorLine(t, r)
	if !strings.Contains(line, "file too large") {
		t.Errorf("the error does not say what failed: %q", line)
	}
	if first := nonEmptyLines(r.Stderr)[0]; first != line {
		t.Errorf("the cause is not the first stderr line: %q before %q", first, line)
	}
	if files := w.sessionFiles(); len(files) != 0 {
		t.Errorf("the failed creation left session files: %v", files)
	}
	w.MustRun("-p", "hello again")
	id, path := w.onlySession()
	p := parseSession(t, path)
	if len(p.bad) > 0 || p.tornTail {
		t.Errorf("unparsable lines %v", p.bad)
	}
	checkChain(t, id, p.records)
}

// TestWriteErrorCauseBeforeIndexWarning: when the index cannot be written
// either (here a directory stands where index.json goes), the write error
// that failed the run is the first stderr line; the index warning, a mere
// consequence, comes after it.
func TestWriteErrorCauseBeforeIndexWarning(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for ulimit -f")
	}
	w := newWorld(t, llmtest.Options{})
	_, path := w.establish()
	index := filepath.Join(filepath.Dir(path), "index.json")
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(index, 0o700); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	r := harness.Wait(t, ctx, w.limitedCommand(ctx, (len(before)+1023)/1024, "-c", "-p", "--dangerously-skip-permissions", stepPrompt(2)))
	if r.Code == 99 {
		t.Skip("ulimit -f is not permitted here")
	}
	if r.Code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	lines := nonEmptyLines(r.Stderr)
	if !strings.HasPrefix(lines[0], "clawdcode: ") || strings.HasPrefix(lines[0], "clawdcode: warning") || !strings.Contains(lines[0], "file too large") {
		t.Errorf("the first stderr line is not the cause\n%s", r)
	}
	if p := parseSession(t, path); !bytes.HasPrefix(readFile(t, path), before) || p.tornTail || len(p.bad) > 0 {
		t.Errorf("the failed append broke the session file: bad lines %v, torn tail %v", p.bad, p.tornTail)
	}
	t.Logf("stderr:\n%s", r.Stderr)
}

// checkSaidOnce fails when an error line repeats its context — two of its
// ": "-separated parts beginning with the same two words ("create session:
// create session: …"), or one of names (a session id, a path) said more
// than once.
func checkSaidOnce(t *testing.T, line string, names ...string) {
	t.Helper()
	seen := map[string]bool{}
	for _, part := range strings.Split(strings.TrimPrefix(line, "clawdcode: "), ": ") {
		words := strings.Fields(strings.ToLower(part))
		if len(words) < 2 {
			continue
		}
		lead := words[0] + " " + words[1]
		if seen[lead] {
			t.Errorf("the error repeats %q: %q", lead, line)
		}
		seen[lead] = true
	}
	for _, name := range names {
		if n := strings.Count(line, name); n > 1 {
			t.Errorf("the error names %s %d times: %q", name, n, line)
		}
	}
}
