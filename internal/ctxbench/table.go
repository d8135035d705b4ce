package ctxbench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// Price is a model's list price in dollars per million tokens.
type price struct{ input, cached, output float64 }

// prices are the list prices the cost column uses (OpenAI, per million
// tokens); the bench's model is gpt-4o, clawdcode's default.
var prices = map[string]price{
	"gpt-4o":      {input: 2.50, cached: 1.25, output: 10.00},
	"gpt-4o-mini": {input: 0.15, cached: 0.075, output: 0.60},
	"gpt-4.1":     {input: 2.00, cached: 0.50, output: 8.00},
}

const benchModel = "gpt-4o"

// row is one line of the table: every session of one config, summed.
type row struct {
	cfg      config
	sessions int
	total    sessionResult
	probes   map[int]probeResult // summed over the sessions that got there
	reached  map[int]int         // sessions that reached each milestone
	end      probeResult         // the probes after the last task, summed
	reorient []int
	cold     []int
	violated int
}

func newRow(cfg config) *row {
	return &row{cfg: cfg, probes: map[int]probeResult{}, reached: map[int]int{}, end: newProbeResult()}
}

func (rw *row) add(r sessionResult) {
	rw.sessions++
	t := &rw.total
	t.tasks += r.tasks
	t.finished += r.finished
	t.agentRequests += r.agentRequests
	t.summaries += r.summaries
	t.rejected += r.rejected
	t.prompt += r.prompt
	t.cached += r.cached
	t.fresh += r.fresh
	t.completion += r.completion
	t.compactions += r.compactions
	t.subRequests += r.subRequests
	t.subPrompt += r.subPrompt
	t.subCached += r.subCached
	t.wall += r.wall
	t.cpu += r.cpu
	for m, p := range r.probes {
		rw.reached[m]++
		sum, ok := rw.probes[m]
		if !ok {
			sum = newProbeResult()
		}
		sum.add(p)
		rw.probes[m] = sum
	}
	rw.end.add(r.end)
	rw.reorient = append(rw.reorient, r.reorient)
	rw.cold = append(rw.cold, r.cold)
	if r.violated {
		rw.violated++
	}
}

// add sums q into p (whose maps are made).
func (p probeResult) add(q probeResult) {
	addCounts(p.planted, q.planted)
	addCounts(p.present, q.present)
	addCounts(p.available, q.available)
	addCounts(p.rangePlanted, q.rangePlanted)
	addCounts(p.rangePresent, q.rangePresent)
}

func addCounts(dst, src map[string]int) {
	for k, v := range src {
		dst[k] += v
	}
}

// share is present/planted as a percentage, "–" when nothing was planted.
func share(present, planted int) string {
	if planted == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", 100*float64(present)/float64(planted))
}

// facts is the probe's figures after m compactions: recall, artifacts,
// continuation and decisions present, in percent, "R/A/C/D".
func (rw *row) facts(m int) string {
	p, ok := rw.probes[m]
	if !ok {
		return "–"
	}
	return p.shares(p.present)
}

// avail is facts for the facts available (present, or behind a ref).
func (rw *row) avail(m int) string {
	p, ok := rw.probes[m]
	if !ok {
		return "–"
	}
	return p.shares(p.available)
}

// shares is got of the planted facts by class, in percent, "R/A/C/D".
func (p probeResult) shares(got map[string]int) string {
	var parts []string
	for _, c := range []llmtest.FactClass{llmtest.FactRecall, llmtest.FactArtifact, llmtest.FactContinuation, llmtest.FactDecision} {
		parts = append(parts, share(got[string(c)], p.planted[string(c)]))
	}
	return strings.Join(parts, "/")
}

// rangeShare is, after the first compaction, the share of the compacted
// range's artifacts still in the request: paths/commands/exits/numbers.
func (rw *row) rangeShare() string {
	p, ok := rw.probes[1]
	if !ok {
		return "–"
	}
	var parts []string
	for _, k := range []string{"path", "command", "exit", "number"} {
		parts = append(parts, share(p.rangePresent[k], p.rangePlanted[k]))
	}
	return strings.Join(parts, "/")
}

// never is the cost of a re-orientation that never reached its edit.
const never = math.MaxInt

// medianCost is the median of the re-orientation costs, a never-edited
// one (-1) counted as never; never when xs is empty.
func medianCost(xs []int) int {
	if len(xs) == 0 {
		return never
	}
	s := append([]int(nil), xs...)
	for i := range s {
		if s[i] < 0 {
			s[i] = never
		}
	}
	slices.Sort(s)
	return s[len(s)/2]
}

// median is medianCost as the table shows it.
func median(xs []int) string {
	switch m := medianCost(xs); {
	case len(xs) == 0:
		return "–"
	case m == never:
		return "never"
	default:
		return fmt.Sprint(m)
	}
}

// cost is the dollars of the row's tokens at benchModel's list prices.
func (rw *row) cost() float64 {
	p := prices[benchModel]
	t := rw.total
	return (float64(t.prompt-t.cached)*p.input + float64(t.cached)*p.cached + float64(t.completion)*p.output) / 1e6
}

// costEquivalent is the row's input tokens with the cached ones weighted
// at a tenth, what providers that bill cached input at a tenth charge for.
func (rw *row) costEquivalent() float64 {
	t := rw.total
	return float64(t.prompt-t.cached) + float64(t.cached)/10
}

func perTask(n, tasks int) float64 {
	if tasks == 0 {
		return 0
	}
	return float64(n) / float64(tasks)
}

// header and line are the table's columns; docs/context-bench.md says
// what each one means.
const header = "build\twindow\tsummariser\tsessions\ttasks\tfinished\tturns\tcompactions" +
	"\tfacts@1 R/A/C/D %\tfacts@5\tfacts@10\tavail@1 R/A/C/D %\tavail@5\tavail@10\tfacts@end\tavail@end" +
	"\trange@1 P/C/E/N %\treorient (cold)\tviolations\tin tok/task\tcost-eq tok/task\tcached %\tcache ceiling %\t$/task" +
	"\tsummaries/turn\trejected\twall s\tCPU s"

func (rw *row) line() string {
	t := rw.total
	return fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s (%s)\t%d\t%.0f\t%.0f\t%s\t%s\t%.4f\t%.3f\t%d\t%.1f\t%.1f",
		rw.cfg.build.name, windowName(rw.cfg), rw.cfg.mode, rw.sessions, t.tasks, t.finished, t.agentRequests, t.compactions,
		rw.facts(1), rw.facts(5), rw.facts(10), rw.avail(1), rw.avail(5), rw.avail(10),
		rw.end.shares(rw.end.present), rw.end.shares(rw.end.available), rw.rangeShare(),
		median(rw.reorient), median(rw.cold), rw.violated,
		perTask(t.prompt, t.tasks), rw.costEquivalent()/float64(max(1, t.tasks)), share(t.cached, t.prompt), share(t.prompt-t.fresh, t.prompt),
		rw.cost()/float64(max(1, t.tasks)), perTask(t.summaries, t.agentRequests), t.rejected, t.wall.Seconds(), t.cpu.Seconds())
}

// windowName is a row's window as the table shows it: "8k", or "8k
// served" when the server reported it.
func windowName(cfg config) string {
	if cfg.served {
		return fmt.Sprintf("%dk served", cfg.window/1000)
	}
	return fmt.Sprintf("%dk", cfg.window/1000)
}

// printTable writes the rows as one aligned table.
func printTable(out io.Writer, rows []*row, elapsed time.Duration) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, rw := range rows {
		fmt.Fprintln(tw, rw.line())
	}
	_ = tw.Flush()
	fmt.Fprintf(out, "bench time %.0f s; prices per M tokens (%s): input %.2f, cached %.2f, output %.2f\n",
		elapsed.Seconds(), benchModel, prices[benchModel].input, prices[benchModel].cached, prices[benchModel].output)
}

// memRow is the multi-session corpus's line: every project, summed.
type memRow struct {
	projects int
	total    memResult
}

func (mr *memRow) add(r memResult) {
	mr.projects++
	t := &mr.total
	t.carried += r.carried
	t.carriedPresent += r.carriedPresent
	t.stale += r.stale
	t.staleWithheld += r.staleWithheld
	t.leaks += r.leaks
	t.early += r.early
	t.wall += r.wall
	t.cpu += r.cpu
}

// memHeader is the multi-session table's columns (docs/context-bench.md).
const memHeader = "memory\tprojects\tcarried %\tstale withheld %\tleaks\tsuggestions sent early\twall s\tCPU s"

func (mr *memRow) line() string {
	t := mr.total
	return fmt.Sprintf("across sessions\t%d\t%s\t%s\t%d\t%d\t%.1f\t%.1f", mr.projects,
		share(t.carriedPresent, t.carried), share(t.staleWithheld, t.stale), t.leaks, t.early,
		t.wall.Seconds(), t.cpu.Seconds())
}

// printMemTable writes the multi-session corpus's row as a table of its own.
func printMemTable(out io.Writer, mr *memRow) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, memHeader)
	fmt.Fprintln(tw, mr.line())
	_ = tw.Flush()
}
