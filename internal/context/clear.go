package contextmgr

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/ledger"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/toolcall"
	"github.com/google/uuid"
)

// protectedFrom is the index of the first entry of es the clearing step
// never touches: the results of the last ladder.keepReplies replies while
// they weigh at most ladder.keepShare of the room r, and always the last
// reply's.
func protectedFrom(a *accountant, es []*entry, r int) int {
	budget := ladder.share(ladder.keepShare, r)
	from, replies, weight := len(es), 0, 0
	for i := len(es) - 1; i >= 0; i-- {
		weight += a.approx(es[i])
		if es[i].rec.Type != storage.TypeAssistant {
			continue
		}
		if replies > 0 && weight > budget {
			break
		}
		from, replies = i, replies+1
		if replies == ladder.keepReplies {
			break
		}
	}
	return from
}

// clearable reports whether e is a tool result worth a stub.
func clearable(a *accountant, e *entry) bool {
	return e.rec.Type == storage.TypeToolResult && e.rec.ToolResult != nil && e.cleared == "" &&
		e.rec.UUID != "" && a.approx(e) >= ladder.minResult
}

// planClear picks the old tool results to clear, oldest first, until they
// free want tokens (or none is left outside the protected tail).
func planClear(a *accountant, es []*entry, want, r int) []*entry {
	var plan []*entry
	freed := 0
	for _, e := range es[:protectedFrom(a, es, r)] {
		if freed >= want {
			break
		}
		if clearable(a, e) {
			plan = append(plan, e)
			freed += a.approx(e)
		}
	}
	return plan
}

// planSuperseded picks the Read results that a later Read, Edit or Write
// of the same file superseded, before the last reply, and the resume
// packets a later one superseded (supersededPackets).
func planSuperseded(a *accountant, es []*entry) []*entry {
	return append(supersededReads(a, es), supersededPackets(es)...)
}

// supersededPackets are the re-orientation packets of earlier resumes:
// each resume adds one, and only the latest says where the work stands —
// a session resumed every turn (-c -p) would otherwise carry one packet a
// turn until a summary, at 4k most of the room. What they told is in the
// records they were read from.
func supersededPackets(es []*entry) []*entry {
	var plan []*entry
	last := -1
	for i, e := range es {
		if isPacket(e.rec) {
			last = i
		}
	}
	for i, e := range es[:max(last, 0)] {
		if isPacket(e.rec) && e.cleared == "" && messageContent(e.rec) != "" {
			plan = append(plan, es[i])
		}
	}
	return plan
}

// isPacket reports whether r is a resume's re-orientation packet.
func isPacket(r *storage.Record) bool {
	return r.Type == storage.TypeSystem && r.Subtype == storage.SubtypeReorientation
}

// supersededReads are the Read results of planSuperseded.
func supersededReads(a *accountant, es []*entry) []*entry {
	last := len(es)
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].rec.Type == storage.TypeAssistant {
			last = i
			break
		}
	}
	later := map[string]bool{} // paths a later call reads or changes
	var plan []*entry
	for i := len(es) - 1; i >= 0; i-- {
		r := es[i].rec
		if r.Type != storage.TypeToolUse || r.Tool == nil {
			continue
		}
		c := toolcall.Classify(r.Tool.Name, r.Tool.Input)
		if !c.ReadsOrChanges() {
			continue
		}
		if c.Effect == toolcall.Reads && later[c.Path] && i < last {
			if res := resultOf(es, i, r.Tool.ID); res != nil && clearable(a, res) {
				plan = append(plan, res)
			}
		}
		later[c.Path] = true
	}
	return plan
}

// callFilePath is the file_path a call names, whatever its tool (an MCP
// tool's too): a stub describes the call it stands for.
func callFilePath(t *storage.ToolUse) string {
	var in struct {
		Path string `json:"file_path"`
	}
	_ = json.Unmarshal(t.Input, &in)
	return in.Path
}

// resultOf is the result of call id among es after index i (nil = none).
func resultOf(es []*entry, i int, id string) *entry {
	for _, e := range es[i+1:] {
		if r := e.rec; r.Type == storage.TypeToolResult && r.ToolResult != nil && r.ToolResult.ID == id {
			return e
		}
	}
	return nil
}

// callOf is the call that e, a tool result among es, answers (nil = none).
func callOf(es []*entry, e *entry) *storage.ToolUse {
	for _, c := range es {
		if r := c.rec; r.Type == storage.TypeToolUse && r.Tool != nil && r.Tool.ID == e.rec.ToolResult.ID {
			return r.Tool
		}
	}
	return nil
}

// planFreed is about what clearing plan would free, by approx.
func planFreed(a *accountant, es, plan []*entry, step string) int {
	n := 0
	for _, e := range plan {
		n += a.approx(e)
		if !isPacket(e.rec) {
			n -= a.approxText(stubText(a.opt.Root, es, e, step))
		}
	}
	return n
}

// clearEntry makes e, a tool result among es, send its stub, or e, a
// superseded packet, send nothing.
func clearEntry(a *accountant, es []*entry, e *entry, step string) {
	if isPacket(e.rec) {
		t, msg := *e.rec, *e.rec.Message
		msg.Content = ""
		t.Message = &msg
		e.trunc, e.truncLimit, e.cleared = &t, 0, step
		a.resized(e)
		return
	}
	t := *e.rec
	tr := *e.rec.ToolResult
	tr.Output, tr.Error = stubText(a.opt.Root, es, e, step), ""
	t.ToolResult = &tr
	e.trunc, e.truncLimit, e.cleared = &t, 0, step
	a.resized(e)
}

// stubText is the one line a cleared result sends: what it was, its size
// and outcome, and the ref Recall opens it by (a prefix of the record's
// uuid: Recall takes a unique prefix, and a whole uuid costs the small
// windows twenty tokens a stub). It depends only on the records and the
// project root, so a resume sends the very same bytes.
func stubText(root string, es []*entry, e *entry, step string) string {
	res := e.rec.ToolResult
	what := resultWhat(root, es, e)
	body, outcome := res.Output, "ok"
	if res.Error != "" {
		body, outcome = body+res.Error, "failed"
	}
	why := "cleared to save context"
	if step == storage.ClearStepSuperseded {
		why = "superseded by a later read or edit"
	}
	// The named numbers it showed stay, as the ledger keeps them: a limit
	// or a count is what the work most often turns on.
	facts := ""
	for _, n := range ledger.Numbers(res.Output, stubNumbers) {
		facts += "; " + n
	}
	return fmt.Sprintf("[%s: %s, %d bytes, %d lines, %s%s; Recall ref=%s shows it]",
		why, what, len(body), strings.Count(body, "\n")+1, outcome, facts, stubRef(e.rec.UUID))
}

// stubFacts are the named numbers an index line keeps of a result: of its
// output, then of its error (as ledger.Numbers of the two joined finds
// them, without the copy of a long output that joining makes).
func stubFacts(res *storage.ToolResult) []string {
	facts := ledger.Numbers(res.Output, stubNumbers)
	if len(facts) < stubNumbers && res.Error != "" {
		facts = append(facts, ledger.Numbers(res.Error, stubNumbers-len(facts))...)
	}
	return facts
}

// resultWhat names what e, a tool result among es, answered: the call's
// tool and the file it named.
func resultWhat(root string, es []*entry, e *entry) string {
	c := callOf(es, e)
	if c == nil {
		return "tool result"
	}
	what := c.Name
	if path := callFilePath(c); path != "" {
		what += " " + cutUTF8(toolcall.Rel(root, path), 120)
	}
	return what
}

// stubNumbers is how many lines naming a number a stub keeps.
const stubNumbers = 2

// stubRef is the ref a stub or an index line gives: the uuid's first
// eight hex digits, the shortest prefix Recall takes (and the ledger's):
// an index lists every call a collapse folded, and at 4k each character
// of it is room the next turn does not have.
func stubRef(id string) string {
	if len(id) >= 8 {
		return id[:8]
	}
	return id
}

// recordClear appends the context_clear record of a step: which results
// it cleared and the request's size before and after.
func recordClear(log PersistentStore, step string, plan []*entry, pre, post int) error {
	return recordSteps(log, stepsOf(plan, step), pre, post)
}

// stepsOf maps each of plan to step.
func stepsOf(plan []*entry, step string) map[string]string {
	steps := make(map[string]string, len(plan))
	for _, e := range plan {
		steps[e.rec.UUID] = step
	}
	return steps
}

// recordSteps appends the context_clear record of the steps cleared (uuid
// → step) took, with the request's size before and after.
func recordSteps(log PersistentStore, cleared map[string]string, pre, post int) error {
	r := &storage.Record{
		UUID:    uuid.NewString(),
		Type:    storage.TypeSystem,
		Subtype: storage.SubtypeContextClear,
		CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: pre, PostTokens: post,
			Cleared: cleared},
	}
	if _, err := log.Append(r); err != nil {
		return fmt.Errorf("record the cleared tool results: %w", err)
	}
	return nil
}

// clearedSteps lists which of es are cleared, and by which step, for a
// boundary (nil = none).
func clearedSteps(es []*entry) map[string]string {
	var out map[string]string
	for _, e := range es {
		if e.cleared == "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[e.rec.UUID] = e.cleared
	}
	return out
}

// applyCleared clears again, on resume, the results of es that cleared
// names (from a boundary or a context_clear record).
func applyCleared(a *accountant, es []*entry, cleared map[string]string) {
	if len(cleared) == 0 {
		return
	}
	indexed := false
	for _, e := range es {
		step, ok := cleared[e.rec.UUID]
		switch {
		case !ok:
		case step == storage.ClearStepCollapse:
			collapseEntry(a, e)
		case step == storage.ClearStepIndex:
			if e.rec.ToolResult != nil && e.cleared != storage.ClearStepCollapse {
				e.cleared, indexed = storage.ClearStepIndex, true
			}
		case (e.rec.ToolResult != nil || isPacket(e.rec) && e.rec.Message != nil) && e.cleared == "":
			clearEntry(a, es, e, step)
		}
	}
	if indexed { // a collapse names its index: only then did what is folded change
		reindex(a, es)
	}
}

// clearStepOf is the step a context_clear record took (its results are
// all cleared by one step).
func clearStepOf(cleared map[string]string) string {
	last := storage.ClearStepOld
	for _, step := range cleared {
		if step == storage.ClearStepCollapse || step == storage.ClearStepIndex {
			return storage.ClearStepCollapse
		}
		last = step
	}
	return last
}

// capResult sends the newest entry, a tool result, cut down (head and
// tail, with the omission marker) when it weighs more than the ladder's
// resultCap of the room, and records the cut in a context_clear record so
// that a resume sends it cut the same way. The file keeps it whole.
func capResult(m *Manager) error {
	es := m.live.entries()
	if len(es) == 0 {
		return nil
	}
	e := es[len(es)-1]
	limit := max(ladder.share(ladder.resultCap, roomEstimate(m)), ladder.minCap)
	size := m.acct.approx(e)
	if e.rec.Type != storage.TypeToolResult || e.rec.UUID == "" || size <= limit {
		return nil
	}
	bytes := max(len(fullText(e.rec))*limit/size, minCapBytes)
	if !m.acct.truncateEntry(e, bytes) {
		return nil
	}
	rec := &storage.Record{
		UUID:    uuid.NewString(),
		Type:    storage.TypeSystem,
		Subtype: storage.SubtypeContextClear,
		CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto,
			Truncated: map[string]int{e.rec.UUID: bytes}},
	}
	if _, err := m.log.Append(rec); err != nil {
		return fmt.Errorf("record the tool result cut to fit the window: %w", err)
	}
	return nil
}

// minCapBytes is the least a capped result keeps.
const minCapBytes = 512

// applyCuts cuts again, on resume, the results of es that truncated names
// (from a context_clear record: capResult's).
func applyCuts(a *accountant, es []*entry, truncated map[string]int) {
	for _, e := range es {
		if limit, ok := truncated[e.rec.UUID]; ok && limit > 0 {
			a.truncateEntry(e, limit)
		}
	}
}

// restoreClear applies a context_clear record on resume: the results it
// cleared send their stubs again, those it cut are cut again.
func restoreClear(m *Manager, meta *storage.CompactMetadata) {
	applyCuts(m.acct, m.live.entries(), meta.Truncated)
	if len(meta.Cleared) == 0 {
		return
	}
	applyCleared(m.acct, m.live.entries(), meta.Cleared)
	step, n := clearStepOf(meta.Cleared), len(meta.Cleared)
	if step == storage.ClearStepCollapse {
		n = foldedResults(m.live.entries(), meta.Cleared)
	}
	m.ladder.note(step, n, meta.PreTokens-meta.PostTokens)
}
