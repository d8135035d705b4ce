package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// outside lists everything under the test's root except CLAWDCODE_HOME
// and the given project directories: what clawdcode must never touch.
func (w *world) outside(projects ...string) map[string]os.FileMode {
	w.T.Helper()
	all := tree(w.T, w.Root)
	skip := append([]string{w.Home, w.Project}, projects...)
	for p := range all {
		abs := filepath.Join(w.Root, p)
		for _, s := range skip {
			if abs == s || strings.HasPrefix(abs, s+string(filepath.Separator)) {
				delete(all, p)
			}
		}
	}
	return all
}

// assertNothingOutside fails if paths appeared or vanished outside
// CLAWDCODE_HOME and the projects since before.
func (w *world) assertNothingOutside(before map[string]os.FileMode, projects ...string) {
	w.T.Helper()
	after := w.outside(projects...)
	if a := added(before, after); len(a) > 0 {
		w.T.Errorf("clawdcode wrote outside CLAWDCODE_HOME and the project: %v", a)
	}
	if gone := added(after, before); len(gone) > 0 {
		w.T.Errorf("clawdcode removed paths outside CLAWDCODE_HOME and the project: %v", gone)
	}
}

// siblingID is a valid session id that shares its first 9 characters
// (8 hex digits and the dash) with id.
func siblingID(id string) string {
	b := []byte(id)
	for i := 9; i < len(b); i++ {
		if b[i] != '-' {
			b[i] = "0123456789abcdef"[(strings.IndexByte("0123456789abcdef", b[i])+7)%16]
		}
	}
	return string(b)
}

// cloneSession writes a copy of a session under a new id, its records
// rewritten to that id: a second, well-formed session.
func cloneSession(t *testing.T, path, id, newID string) string {
	t.Helper()
	data := bytes.ReplaceAll(readFile(t, path), []byte(id), []byte(newID))
	dst := filepath.Join(filepath.Dir(path), newID+".jsonl")
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestBadSessionIDs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	id, path := w.establish()
	twin := siblingID(id)
	cloneSession(t, path, id, twin)

	// A session of another project, and a file outside CLAWDCODE_HOME,
	// that a path-like id could reach if ids were used as paths.
	other := filepath.Join(w.Root, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	w.RunIn(other, "-p", "hello from the other project")
	var otherID, otherPath string
	for sid, p := range w.sessionFiles() {
		if sid != id && sid != twin {
			otherID, otherPath = sid, p
		}
	}
	if otherID == "" {
		t.Fatal("the other project's session was not created")
	}
	victim := filepath.Join(w.Root, "victim.jsonl")
	if err := os.WriteFile(victim, readFile(t, path), 0o600); err != nil {
		t.Fatal(err)
	}
	otherRel := "../" + filepath.Base(filepath.Dir(otherPath)) + "/" + otherID

	ids := []struct{ name, id, want string }{
		{"unknown", "00000000-dead-beef-0000-000000000000", "00000000-dead-beef"},
		{"unknown prefix", "ffffffffffff", "ffffffffffff"},
		{"ambiguous prefix", id[:8], "ambiguous"},
		{"dot dot", "../x", ""},
		{"slash", "a/b", ""},
		{"absolute", "/etc/passwd", ""},
		{"parent", "..", ""},
		{"another project's session by path", otherRel, ""},
		{"a file outside the home", "../../../victim", ""},
		{"another project's session by id", otherID, ""},
	}
	commands := []struct {
		name string
		args func(id string) []string
	}{
		{"resume", func(id string) []string { return []string{"-r", id, "-p", "hi"} }},
		{"show", func(id string) []string { return []string{"sessions", "show", id} }},
		{"export", func(id string) []string { return []string{"sessions", "export", "--format", "jsonl", id} }},
		{"rm", func(id string) []string { return []string{"sessions", "rm", "--yes", id} }},
	}
	before := w.outside(other)
	projectBefore := tree(t, w.Project)
	homeBefore := tree(t, w.Home)
	for _, c := range ids {
		for _, cmd := range commands {
			t.Run(c.name+"/"+cmd.name, func(t *testing.T) {
				mark := len(w.Server.Requests())
				r := w.Run(cmd.args(c.id)...)
				if r.Code != 2 {
					t.Errorf("want exit 2 (usage error)\n%s", r)
				}
				line := oneErrorLine(t, r)
				if c.want != "" && !strings.Contains(strings.ToLower(line), c.want) {
					t.Errorf("error %q does not mention %q", line, c.want)
				}
				if c.want == "ambiguous" {
					if !strings.Contains(r.Stderr, id) || !strings.Contains(r.Stderr, twin) {
						t.Errorf("an ambiguous prefix must list the candidates %s and %s\n%s", id, twin, r)
					}
				}
				if strings.TrimSpace(r.Stdout) != "" {
					t.Errorf("a refused id printed on stdout:\n%s", r)
				}
				if n := len(w.Server.Requests()) - mark; n != 0 {
					t.Errorf("%d requests sent to the model for a bad session id", n)
				}
			})
		}
	}
	for _, p := range []string{path, otherPath, victim, filepath.Join(filepath.Dir(path), twin+".jsonl")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is gone after the bad ids: %v", p, err)
		}
	}
	homeAfter := tree(t, w.Home)
	for p, mode := range homeAfter {
		if _, ok := homeBefore[p]; !ok && !strings.HasSuffix(p, ".lock") && filepath.Base(p) != "index.json" {
			t.Errorf("the bad ids created %s (%v) under CLAWDCODE_HOME", p, mode)
		}
	}
	w.assertNothingOutside(before, other)
	assertTreeSame(t, "the project", projectBefore, tree(t, w.Project))
}

// assertTreeSame fails when paths appeared in or vanished from a tree.
func assertTreeSame(t *testing.T, what string, before, after map[string]os.FileMode) {
	t.Helper()
	if a := added(before, after); len(a) > 0 {
		t.Errorf("clawdcode created %v in %s", a, what)
	}
	if gone := added(after, before); len(gone) > 0 {
		t.Errorf("clawdcode removed %v from %s", gone, what)
	}
}

// garbage is session files that are not sessions, by name.
func garbage() map[string][]byte {
	return map[string][]byte{
		"11111111-1111-4111-8111-111111111111": []byte("this is not JSONL at all\n{\"neither\": \"is this\"}\n\x00\x01\x02 binary\n"),
		"22222222-2222-4222-8222-222222222222": {},
		"33333333-3333-4333-8333-333333333333": make([]byte, 10<<20),
	}
}

func TestGarbageSessionFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	id, path := w.establish()
	dir := filepath.Dir(path)
	for gid, data := range garbage() {
		if err := os.WriteFile(filepath.Join(dir, gid+".jsonl"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		w.SkipRecordCheck(filepath.Join(dir, gid+".jsonl"))
	}
	before := w.outside()
	projectBefore := tree(t, w.Project)

	list := w.Run("sessions", "list")
	if list.Code != 0 {
		t.Fatalf("sessions list with garbage files: want exit 0\n%s", list)
	}
	if !strings.Contains(list.Stdout, id[:8]) {
		t.Errorf("sessions list no longer lists the good session %s\n%s", id, list)
	}
	checkNoCrash(t, list)
	if js := w.Run("sessions", "list", "--json"); js.Code != 0 || !strings.Contains(js.Stdout, id) {
		t.Errorf("sessions list --json with garbage files\n%s", js)
	}

	for gid := range garbage() {
		t.Run(gid[:8], func(t *testing.T) {
			for _, args := range [][]string{
				{"sessions", "show", gid},
				{"sessions", "export", "--format", "json", gid},
			} {
				r := w.Run(args...)
				checkNoCrash(t, r)
				if r.Code != 0 && r.Code != 1 {
					t.Errorf("%q on a garbage file: want exit 0 (with warnings) or 1 (a clear error)\n%s", args, r)
				}
				if r.Code == 1 {
					oneErrorLine(t, r)
				}
				t.Logf("%q: exit %d, stderr %q", args, r.Code, firstLine(r.Stderr))
			}

			mark := len(w.Server.Requests())
			r := w.Run("-r", gid, "-p", "resume the garbage")
			checkNoCrash(t, r)
			switch r.Code {
			case 0:
				for _, req := range w.Server.Requests()[mark:] {
					if req.Status != 200 {
						t.Errorf("resuming a garbage file sent a rejected request: %d %s", req.Status, req.Error)
					}
				}
			case 1:
				oneErrorLine(t, r)
			default:
				t.Errorf("-r on a garbage file: want exit 0 or a clear error (1)\n%s", r)
			}
			t.Logf("-r: exit %d, stderr %q", r.Code, firstLine(r.Stderr))
		})
	}
	// The good session is untouched and still continues.
	if r := w.Run("-r", id, "-p", "still fine"); r.Code != 0 {
		t.Errorf("-r of the good session next to garbage files\n%s", r)
	}
	p := parseSession(t, path)
	if len(p.bad) > 0 {
		t.Errorf("the good session has unparsable lines %v", p.bad)
	}
	w.assertNothingOutside(before)
	assertTreeSame(t, "the project", projectBefore, tree(t, w.Project))
}

// checkNoCrash fails on a Go panic or a fatal runtime error.
func checkNoCrash(t *testing.T, r result) {
	t.Helper()
	for _, s := range []string{"panic:", "goroutine ", "fatal error:", "SIGSEGV"} {
		if strings.Contains(r.Stderr, s) {
			t.Fatalf("clawdcode crashed (%q on stderr)\n%s", s, r)
		}
	}
	if len(r.Stderr) > 16<<10 {
		t.Errorf("%d bytes on stderr: warnings must not dump the file", len(r.Stderr))
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func TestUnusableHome(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(t *testing.T, w *world) string // returns CLAWDCODE_HOME
	}{
		{"parent is a regular file", func(t *testing.T, w *world) string {
			f := filepath.Join(w.Root, "afile")
			if err := os.WriteFile(f, []byte("not a directory"), 0o600); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(f, "home")
		}},
		{"home is a regular file", func(t *testing.T, w *world) string {
			f := filepath.Join(w.Root, "homefile")
			if err := os.WriteFile(f, []byte("not a directory"), 0o600); err != nil {
				t.Fatal(err)
			}
			return f
		}},
		{"home is unreadable (chmod 000)", func(t *testing.T, w *world) string {
			if os.Geteuid() == 0 {
				t.Skip("running as root: chmod 000 does not stop root from reading (covered by the regular-file cases)")
			}
			h := filepath.Join(w.Root, "locked")
			if err := os.MkdirAll(filepath.Join(h, "projects"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(h, 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Chmod(h, 0o700) })
			return h
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			w.Server.SetResponder(llmtest.Agent())
			w.Home = c.setup(t, w)
			before := w.outside()
			projectBefore := tree(t, w.Project)

			r := w.Run("-p", "hello")
			checkNoCrash(t, r)
			if r.Code != 1 {
				t.Errorf("-p with an unusable CLAWDCODE_HOME: want exit 1\n%s", r)
			}
			line := oneErrorLine(t, r)
			if !strings.Contains(line, w.Home) && !strings.Contains(line, filepath.Dir(w.Home)) {
				t.Errorf("the error %q does not name the unusable path %s", line, w.Home)
			}
			checkSaidOnce(t, line)
			if n := len(w.Server.Requests()); n != 0 {
				t.Errorf("%d model requests made although no session can be stored", n)
			}
			for _, args := range [][]string{{"sessions", "list"}, {"sessions", "show", "abc"}, {"-c", "-p", "x"}} {
				r := w.Run(args...)
				checkNoCrash(t, r)
				if r.Code == 0 && args[1] != "list" {
					t.Errorf("%q with an unusable CLAWDCODE_HOME succeeded\n%s", args, r)
				}
				if r.Code != 0 {
					checkSaidOnce(t, oneErrorLine(t, r))
				}
				t.Logf("%q: exit %d %q", args, r.Code, firstLine(r.Stderr))
			}
			w.assertNothingOutside(before)
			assertTreeSame(t, "the project", projectBefore, tree(t, w.Project))
		})
	}
}

func TestOddProjectPath(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(threeRounds)
	// Spaces, non-ASCII letters, an emoji, and enough nesting that the
	// escaped directory name would pass 255 bytes without shortening.
	seg := "my project ünïcødé 日本語 🚀"
	dir := w.Root
	for len(dir) < 320 {
		dir = filepath.Join(dir, seg)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w.Project = dir
	// A second project whose escaped name is the same as the first's: the
	// same path with "-" where the first has a space.
	twin := strings.ReplaceAll(dir, " ", "-")
	if err := os.MkdirAll(twin, 0o755); err != nil {
		t.Fatal(err)
	}
	before := w.outside(twin)

	w.MustRun("-p", "--dangerously-skip-permissions", stepPrompt(1))
	if _, err := os.Stat(filepath.Join(dir, "s1.txt")); err != nil {
		t.Errorf("the tool did not write inside the odd project path: %v", err)
	}
	id, path := w.onlySession()
	name := filepath.Base(filepath.Dir(path))
	if len(name) > 255 {
		t.Errorf("project directory name is %d bytes, want ≤ 255", len(name))
	}
	if strings.ContainsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-')
	}) {
		t.Errorf("project directory name %q has characters outside [A-Za-z0-9-]", name)
	}
	p := parseSession(t, path)
	checkChain(t, id, p.records)
	for _, r := range p.records {
		if r.Cwd != dir {
			t.Fatalf("record cwd %q, want the real path %q", r.Cwd, dir)
		}
	}
	list := w.MustRun("sessions", "list")
	if !strings.Contains(list.Stdout, id[:8]) {
		t.Errorf("sessions list in the odd path does not list %s\n%s", id, list)
	}
	obj, r := w.printJSON("-c", "-p", "continue")
	if r.Code != 0 || obj.SessionID != id {
		t.Errorf("-c in the odd path: want session %s continued\n%s", id, r)
	}
	if all := w.RunIn(w.Root, "sessions", "list", "--all"); all.Code != 0 || !strings.Contains(all.Stdout, id[:8]) {
		t.Errorf("sessions list --all from elsewhere\n%s", all)
	}
	// The twin must get its own directory.
	if r := w.RunIn(twin, "-p", "hello from the twin"); r.Code != 0 {
		t.Fatalf("-p in the twin path\n%s", r)
	}
	dirs, _ := filepath.Glob(filepath.Join(w.projectsDir(), "*"))
	if len(dirs) != 2 {
		t.Errorf("two project paths that escape alike share a directory: %v", dirs)
	}
	for _, d := range dirs {
		if len(filepath.Base(d)) > 255 {
			t.Errorf("project directory name is %d bytes, want ≤ 255", len(filepath.Base(d)))
		}
	}
	if tw := w.RunIn(twin, "sessions", "list", "--json"); strings.Contains(tw.Stdout, id) {
		t.Errorf("the twin project lists the first project's session %s\n%s", id, tw)
	}
	w.assertNothingOutside(before, twin)
}

// TestEmptyResumeID: `-r ""` (say, a script's unset variable) names no
// session; it must not silently start a new one.
func TestEmptyResumeID(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.establish()
	mark := len(w.Server.Requests())
	r := w.Run("-r", "", "-p", "hi")
	if r.Code != 2 {
		t.Errorf("-r with an empty id: want exit 2 (usage error)\n%s", r)
	}
	if n := len(w.Server.Requests()) - mark; n != 0 {
		t.Errorf("%d requests sent for an empty session id", n)
	}
	if n := len(w.sessionFiles()); n != 1 {
		t.Errorf("%d session files: an empty -r created a new session", n)
	}
}

// TestDamagedIndex: index.json is a cache over the session files, so a
// corrupt one is rebuilt, and odd entries in the session directory (a
// directory named like a session, a file that is no session) are ignored.
func TestDamagedIndex(t *testing.T) {
	t.Parallel()
	for _, damage := range []struct {
		name string
		data []byte
	}{
		{"not JSON", []byte("not json at all")},
		{"NUL bytes", make([]byte, 4096)},
		{"empty", nil},
		{"wrong shape", []byte(`{"sessions": 5, "version": "x"}`)},
	} {
		t.Run(damage.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			id, path := w.establish()
			dir := filepath.Dir(path)
			if err := os.WriteFile(filepath.Join(dir, "index.json"), damage.data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(dir, "44444444-4444-4444-8444-444444444444.jsonl"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "NOTES.jsonl"), []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			w.SkipRecordCheck(filepath.Join(dir, "NOTES.jsonl"))
			w.checkListed(id)
			obj, r := w.printJSON("-c", "-p", "again")
			if r.Code != 0 || obj.SessionID != id {
				t.Errorf("-c with a damaged index: want session %s continued\n%s", id, r)
			}
			w.MustRun("-p", "a new session")
			if list := w.MustRun("sessions", "list"); len(nonEmptyLines(list.Stdout)) != 3 {
				t.Errorf("want a header and two sessions\n%s", list)
			}
		})
	}
}

// TestUnwritableIndex: when the index cannot be written (here: a
// directory stands where index.json goes, as an unwritable cache would),
// listing and running must still work from the session files.
func TestUnwritableIndex(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	id, path := w.establish()
	idx := filepath.Join(filepath.Dir(path), "index.json")
	if err := os.Remove(idx); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(idx, 0o700); err != nil {
		t.Fatal(err)
	}
	w.checkListed(id)
	r := w.Run("-c", "-p", "again")
	if r.Code != 0 {
		t.Errorf("-c with an unwritable index: want exit 0\n%s", r)
	}
	checkIndexWarning(t, r)
	r = w.Run("-p", "a new session")
	if r.Code != 0 {
		t.Errorf("-p with an unwritable index: want exit 0 (the answer was given and recorded)\n%s", r)
	}
	checkIndexWarning(t, r)
	// The listing comes from the files: the new session is in it.
	list := w.Run("sessions", "list")
	if list.Code != 0 || len(nonEmptyLines(list.Stdout)) != 3 {
		t.Errorf("sessions list: want a header and two sessions\n%s", list)
	}
	checkIndexWarning(t, list)
	if r := w.Run("sessions", "rm", "--yes", id); r.Code != 0 {
		t.Errorf("sessions rm with an unwritable index: want exit 0\n%s", r)
	}
}

// checkIndexWarning: an index that cannot be written is one warning per
// run, never an error.
func checkIndexWarning(t *testing.T, r result) {
	t.Helper()
	n := 0
	for _, line := range strings.Split(r.Stderr, "\n") {
		if strings.Contains(line, "index") {
			n++
			t.Logf("%s", line)
			if !strings.HasPrefix(line, "clawdcode: warning: ") {
				t.Errorf("the unwritable index is reported as more than a warning: %q", line)
			}
		}
	}
	if n != 1 {
		t.Errorf("the unwritable index is reported %d times, want one warning\n%s", n, r)
	}
}

// checkListed asserts that sessions list succeeds and names id.
func (w *world) checkListed(id string) {
	w.T.Helper()
	list := w.Run("sessions", "list")
	checkNoCrash(w.T, list)
	if list.Code != 0 || !strings.Contains(list.Stdout, id[:8]) {
		w.T.Errorf("sessions list: want exit 0 listing %s\n%s", id, list)
	}
}
