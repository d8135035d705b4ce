package e2e

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// issueBypasses are the bypasses issue 32 names, each as a line that runs
// a payload (touch, the recorder) when bash gets to it. The rules let
// them through before; the sandbox must contain what they run.
var issueBypasses = []string{
	"git -c alias.x='!touch X' x",
	"git -c core.fsmonitor='touch X' status",
	"trap 'touch X' EXIT",
	"shopt -s expand_aliases\nalias ls='touch X'\nls",
	"source <(echo touch X)",
	"bash <<EOF\ntouch X\nEOF",
	"echo touch X | bash",
	"env -S 'touch X'",
	"mapfile -C 'touch X' -c 1 <<< a",
	"BASH_ENV=<(echo touch X) bash -c true",
	"cd gomod && go test -count=1 -exec 'touch X' .",
}

// issueOthers are the issue's other bypasses: programs the rules did not
// see through, whose own effect the sandbox must hold in the project.
var issueOthers = []string{
	"git -C . push", "git --no-pager push", "git -c alias.p=push p",
	"kubectl --context prod delete pod x", "terraform -chdir=infra destroy", "npm --prefix . publish",
	"git diff --output=/tmp/x",
}

// recorders are the payloads' names: each is the recorder.
var recorders = []string{"touch", "rm", "x", "evil"}

// bypassWorld is a sandbox world with the recorder and what the bypass
// lines need: a Go module in gomod/ (its build cache writable through
// [sandbox] writable, when there is a go), and the places outside the
// project the recorder tries to write.
type bypassWorld struct {
	*world
	bin     string // the recorders, first on PATH; outside the project, so read-only to commands
	ran     string // what the recorder appends to: one line per run
	stray   string // the recorder's target in the system's /tmp
	gocache string
}

func newBypassWorld(t *testing.T) *bypassWorld {
	t.Helper()
	requireTool(t, "bash")
	w := &bypassWorld{world: sandboxWorld(t), stray: fmt.Sprintf("/tmp/clawdcode-bypass-%d-%d", os.Getpid(), time.Now().UnixNano())}
	w.Timeout = 10 * time.Minute // a net for a hang only: the lines take seconds
	w.bin = filepath.Join(w.Root, "bypass")
	w.ran = filepath.Join(w.Tmp, "ran.log")
	t.Cleanup(func() { os.Remove(w.stray) })
	if err := os.Mkdir(w.bin, 0o755); err != nil {
		t.Fatal(err)
	}
	q := shellQuote
	var targets []string
	for _, p := range []string{filepath.Join(w.UserHome, "pwned"), filepath.Join(w.Root, "pwned"), w.stray,
		filepath.Join(w.Home, "pwned"), filepath.Join(w.bin, "pwned"), filepath.Join(w.Project, ".clawdcode", "pwned"),
		filepath.Join(w.Project, ".git", "hooks", "pre-commit"), filepath.Join(w.Project, ".git", "hooks", "post-checkout")} {
		targets = append(targets, q(p))
	}
	recorder := "#!/bin/sh\n" +
		"# A bypass's payload: say that it ran, then try every way out of the project.\n" +
		"printf '%s %s %s\\n' \"${CORPUS_LINE:--}\" \"${0##*/}\" \"$*\" >> " + q(w.ran) + "\n" +
		"for f in " + strings.Join(targets, " ") + "; do printf '#!/bin/sh\\necho pwned\\n' > \"$f\"; chmod +x \"$f\"; done 2>/dev/null\n" +
		"printf '[core]\\n\\tfsmonitor = echo pwned\\n' >> " + q(filepath.Join(w.Project, ".git", "config")) + " 2>/dev/null\n" +
		"mkdir " + q(filepath.Join(w.UserHome, ".config")) + " " + q(filepath.Join(w.Root, "pwned.d")) + " 2>/dev/null\n" +
		"ln -s /bin/sh " + q(filepath.Join(w.UserHome, "pwned-link")) + " 2>/dev/null\n" +
		"exit 0\n"
	for _, name := range recorders {
		if err := os.WriteFile(filepath.Join(w.bin, name), []byte(recorder), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.ExtraEnv = append(w.ExtraEnv, "PATH="+w.bin+":"+os.Getenv("PATH"), "GOTOOLCHAIN=local")
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		w.gocache = strings.TrimSpace(string(out))
		w.ExtraEnv = append(w.ExtraEnv, "GOCACHE="+w.gocache)
		writeUserConfig(t, w.world, fmt.Sprintf("[sandbox]\nwritable = [%q]\n", w.gocache))
		mod := filepath.Join(w.Project, "gomod")
		if err := os.Mkdir(mod, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n",
			"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestM(t *testing.T) {}\n"} {
			if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return w
}

// lines are the issue's bypasses (first, while the project is whole) and
// the corpus of the rule tests (internal/tools/testdata/
// sandbox-corpus.jsonl), each once.
func (w *bypassWorld) lines(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtures.Root(t), "internal", "tools", "testdata", "sandbox-corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	for _, l := range slices.Concat(issueBypasses, issueOthers) {
		if w.gocache != "" || !strings.Contains(l, "go test") {
			out = append(out, l)
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Line string `json:"line"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("sandbox-corpus.jsonl: %v", err)
		}
		if !slices.Contains(out, l.Line) {
			out = append(out, l.Line)
		}
	}
	if err := sc.Err(); err != nil || len(out) < 300 {
		t.Fatalf("sandbox-corpus.jsonl: %d lines, %v", len(out), err)
	}
	return out
}

// TestSandboxContainsEveryBypass: issue 32. Every command line the
// permission rules were tested with — the rule tests' tables, the fuzz
// targets' seeds and corpora (internal/tools/testdata/sandbox-corpus.jsonl,
// kept current by the tools' tests) — and every bypass the issue names,
// run inside the sandbox in workspace-write mode as the agent's commands
// are (`clawdcode sandbox`), each whatever rule let it through (all of
// them: in accept-edits mode any contained command runs without a rule),
// changes nothing outside the project, nor its
// .git/config, .git/hooks/ or .clawdcode/. Their payloads (touch, rm, x,
// evil) are a recorder that notes it ran and then tries to write $HOME,
// beside the temporary directory, the system's /tmp, CLAWDCODE_HOME, its
// own directory, .git/config, .git/hooks/ and .clawdcode/; each of the
// issue's bypasses must get as far as running it. One sandbox host runs
// every line, each in a bash of its own, in the project.
func TestSandboxContainsEveryBypass(t *testing.T) {
	t.Parallel()
	w := newBypassWorld(t)
	lines := w.lines(t)
	var data []byte
	for _, l := range lines {
		data = append(append(data, l...), 0)
	}
	corpus := filepath.Join(w.bin, "lines")
	if err := os.WriteFile(corpus, data, 0o644); err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(w.bin, "run-lines")
	script := strings.NewReplacer("PROJECT", shellQuote(w.Project), "PROBE", shellQuote(filepath.Join(w.UserHome, "probe")),
		"LINES", shellQuote(corpus)).Replace(bypassRunner)
	if err := os.WriteFile(runner, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	named := namedPaths(lines)
	w.MustRun("sandbox", "--", "true") // the sandbox's own first-run places (.clawdcode/), before the picture
	before := outsideState(t, w, named)

	r := w.Run("sandbox", "--", runner)
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != fmt.Sprintf("ran %d", len(lines)) {
		t.Fatalf("the runner in the sandbox: want all %d lines run\n%s", len(lines), r)
	}
	diffStates(t, before, outsideState(t, w, named))
	ran, _ := recorded(t, w.ran)
	for _, l := range issueBypasses {
		i := slices.Index(lines, l)
		if i >= 0 && !ran[strconv.Itoa(i+1)] {
			out, _ := os.ReadFile(filepath.Join(w.Tmp, fmt.Sprintf("out.%d", i+1)))
			t.Errorf("the issue's bypass %q never reached its payload in the sandbox; it said:\n%s", l, out)
		}
	}
	t.Logf("%d lines run in one sandbox host; %d of them ran a recorder; %s", len(lines), len(ran), runSummary(w, lines))
}

// runSummary says how many lines the runner's time limit stopped and
// which lines took longest, from the runner's log of statuses.
func runSummary(w *bypassWorld, lines []string) string {
	data, _ := os.ReadFile(filepath.Join(w.Tmp, "statuses"))
	type took struct {
		secs float64
		line string
	}
	var all []took
	stopped := 0
	for l := range strings.Lines(string(data)) {
		f := strings.Fields(l) // number, status, start, end
		if len(f) != 4 {
			continue
		}
		i, _ := strconv.Atoi(f[0])
		start, _ := strconv.ParseFloat(f[2], 64)
		end, _ := strconv.ParseFloat(f[3], 64)
		if f[1] == "124" || f[1] == "137" {
			stopped++
		}
		if i >= 1 && i <= len(lines) {
			all = append(all, took{end - start, lines[i-1]})
		}
	}
	slices.SortFunc(all, func(a, b took) int { return cmp.Compare(b.secs, a.secs) })
	var slowest []string
	for _, t := range all[:min(len(all), 5)] {
		slowest = append(slowest, fmt.Sprintf("%.1fs %.60q", t.secs, t.line))
	}
	return fmt.Sprintf("%d stopped by the time limit; slowest: %s", stopped, strings.Join(slowest, ", "))
}

// bypassRunner is the script that runs each NUL-terminated line of
// LINES with bash, in the project, its stdin empty, CORPUS_LINE its number
// (for the recorder), bounded by timeout(1) as a net for a line that waits
// on a terminal or loops, two lines at a time. It first makes sure the
// sandbox holds (a write to $HOME fails), keeps a copy of .git, and puts
// .git's files back when a line removed them (find . -delete), so that
// the lines after it still run in a repository.
const bypassRunner = `#!/bin/bash
cd PROJECT || exit 90
if : 2>/dev/null > PROBE; then echo 'not contained'; exit 91; fi
cp -a .git "$TMPDIR/pristine.git" || exit 92
mapfile -d '' lines < LINES
run() {
	for ((i = $1; i < ${#lines[@]}; i += 2)); do
		if [ ! -e .git/HEAD ] || [ ! -d .git/objects ]; then cp -a "$TMPDIR/pristine.git/." .git/ 2>/dev/null; fi
		t0=$EPOCHREALTIME
		CORPUS_LINE=$((i + 1)) timeout -k 1 5 bash -c "${lines[i]}" </dev/null >"$TMPDIR/out.$((i + 1))" 2>&1
		echo "$((i + 1)) $? $t0 $EPOCHREALTIME" >> "$TMPDIR/statuses"
	done
}
run 0 & run 1 & wait
echo "ran $(wc -l < "$TMPDIR/statuses")"
`

// namedPaths are the absolute paths outside the world the lines name
// (/tmp/x, /tmp/l, …): their state is part of the picture.
func namedPaths(lines []string) []string {
	var out []string
	for _, l := range lines {
		for _, m := range tmpPath.FindAllString(l, -1) {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

var tmpPath = regexp.MustCompile(`/tmp/[A-Za-z0-9._-]+`)

// outsideState is the state of everything a command in the sandbox must
// not change: every file, directory and link under the world's root but
// the temporary directory, the project — of the project, its .git/config,
// .git/hooks/ and .clawdcode/ — and the directories to skip, and the
// given paths, each as its type, mode, size, modification time and
// content's hash.
func outsideState(t *testing.T, w *bypassWorld, extra []string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	protected := []string{filepath.Join(w.Project, ".git", "config"), filepath.Join(w.Project, ".git", "hooks"),
		filepath.Join(w.Project, ".clawdcode")}
	err := filepath.WalkDir(w.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == w.Tmp || slices.Contains(skip, path) {
			return filepath.SkipDir
		}
		if path == w.Project {
			return nil // its own entries may change: the project is writable
		}
		if within(w.Project, path) && path != w.Project && !slices.ContainsFunc(protected, func(p string) bool { return within(p, path) }) {
			if d.IsDir() && !slices.ContainsFunc(protected, func(p string) bool { return within(path, p) }) {
				return filepath.SkipDir
			}
			return nil
		}
		out[path] = pathState(path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out[w.stray] = pathState(w.stray)
	for _, p := range extra {
		out[p] = pathState(p)
	}
	return out
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func pathState(path string) string {
	info, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	s := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
	if info.Mode().IsRegular() {
		data, err := os.ReadFile(path)
		if err != nil {
			return s + " unreadable"
		}
		s += fmt.Sprintf(" %x", sha256.Sum256(data))
	}
	return s
}

// diffStates fails the test for every path whose state changed.
func diffStates(t *testing.T, before, after map[string]string) {
	t.Helper()
	var changed []string
	for p, s := range after {
		if before[p] != s && !(before[p] == "" && s == "absent") {
			changed = append(changed, fmt.Sprintf("%s: %q → %q", p, before[p], s))
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, p+": gone")
		}
	}
	slices.Sort(changed)
	for _, c := range changed {
		t.Errorf("changed from inside the sandbox: %s", c)
	}
}

// recorded reads the recorder's log: the CORPUS_LINE numbers of the
// lines that ran it, and the arguments it was run with.
func recorded(t *testing.T, log string) (lines, args map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	lines, args = map[string]bool{}, map[string]bool{}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] != "-" {
			lines[f[0]] = true
		}
		if len(f) > 2 {
			args[strings.Join(f[2:], " ")] = true
		}
	}
	return lines, args
}

// shellQuote quotes s as one word for a shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestSandboxContainsTheAgentsBypasses: issue 32, through the agent. In
// accept-edits mode, with the rules that let the issue's bypasses through
// (Write(.git/config), Bash(git:*), Bash(go test:*)), the model writes a
// core.fsmonitor command into .git/config — Write runs outside the
// sandbox, under its rule, and its new file replaces the one the running
// sandbox protects — and runs `git status`, which runs it; then it
// runs each of the issue's bypasses, one of them in the background. Every
// payload runs, inside the sandbox, and nothing outside the project
// changes: .git/config holds what the Write put there, and nothing of what
// the payloads tried to add.
func TestSandboxContainsTheAgentsBypasses(t *testing.T) {
	t.Parallel()
	w := newBypassWorld(t)
	config := filepath.Join(w.Project, ".git", "config")
	orig, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	written := string(orig) + "[core]\n\tfsmonitor = touch FSMONITOR\n"
	bash := func(command string, background bool) llmtest.ToolCall {
		in, _ := json.Marshal(map[string]any{"command": command, "run_in_background": background, "timeout": 600000})
		return llmtest.Call("Bash", string(in))
	}
	write, _ := json.Marshal(map[string]string{"file_path": config, "content": written})
	// A command first, so that the Write's new file replaces the one the
	// running host protects (the host must protect the new one).
	calls := []llmtest.ToolCall{bash("true", false), llmtest.Call("Read", fmt.Sprintf(`{"file_path": %q}`, config)),
		llmtest.Call("Write", string(write)), bash("git status", false)}
	var payloads []string
	for i, l := range issueBypasses {
		if w.gocache == "" && strings.Contains(l, "go test") {
			continue
		}
		payload := fmt.Sprintf("X%d", i)
		payloads = append(payloads, payload)
		calls = append(calls, bash(strings.ReplaceAll(l, "touch X", "touch "+payload), false))
	}
	for _, l := range issueOthers {
		calls = append(calls, bash(l, false))
	}
	payloads = append(payloads, "XBG")
	calls = append(calls, bash("trap 'touch XBG' EXIT; sleep 0.1", true),
		bash("for i in $(seq 600); do grep -q ' XBG$' "+shellQuote(w.ran)+" && exit 0; sleep 0.1; done; exit 1", false))
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if last := r.Messages[len(r.Messages)-1]; last.Role == chat.RoleUser {
			return llmtest.ToolCalls(calls...)
		}
		return llmtest.Text("done")
	})
	named := namedPaths(slices.Concat(issueBypasses, issueOthers))
	w.MustRun("sandbox", "--", "true") // the sandbox's own first-run places (.clawdcode/), before the picture
	before := outsideState(t, w, named, w.Home)

	w.MustRun("-p", "--permission-mode", "acceptEdits", "--allowed-tools", "Write(.git/config) Bash(git:*) Bash(go test:*)", "go")
	results := lastToolResults(w.world)
	if len(results) != len(calls) {
		t.Fatalf("%d tool results, want %d: %q", len(results), len(calls), results)
	}
	for i, got := range results {
		if strings.Contains(got, "was denied") || strings.Contains(got, "Permission to use") {
			t.Errorf("call %d (%s) did not run: %s", i, calls[i].Arguments, got)
		}
	}
	if have, _ := os.ReadFile(config); string(have) != written {
		t.Errorf(".git/config holds more than the Write put there:\n%s", have)
	}
	after := outsideState(t, w, named, w.Home)
	after[config] = before[config]
	diffStates(t, before, after)
	if entries, _ := filepath.Glob(filepath.Join(w.Home, "pwned*")); len(entries) > 0 {
		t.Errorf("written in CLAWDCODE_HOME from inside the sandbox: %v", entries)
	}
	_, args := recorded(t, w.ran)
	for _, p := range append(payloads, "FSMONITOR") {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(args)), func(a string) bool { return a == p || strings.HasPrefix(a, p+" ") }) {
			t.Errorf("the payload %s never ran; results: %q", p, results)
		}
	}
}
