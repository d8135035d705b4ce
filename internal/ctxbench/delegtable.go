package ctxbench

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// delegHeader is the delegation suite's columns (docs/context-bench.md):
// the parent's figures, a subagent's apart.
const delegHeader = "build\twindow\texploring\tsessions\ttasks\tfinished\tparent turns\tcompactions" +
	"\tparent in tok/task\tparent cost-eq tok/task\tparent cached %\tsubagent requests\tsubagent in tok/task" +
	"\tfacts@end R/A/C/D %\tsummaries/turn\trejected\twall s\tCPU s"

func (rw *row) delegLine() string {
	t := rw.total
	exploring := "self"
	if rw.cfg.delegate {
		exploring = "Task"
	}
	parent, parentCached := t.prompt-t.subPrompt, t.cached-t.subCached
	costEq := float64(parent-parentCached) + float64(parentCached)/10
	return fmt.Sprintf("%s\t%dk\t%s\t%d\t%d\t%d\t%d\t%d\t%.0f\t%.0f\t%s\t%d\t%.0f\t%s\t%.3f\t%d\t%.1f\t%.1f",
		rw.cfg.build.name, rw.cfg.window/1000, exploring, rw.sessions, t.tasks, t.finished, t.agentRequests, t.compactions,
		perTask(parent, t.tasks), costEq/float64(max(1, t.tasks)), share(parentCached, parent), t.subRequests,
		perTask(t.subPrompt, t.tasks), rw.end.shares(rw.end.present), perTask(t.summaries, t.agentRequests+t.subRequests),
		t.rejected, t.wall.Seconds(), t.cpu.Seconds())
}

// printDelegTable writes the delegation suite's rows as one table.
func printDelegTable(out io.Writer, rows []*row, elapsed time.Duration) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, delegHeader)
	for _, rw := range rows {
		fmt.Fprintln(tw, rw.delegLine())
	}
	_ = tw.Flush()
	fmt.Fprintf(out, "bench time %.0f s\n", elapsed.Seconds())
}
