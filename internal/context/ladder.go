package contextmgr

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// ladderPolicy is the context ladder's policy, all of it: the order of its
// steps and every threshold they use. When the request reaches the
// trigger, Request climbs it (climb), one step after the other, until the
// request fits under the trigger with room to work:
//
//  1. clear (storage.ClearStepOld): the bodies of old tool results become
//     one-line stubs (size, outcome, the record's uuid for Recall), oldest
//     first, never the results of the most recent replies;
//  2. superseded (storage.ClearStepSuperseded): reads that a later Read,
//     Edit or Write of the same file made stale become stubs too, recent
//     or not (the last reply's aside);
//  3. collapse (storage.ClearStepCollapse, collapse.go): old rounds whose
//     results are all stubs leave the request, each listed as one line
//     (call, kept numbers, Recall ref) in the stub of the newest round
//     taken — at a small window the stubs themselves fill the room;
//  4. summary: today's compaction (Compact), with its ledger and packet;
//  5. give up: when even the summary cannot free enough (the request is
//     still over the trigger, or less than half the room is free), the
//     user is told so, with a handoff offered, and a request over the
//     trigger is cut down in memory to fit; the summary is not tried again
//     until enough new material has come to make it worth one (or cutting
//     leaves the reply less than half its reserve) — never a compaction
//     every turn. The give-up is a record, so a resume waits the same way.
//
// Beside the ladder, a new tool result larger than resultCap of the room
// is sent cut to it (head and tail, with the marker and its Recall ref):
// one result must leave room for the next.
//
// Every figure is a share of the room — what the trigger leaves once the
// system prompt, tools and pins are sent — so the ladder scales with the
// window: at 4k the room is a few hundred tokens, at 200k most of it.
//
// Clearing is cache-aware: it happens in batches, clearing down to clearTo
// of the room (hysteresis), so that the request then grows for several
// turns with its prefix byte-identical before the next batch; a step that
// would free less than minFreed of what the conversation weighs is not
// taken at all (it would break the server's prompt cache for little), and
// the next step is taken instead. The summary's own shares (keepFraction,
// postCompactionCeiling) are compact.go's.
type ladderPolicy struct {
	// clearTo is how far down clearing goes.
	clearTo float64
	// roomToWork is the most the conversation may weigh after a step for
	// the ladder to stop there.
	roomToWork float64
	// minFreed is the least share of the conversation a step must free
	// to be taken.
	minFreed float64
	// keepReplies and keepShare protect the recent results from
	// clearing: those of the last keepReplies replies while they weigh
	// at most keepShare of the room (the last reply's always).
	keepReplies int
	keepShare   float64
	// resultCap is the most one new tool result is sent with; minCap
	// (tokens) the least any cap is.
	resultCap float64
	minCap    int
	// minResult is the least a tool result must weigh (tokens) to be
	// worth replacing by a stub.
	minResult int
	// summaryLeaves is the most the conversation may weigh after a
	// summary: one that leaves less than the rest of the room free cannot
	// free enough (the window is too small for the fixed part and a
	// summary), and the ladder gives up.
	summaryLeaves float64
	// retryGrowth is how much the conversation must have grown since the
	// ladder gave up for the summary to be tried again.
	retryGrowth float64
}

// ladder is the policy in force.
var ladder = ladderPolicy{
	clearTo:       0.4,
	roomToWork:    0.85,
	minFreed:      0.1,
	keepReplies:   3,
	keepShare:     0.3,
	resultCap:     0.3,
	minCap:        128,
	minResult:     64,
	summaryLeaves: 0.5,
	retryGrowth:   0.5,
}

// share is frac of the room r, in tokens.
func (ladderPolicy) share(frac float64, r int) int { return int(frac * float64(r)) }

// room is what the trigger leaves for the conversation, with the fixed
// part counted exactly.
func room(m *Manager) (fixed, r int) {
	fixed = m.acct.fixed()
	return fixed, max(m.guard.trigger()-fixed, 0)
}

// roomEstimate is room without tokenizing: the fixed part by its counts
// made or the fast estimate (the byte bound of the tool definitions is
// about twice their count, and would leave a small window no room). A
// small context never loads the tokenizer for it.
func roomEstimate(m *Manager) int {
	a := m.acct
	fixed := replyPriming + a.partSize(&a.system, estimate) + a.partSize(&a.pins, estimate) + a.partSize(&a.tools, estimate)
	return max(m.guard.trigger()-fixed, 0)
}

// ladderState is what the ladder did since the last boundary (steps, for
// the next compaction's receipt and /context), where it last gave up
// (stuck: the request's size then, 0 = never) and whether the user was
// told.
type ladderState struct {
	steps []storage.LadderStep
	stuck int
	told  bool // the user was told the ladder cannot free enough
}

// note adds a step taken.
func (s *ladderState) note(step string, results, freed int) {
	s.steps = append(s.steps, storage.LadderStep{Step: step, Results: results, Freed: max(freed, 0)})
}

// take hands out the steps taken since the last boundary and starts over.
func (s *ladderState) take() []storage.LadderStep {
	steps := s.steps
	s.steps = nil
	return steps
}

// climb brings a request of pre tokens (at or over the trigger) under it,
// step by step (see ladderPolicy), and reports what it did to the user.
func climb(ctx context.Context, m *Manager, pre int) error {
	fixed, r := room(m)
	n := pre
	fits := func() bool { return n-fixed <= ladder.share(ladder.roomToWork, r) }
	for _, step := range []string{storage.ClearStepOld, storage.ClearStepSuperseded} {
		if fits() {
			return nil
		}
		after, err := clearStep(m, step, n, fixed, r)
		if err != nil {
			return err
		}
		n = after
	}
	if fits() {
		return nil
	}
	after, err := collapseStep(m, n, fixed, r)
	if err != nil {
		return err
	}
	if n = after; fits() {
		return nil
	}
	if s := m.ladder.stuck; s > 0 && n < s+ladder.share(ladder.retryGrowth, r) {
		// The summary could not free enough a moment ago, and too little
		// came since for another to do better: cut long texts to fit,
		// unless that leaves the reply less than half its reserve in the
		// window (say, a resume sends whole the texts the run that gave up
		// cut; the count may also be a little under the server's), and
		// only a summary can.
		if err := m.shrinkToFit(m.guard.trigger() - 1); err != nil {
			return err
		}
		g := &m.guard
		if n = m.acct.requestTokens(exact); n < g.effective-g.replyReserve(g.effective)/2 {
			return nil
		}
	}
	return summaryStep(ctx, m, n, fixed, r)
}

// clearStep takes one clearing step when it frees enough, and returns the
// request's size after it.
func clearStep(m *Manager, step string, n, fixed, r int) (int, error) {
	es := m.live.entries()
	var plan []*entry
	if step == storage.ClearStepOld {
		// The prefix changes at the first result cleared anyway: earlier
		// resumes' packets go with the batch.
		plan = append(planClear(m.acct, es, n-fixed-ladder.share(ladder.clearTo, r), r), supersededPackets(es)...)
	} else {
		plan = planSuperseded(m.acct, es)
	}
	if freed := planFreed(m.acct, es, plan, step); len(plan) == 0 || freed < int(ladder.minFreed*float64(n-fixed)) {
		return n, nil
	}
	for _, e := range plan {
		clearEntry(m.acct, es, e, step)
	}
	after := m.acct.requestTokens(exact)
	if err := recordClear(m.log, step, plan, n, after); err != nil {
		return n, err
	}
	m.ladder.note(step, len(plan), n-after)
	what := "cleared %d old tool results"
	if step == storage.ClearStepSuperseded {
		what = "dropped %d reads and resume packets that later ones superseded"
	}
	m.notify(NoticeCleared, what+" (their content is one Recall away): %d → %d tokens", len(plan), n, after)
	m.diag.Info("context ladder", "step", step, "results", len(plan), "pre_tokens", n, "post_tokens", after)
	return after, nil
}

// summaryStep compacts, and gives up (see giveUp) when that cannot bring
// the request under the trigger or frees less than the policy asks. A
// summary that leaves no room to work (the window is too small for the
// system prompt, tools and a summary) is said once: more summaries will
// follow every few turns.
func summaryStep(ctx context.Context, m *Manager, n, fixed, r int) error {
	trigger := m.guard.trigger()
	_, err := m.Compact(ctx, storage.TriggerAuto, "")
	switch {
	case errors.Is(err, ErrNothingToCompact):
	case err != nil:
		return err
	}
	after := m.acct.requestTokens(exact)
	if err != nil || after >= trigger || n-after < int(ladder.minFreed*float64(n-fixed)) ||
		after-fixed > ladder.share(ladder.summaryLeaves, r) {
		return giveUp(m, after, fixed)
	}
	m.ladder.stuck = 0
	return nil
}

// giveUp says that the ladder cannot free enough (the summary left the
// request over the trigger, or without room to work), offers a handoff,
// and cuts the request down in memory when it is still over the trigger,
// so that it is not refused; it remembers where, so the summary is not
// tried again every turn.
func giveUp(m *Manager, n, fixed int) error {
	trigger := m.guard.trigger()
	m.ladder.tell(m.notify, cannotFreeText(n, trigger, fixed, n >= trigger))
	if err := m.shrinkToFit(trigger - 1); err != nil {
		return err
	}
	m.ladder.stuck = max(m.acct.requestTokens(exact), 1)
	return recordGiveUp(m.log, max(n, 1), m.ladder.stuck)
}

// recordGiveUp appends the context_give_up record of the ladder's last
// step: pre is the request it gave up on, post the request sent. A resume
// waits from pre (restoreGiveUp), since it sends whole what this process
// cut in memory.
func recordGiveUp(log PersistentStore, pre, post int) error {
	r := &storage.Record{
		UUID:            uuid.NewString(),
		Type:            storage.TypeSystem,
		Subtype:         storage.SubtypeContextGiveUp,
		CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: pre, PostTokens: post},
	}
	if _, err := log.Append(r); err != nil {
		return fmt.Errorf("record that the context cannot be freed enough: %w", err)
	}
	return nil
}

// restoreGiveUp takes over, on resume, where an earlier run gave up (r a
// context_give_up record): no summary until enough new material has come
// since. A later window a rejection taught (r a context_window record)
// voids it, as in the live process (RecoverOverflowFrom); so does a new
// boundary, which hides the record.
func restoreGiveUp(m *Manager, r *storage.Record) {
	m.ladder.stuck = 0
	if r.Subtype == storage.SubtypeContextGiveUp && r.CompactMetadata != nil {
		m.ladder.stuck = max(r.CompactMetadata.PreTokens, 1)
	}
}

// tell sends the ladder's warning, once a process.
func (s *ladderState) tell(notify func(NoticeKind, string, ...any), text string) {
	if s.told {
		return
	}
	s.told = true
	notify(NoticeWarning, "%s", text)
}

// cannotFreeText is the message of the ladder's last step: the summary
// could not bring the request under the trigger (over), or left it
// without room to work.
func cannotFreeText(n, trigger, fixed int, over bool) string {
	what := "long texts are cut down to fit, and no summary is tried again until more has come"
	if !over {
		what = "no summary is tried again until more has come"
	}
	return fmt.Sprintf("the context cannot be freed enough: after clearing old tool results and summarising, "+
		"the request is still %d tokens for a trigger at %d (the system prompt, tools and pins alone weigh %d); "+
		"%s. Continue in a fresh session with /handoff (clawdcode -c -p /handoff), or give a larger --context-window",
		n, trigger, fixed, what)
}
