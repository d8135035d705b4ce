package perf

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// world is one isolated user of the binary: a HOME, a CLAWDCODE_HOME, a
// project directory and an instant chat-completions server.
type world struct {
	root    string
	home    string // CLAWDCODE_HOME
	project string
	srv     *llmtest.Server
	env     []string // extra variables, after the defaults
	// stdin, when set, is the file runs read their standard input from.
	stdin string
	// baseURL, when set, replaces srv as the endpoint (see newRawServer).
	baseURL string
}

func newWorld(tb testing.TB) *world {
	tb.Helper()
	root := tb.TempDir()
	w := &world{
		root:    root,
		home:    filepath.Join(root, "clawdcode-home"),
		project: filepath.Join(root, "project"),
		srv:     llmtest.NewServer(tb, llmtest.Options{}),
	}
	for _, d := range []string{w.project, filepath.Join(root, "user"), filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	return w
}

func (w *world) environ() []string {
	url := w.baseURL
	if url == "" {
		url = w.srv.URL()
	}
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(w.root, "user"),
		"TMPDIR=" + filepath.Join(w.root, "tmp"),
		"CLAWDCODE_HOME=" + w.home,
		"OPENAI_BASE_URL=" + url,
		"OPENAI_API_KEY=perf-key",
	}, w.env...)
}

// run is one finished clawdcode process.
type run struct {
	wall   time.Duration
	cpu    time.Duration // user + system, the process's own
	maxRSS int64         // KiB
	stdout string
	stderr string
}

// run starts clawdcode with args in the project directory, through the
// launcher, and fails the benchmark unless it exits 0.
func (w *world) run(tb testing.TB, args ...string) run {
	tb.Helper()
	bin, launcher := binaries(tb)
	result := filepath.Join(w.root, "run.result")
	cmd := exec.Command(launcher, append([]string{result, bin}, args...)...)
	cmd.Dir = w.project
	cmd.Env = w.environ()
	if w.stdin != "" {
		f, err := os.Open(w.stdin)
		if err != nil {
			tb.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("launch clawdcode %q: %v\n%s", args, err, stderr.String())
	}
	line, err := os.ReadFile(result)
	if err != nil {
		tb.Fatal(err)
	}
	var wall, rss, code, cpu int64
	if _, err := fmt.Sscan(string(line), &wall, &rss, &code, &cpu); err != nil {
		tb.Fatalf("launcher result %q: %v", line, err)
	}
	if code != 0 {
		tb.Fatalf("clawdcode %s: exit %d\nstdout: %s\nstderr: %s", clip(strings.Join(args, " "), 200), code, clip(stdout.String(), 2000), clip(stderr.String(), 2000))
	}
	return run{wall: time.Duration(wall), cpu: time.Duration(cpu), maxRSS: rss, stdout: stdout.String(), stderr: stderr.String()}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// sample collects the runs of one benchmark and reports them: the mean and
// the median wall time, and the highest peak RSS seen.
type sample struct {
	walls, cpus []time.Duration
	rss         int64
}

func (s *sample) add(r run) {
	s.walls = append(s.walls, r.wall)
	s.cpus = append(s.cpus, r.cpu)
	s.rss = max(s.rss, r.maxRSS)
}

func (s *sample) report(b *testing.B, prefix string) {
	if len(s.walls) == 0 {
		return
	}
	b.ReportMetric(ms(mean(s.walls)), prefix+"ms/op")
	b.ReportMetric(ms(median(s.walls)), prefix+"p50-ms")
	// The process's own CPU (user + system) is what a busy machine leaves
	// least changed; the wall time moves with the other processes.
	b.ReportMetric(ms(median(s.cpus)), prefix+"p50-cpu-ms")
	b.ReportMetric(float64(s.rss)/1024, prefix+"peak-MiB")
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// jsonResult is the part of `-p --output-format json` the benchmarks check.
type jsonResult struct {
	IsError     bool   `json:"is_error"`
	Result      string `json:"result"`
	SessionID   string `json:"session_id"`
	NumTurns    int    `json:"num_turns"`
	Compactions int    `json:"compactions"`
}
