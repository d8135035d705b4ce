package contextmgr

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// MaxOverflowAttempts bounds the recovery of one request the server keeps
// rejecting as too long: the agent loop asks RecoverOverflowFrom at most
// this many times. Each attempt at least halves the window believed (see
// windowGuard.learn), so this covers a window believed 1000 times too
// large before the floor stops it.
const MaxOverflowAttempts = 10

// RecoverOverflowFrom is the ContextGuard, called after the server
// rejected the last request (rejection, may be nil) as too long, for the
// attempt-th time in a row. The server's window is evidently smaller than
// believed, so every attempt first lowers the effective window (see
// windowGuard.learn: what the server states, else 90% of the rejected
// request, then at least half of the window believed — never below the
// floor of what the server already accepted) and records it in the
// session; then it makes the next request fit: tool results oversized for
// the new window are cut down in memory (head and tail kept, the session
// file keeps them whole), and if the request is still over the trigger,
// it climbs the context ladder (ladder.go: old tool results cleared
// first, a summary only when clearing cannot free enough, and at worst
// its longest texts cut), each step recorded as on any request. It returns false — the caller stops with an error and
// the session stays resumable — when neither the window nor the request
// got smaller, or after MaxOverflowAttempts.
func (m *Manager) RecoverOverflowFrom(ctx context.Context, attempt int, rejection error) (bool, error) {
	if attempt > MaxOverflowAttempts {
		return false, nil
	}
	m.acct.invalidate()
	rejected := -1
	count := func() int {
		if rejected < 0 {
			rejected = m.acct.requestTokens(exact) // the live context is still what was sent
		}
		return rejected
	}
	if stated, ok := llm.StatedWindow(rejection); ok && stated < m.guard.floor() {
		// Not believed, so it teaches nothing: the same request goes
		// again. Only when that is rejected too was it really too long,
		// and the window is estimated from it as without a stated one.
		if attempt == 1 {
			m.notify(NoticeWarning, "the server states a context window of %d tokens, below what it already accepted or any usable window (%d tokens); not believing it, sending the request again", stated, m.guard.floor())
			return true, nil
		}
		attempt--
	}
	lowered := m.guard.learn(rejection, attempt, count)
	if lowered {
		// Where the ladder gave up was judged in the larger window.
		m.ladder.stuck = 0
		m.diag.Info("window learnt from a rejection", "tokens", m.guard.learnt, "attempt", attempt)
		if err := m.guard.record(m.log, &m.opt); err != nil {
			return false, err
		}
	}
	before := count()

	limit := max(m.guard.effective/8, 256)
	var oversized []*entry
	for _, e := range m.live.entries() {
		if e.rec.Type == storage.TypeToolResult && m.acct.countEntry(e) > limit {
			oversized = append(oversized, e)
		}
	}
	cut := 0
	for _, e := range oversized {
		if m.acct.truncateEntry(e, 2*limit) {
			cut++
		}
	}
	if cut > 0 {
		if err := recordCuts(m.log, m.live.entries()); err != nil {
			return false, err
		}
	}
	var did []string
	if lowered {
		did = append(did, fmt.Sprintf("lowered the window estimate to %d tokens", m.guard.effective))
	}
	if cut > 0 {
		did = append(did, fmt.Sprintf("cut %d oversized tool results down", cut))
	}
	if len(did) > 0 {
		m.notify(NoticeTruncated, "the server rejected the request as too long; %s", strings.Join(did, " and "))
	}
	if n := m.acct.requestTokens(exact); n >= m.guard.trigger() {
		// The same ladder as any request over the trigger: clear old tool
		// results first, summarise only when that cannot free enough.
		m.notify(NoticeWarning, "the request is still too long for the window; freeing context")
		if err := climb(ctx, m, n); err != nil {
			return false, fmt.Errorf("free context after overflow: %w", err)
		}
	}
	if !lowered && m.acct.requestTokens(exact) >= before {
		return false, nil // the same request would be refused again
	}
	return true, nil
}

// record appends a context_window record with the effective window just
// learnt, so that a resume (-c) starts with it instead of sending a
// request the server already refused, and keeps it in the CacheStore of
// opt for the next session of this process. It is appended at once, not
// with the next compaction: most rejections are recovered by truncation
// alone.
func (g *windowGuard) record(log PersistentStore, opt *Options) error {
	g.remember(opt.Now())
	r := &storage.Record{
		UUID:          uuid.NewString(),
		Type:          storage.TypeSystem,
		Subtype:       storage.SubtypeContextWindow,
		ContextWindow: g.effective,
	}
	if _, err := log.Append(r); err != nil {
		return fmt.Errorf("record the learnt context window: %w", err)
	}
	if !r.Timestamp.IsZero() {
		g.learntAt = r.Timestamp
	}
	if opt.Cache != nil {
		opt.Cache.Add(windowCacheKey(opt.Model), learnt{window: g.learnt, at: g.learntAt})
	}
	return nil
}

// learnt is a window a server taught this process, as the CacheStore keeps it.
type learnt struct {
	window int
	at     time.Time
}

func windowCacheKey(model string) string { return "ctxwindow:" + model }

// ResetWindow forgets the window a server rejection taught the session
// (/context --reset-window): requests are sized to the configured window
// again. The reset is recorded (a context_window record without a
// window) when the session's file holds it, so a resume does not bring
// the old one back.
func (m *Manager) ResetWindow() error {
	if m.opt.Cache != nil {
		m.opt.Cache.Remove(windowCacheKey(m.opt.Model))
	}
	had := m.guard.recorded
	m.guard.reset()
	m.acct.invalidate()
	if !had {
		return nil
	}
	r := &storage.Record{UUID: uuid.NewString(), Type: storage.TypeSystem, Subtype: storage.SubtypeContextWindow}
	if _, err := m.log.Append(r); err != nil {
		return fmt.Errorf("record the reset of the learnt context window: %w", err)
	}
	return nil
}

// shrinkToFit cuts long texts of the live context down in memory until the
// request fits target tokens (or nothing more can be cut), and records the
// cuts in the session.
func (m *Manager) shrinkToFit(target int) error {
	over := m.acct.requestTokens(exact) - target
	if over <= 0 {
		return nil
	}
	n := m.acct.truncateEntries(m.live.entries(), m.acct.sizeOf(m.live.entries())-over)
	if n == 0 {
		return nil
	}
	m.notify(NoticeTruncated, "cut %d long texts down in memory to fit the context window", n)
	return recordCuts(m.log, m.live.entries())
}

// recordCuts appends to log a context_cut record naming every entry of es
// now sent cut.
func recordCuts(log PersistentStore, es []*entry) error {
	cut := truncatedLimits(es)
	if len(cut) == 0 {
		return nil
	}
	r := &storage.Record{
		UUID:            uuid.NewString(),
		Type:            storage.TypeSystem,
		Subtype:         storage.SubtypeContextCut,
		CompactMetadata: &storage.CompactMetadata{Truncated: cut},
	}
	if _, err := log.Append(r); err != nil {
		return fmt.Errorf("record the texts cut in memory: %w", err)
	}
	return nil
}

// truncatedLimits records which of es are sent cut down, and to what
// limit, so that a resume restores the same context (restore re-applies
// them): whoever cut them — a compaction, the overflow guard, the
// MemoryStore's bound.
func truncatedLimits(es []*entry) map[string]int {
	var cut map[string]int
	for _, e := range es {
		if (e.trunc == nil && e.clip == 0) || e.rec.UUID == "" || e.cleared != "" {
			continue
		}
		if cut == nil {
			cut = make(map[string]int)
		}
		limit := e.clip
		if e.trunc != nil && (limit == 0 || e.truncLimit < limit) {
			limit = e.truncLimit
		}
		cut[e.rec.UUID] = limit
	}
	return cut
}
