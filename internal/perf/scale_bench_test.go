package perf

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// BenchmarkScale is `make bench-scale` (docs/bench-scale.md): cold and
// warm list, resume and search over the corpora of scale_corpus_test.go
// (10,000 small sessions, one 1 GiB session, 10 GiB of 4 MiB sessions),
// through this tree's binary, a baseline build (SCALE_BASE, the path of
// another clawdcode: `make bench-scale` builds main's) and ripgrep's
// scans of the same files, in one run, with the machine's load noted for
// each row. It prints a table when the run ends.
//
// Each operation takes its own number of samples (its median is
// reported): run it with -benchtime=1x. SCALE_CORPORA picks corpora
// ("small,1g", say); every one by default.
//
// What "cold" means: the derived index the operation could use is
// removed before each run (index.json for list and resume, the search
// index for search); the session files stay in the page cache. A resume
// is `-r <id> -p` against an instant in-process server; the records it
// appends are cut off again after each run, so the corpus stays as it
// was generated.
func BenchmarkScale(b *testing.B) {
	names := []string{"small", "1g", "10g"}
	if v := os.Getenv("SCALE_CORPORA"); v != "" {
		names = strings.Split(v, ",")
	}
	for _, name := range names {
		c, ok := scaleCorpora[name]
		if !ok {
			b.Fatalf("SCALE_CORPORA: no corpus %q", name)
		}
		b.Run(name, func(b *testing.B) {
			h, err := c.open(b.Logf)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				scaleCorpusRows(b, c, h)
			}
		})
	}
}

// scaleProgram is a binary measured side by side.
type scaleProgram struct {
	name, path string
}

// scalePrograms are the baseline (when SCALE_BASE names one) and this
// tree's binary, in the order each operation runs them.
func scalePrograms(b *testing.B) []scaleProgram {
	tree, _ := binaries(b)
	var out []scaleProgram
	if base := os.Getenv("SCALE_BASE"); base != "" {
		abs, err := filepath.Abs(base)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, scaleProgram{"base", abs})
	}
	return append(out, scaleProgram{"tree", tree})
}

// scaleRows measures every operation on one corpus.
func scaleCorpusRows(b *testing.B, c scaleCorpus, h *scaleHome) {
	progs := scalePrograms(b)
	w := &world{root: h.dir, home: h.home, project: h.project, srv: llmtest.NewServer(b, llmtest.Options{}),
		env: []string{"CLAWDCODE_CONTEXT_WINDOW=1000000", "CLAWDCODE_MODEL=gpt-4.1"}}
	for _, d := range []string{filepath.Join(h.dir, "user"), filepath.Join(h.dir, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	w.srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Text(fmt.Sprintf("Resumed with %d messages.", len(r.Messages)))
	})
	index := filepath.Join(h.pdir, "index.json")
	noIndex := func() { os.Remove(index) }
	noSearch := func() { os.RemoveAll(filepath.Join(h.home, "search")) }
	resumeID := h.ids[len(h.ids)-1]
	session := filepath.Join(h.pdir, resumeID+".jsonl")
	fi, err := os.Stat(session)
	if err != nil {
		b.Fatal(err)
	}
	restore := func() {
		if err := os.Truncate(session, fi.Size()); err != nil {
			b.Fatal(err)
		}
	}
	rare, common := scaleQueries(b, h)
	ops := []scaleOp{
		{op: "list, cold", runs: 5, before: noIndex, args: []string{"sessions", "list", "--json"}},
		{op: "list, warm", runs: 7, args: []string{"sessions", "list", "--json"}},
		{op: "resume, cold", runs: 5, before: noIndex, after: restore, args: []string{"-r", resumeID, "-p", "Where were we?"}},
		{op: "resume, warm", runs: 5, after: restore, args: []string{"-r", resumeID, "-p", "Where were we?"}},
		{op: "search, first", runs: c.firstSearchRuns(), before: noSearch, args: []string{"search", "--json", "--limit", "100", rare}},
		{op: "search, warm (rare)", runs: 7, args: []string{"search", "--json", "--limit", "100", rare}},
		{op: "search, warm (common)", runs: 7, args: []string{"search", "--json", "--limit", "100", common}},
	}
	for _, op := range ops {
		row := scaleRow{corpus: c.name, bytes: h.total, op: op.op}
		for _, p := range progs {
			if op.before == nil {
				// A warm run: the index as this program builds it.
				w.launch(b, p.path, op.args...)
				if op.after != nil {
					op.after()
				}
			}
			row.add(p.name, op.sample(b, w, p.path))
		}
		scaleTable.add(row)
	}
	rgRows(b, c, h, rare)
}

// firstSearchRuns is how many times the first search over the corpus is
// timed: each builds the index from every byte.
func (c scaleCorpus) firstSearchRuns() int {
	switch size := int64(c.sessions) * c.bytes; {
	case size >= 8<<30:
		return 1
	case size >= 512<<20:
		return 2
	}
	return 3
}

// scaleQueries picks the corpus's search words: an identifier with a
// number from the middle of its last session (rare: in few records), and
// two of its most common words (in most: every posting decoded).
func scaleQueries(b *testing.B, h *scaleHome) (rare, common string) {
	f, err := os.Open(filepath.Join(h.pdir, h.ids[len(h.ids)-1]+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	n, _ := f.ReadAt(buf, fi.Size()/2)
	m := identifier.Find(buf[:n])
	if m == nil {
		b.Fatal("no identifier in the corpus to search for")
	}
	return string(m[1 : len(m)-1]), "handler timeout"
}

var identifier = regexp.MustCompile(` [a-z]{4,}[0-9]{3,5} `)

// scaleOp is one operation timed runs times per program.
type scaleOp struct {
	op            string
	runs          int
	before, after func()
	args          []string
}

func (op scaleOp) sample(b *testing.B, w *world, bin string) scaleSample {
	var s scaleSample
	for range op.runs {
		if op.before != nil {
			op.before()
		}
		s.load = append(s.load, loadAvg())
		r := w.launch(b, bin, op.args...)
		if op.after != nil {
			op.after()
		}
		s.walls = append(s.walls, r.wall)
		s.cpus = append(s.cpus, r.cpu)
		s.rss = max(s.rss, r.maxRSS)
	}
	return s
}

// launch is world.run with another binary.
func (w *world) launch(tb testing.TB, bin string, args ...string) run {
	tb.Helper()
	return launchIn(tb, w.project, w.environ(), bin, args...)
}

// launchIn runs bin through the launcher in dir with env, and fails the
// benchmark unless it exits 0.
func launchIn(tb testing.TB, dir string, env []string, bin string, args ...string) run {
	tb.Helper()
	_, launcher := binaries(tb)
	result := filepath.Join(scratch, "scale.result")
	cmd := exec.Command(launcher, append([]string{result, bin}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("launch %s %q: %v\n%s", bin, args, err, stderr.String())
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
		tb.Fatalf("%s %s: exit %d\nstderr: %s", filepath.Base(bin), clip(strings.Join(args, " "), 200), code, clip(stderr.String(), 2000))
	}
	return run{wall: time.Duration(wall), cpu: time.Duration(cpu), maxRSS: rss, stdout: stdout.String(), stderr: stderr.String()}
}

// rgRows times ripgrep's scans of the corpus's files: for the search's
// word (what a user without the index runs), for the user records a
// listing counts, and for the boundary a resume looks for in its session.
func rgRows(b *testing.B, c scaleCorpus, h *scaleHome, word string) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Logf("ripgrep not found: no rg rows (apt-get install ripgrep)")
		return
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(h.dir, "user")}
	session := filepath.Join(h.pdir, h.ids[len(h.ids)-1]+".jsonl")
	for _, s := range []struct {
		op   string
		args []string
	}{
		{"rg: the search's word", []string{"--count", "--ignore-case", "--fixed-strings", word, h.pdir}},
		{"rg: user records (list)", []string{"--count", "--fixed-strings", `"type":"user"`, h.pdir}},
		{"rg: boundaries (resume)", []string{"--count", "--fixed-strings", "compact_boundary", session}},
	} {
		var smp scaleSample
		launchRG(b, h.dir, env, rg, s.args) // warm the page cache
		for range 5 {
			smp.load = append(smp.load, loadAvg())
			r := launchRG(b, h.dir, env, rg, s.args)
			smp.walls = append(smp.walls, r.wall)
			smp.cpus = append(smp.cpus, r.cpu)
			smp.rss = max(smp.rss, r.maxRSS)
		}
		row := scaleRow{corpus: c.name, bytes: h.total, op: s.op}
		row.add("rg", smp)
		scaleTable.add(row)
	}
}

// launchRG runs ripgrep, whose exit status 1 means no match (not a
// failure).
func launchRG(b *testing.B, dir string, env []string, rg string, args []string) run {
	b.Helper()
	_, launcher := binaries(b)
	result := filepath.Join(scratch, "scale.result")
	cmd := exec.Command(launcher, append([]string{result, rg}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout = new(bytes.Buffer)
	if err := cmd.Run(); err != nil {
		b.Fatalf("launch rg: %v", err)
	}
	line, err := os.ReadFile(result)
	if err != nil {
		b.Fatal(err)
	}
	var wall, rss, code, cpu int64
	if _, err := fmt.Sscan(string(line), &wall, &rss, &code, &cpu); err != nil || code > 1 {
		b.Fatalf("rg %q: %q %v", args, line, err)
	}
	return run{wall: time.Duration(wall), cpu: time.Duration(cpu), maxRSS: rss}
}

// loadAvg is the one-minute load average.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}

// scaleSample is one program's runs of one operation.
type scaleSample struct {
	walls, cpus []time.Duration
	rss         int64 // KiB, the highest
	load        []float64
}

func medianDur(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return median(ds)
}

// scaleRow is one line of the table: an operation on a corpus, by each
// program.
type scaleRow struct {
	corpus string
	bytes  int64
	op     string
	progs  []string
	smp    []scaleSample
}

func (r *scaleRow) add(prog string, s scaleSample) {
	r.progs = append(r.progs, prog)
	r.smp = append(r.smp, s)
}

func (r *scaleRow) get(prog string) (scaleSample, bool) {
	if i := slices.Index(r.progs, prog); i >= 0 {
		return r.smp[i], true
	}
	return scaleSample{}, false
}

// scaleTable gathers the rows; TestMain prints it when the run ends.
var scaleTable scaleRows

type scaleRows struct{ rows []scaleRow }

func (t *scaleRows) add(r scaleRow) { t.rows = append(t.rows, r) }

// print writes the table in Markdown: per row the median wall time, the
// median CPU time and the highest peak RSS of each program, the CPU
// ratio of this tree to the baseline, and the mean load while it ran.
func (t *scaleRows) print(w *os.File) {
	if len(t.rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| corpus | operation | main (baseline) | tree | tree ÷ main, CPU | ripgrep | load |\n|---|---|---|---|---|---|---|\n")
	for _, r := range t.rows {
		cells := make([]string, 3)
		var load []float64
		for i, prog := range []string{"base", "tree", "rg"} {
			s, ok := r.get(prog)
			if !ok {
				cells[i] = "—"
				continue
			}
			load = append(load, s.load...)
			cells[i] = s.figures(r)
		}
		ratio := ""
		if b, ok := r.get("base"); ok {
			if tr, ok := r.get("tree"); ok && medianDur(b.cpus) > 0 {
				ratio = fmt.Sprintf("%.2f×", float64(medianDur(tr.cpus))/float64(medianDur(b.cpus)))
			}
		}
		fmt.Fprintf(w, "| %s (%s) | %s | %s | %s | %s | %s | %.1f |\n", r.corpus, sizeText(r.bytes), r.op, cells[0], cells[1], ratio, cells[2], meanFloat(load))
	}
}

// figures is one program's cell: wall, CPU and peak RSS, and for a first
// search the bytes indexed per second of CPU.
func (s scaleSample) figures(r scaleRow) string {
	if len(s.walls) == 0 {
		return "—"
	}
	cell := fmt.Sprintf("%s · %s CPU · %.0f MiB", durText(medianDur(s.walls)), durText(medianDur(s.cpus)), float64(s.rss)/1024)
	if strings.HasPrefix(r.op, "search, first") {
		cell += fmt.Sprintf(" · %.0f MB/CPU-s", float64(r.bytes)/1e6/medianDur(s.cpus).Seconds())
	}
	return cell
}

func durText(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func sizeText(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

func meanFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
