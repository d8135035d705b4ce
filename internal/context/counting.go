package contextmgr

import (
	"encoding/json"
	"strconv"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// replyPriming is what every request adds to prime the reply (chat accounting).
const replyPriming = 3

// trigger is the request size at which auto-compaction fires: the
// threshold share of the effective window, or less when the reply reserve
// would not fit otherwise.
func (m *Manager) trigger() int {
	t := int(m.opt.Threshold * float64(m.window))
	return max(1, min(t, m.window-m.opt.replyReserve(m.window)))
}

// countMode says how a size is measured.
type countMode int

const (
	// bound uses exact counts already made and cheap upper bounds
	// elsewhere: never tokenizes, never under-counts. Decisions use it.
	bound countMode = iota
	// exact tokenizes whatever was not counted before.
	exact
	// estimate uses exact counts already made and the fast estimate
	// elsewhere: never tokenizes; for display.
	estimate
)

// requestTokens is the size of the next request, measured per mode. Since
// the server's last prompt_tokens covers everything up to calib.upto, only
// what came after is looked at; a count that another model's tokenizer
// made is only a floor under the local count (see calibration.floor).
func (m *Manager) requestTokens(mode countMode) int {
	// Stand-in answers are in no record: counted for every one, even those
	// the server's count already covers (a slight, safe over-count).
	synth := 0
	if m.synthesized > 0 {
		synth = m.synthesized * m.partSize(&m.interrupted, mode)
	}
	calibrated := -1
	if m.calib.ok && m.calib.upto <= len(m.entries) {
		n := m.calib.tokens + synth
		for _, e := range m.entries[m.calib.upto:] {
			n += m.size(e, mode)
		}
		if !m.calib.floor {
			return n
		}
		calibrated = n
	}
	n := replyPriming + synth + m.partSize(&m.system, mode) + m.partSize(&m.tools, mode)
	if m.summary != nil {
		n += m.size(m.summary, mode)
	}
	for _, e := range m.entries {
		n += m.size(e, mode)
	}
	return max(n, calibrated)
}

func (m *Manager) size(e *entry, mode countMode) int {
	switch {
	case mode == exact:
		return m.countEntry(e)
	case mode == estimate && e.exact < 0:
		if e.est < 0 {
			e.est = estimateMessage(m.opt.Estimate, recordMessage(e.sent()))
		}
		return e.est
	}
	return e.best()
}

func (m *Manager) partSize(p *part, mode countMode) int {
	if p.ub == 0 {
		return 0
	}
	if p.exact >= 0 || mode == bound {
		return p.best()
	}
	var msg chat.Message
	switch p {
	case &m.system:
		msg = chat.Message{Role: chat.RoleSystem, Content: m.opt.System}
	case &m.interrupted:
		msg = interruptedAnswer
	default:
		if mode == estimate {
			b, _ := json.Marshal(m.opt.Tools)
			return m.opt.Estimate(string(b))
		}
		m.tokenized = true
		p.exact = m.counter.Tools(m.opt.Tools)
		return p.exact
	}
	if mode == estimate {
		return estimateMessage(m.opt.Estimate, msg)
	}
	m.tokenized = true
	p.exact = m.counter.Message(msg)
	return p.exact
}

// estimateMessage applies the chat accounting to the fast text estimate.
func estimateMessage(est func(string) int, msg chat.Message) int {
	n := 3 + est(msg.Content)
	for _, c := range msg.ToolCalls {
		n += 3 + est(c.Name) + est(c.Arguments)
	}
	return n
}

// countEntry returns the exact count of e, counting it (or finding it in
// the cache) the first time.
func (m *Manager) countEntry(e *entry) int {
	if e.exact >= 0 {
		return e.exact
	}
	key := ""
	if m.opt.Cache != nil && e.rec.UUID != "" {
		key = "ctxtokens:" + m.opt.Model + ":" + e.rec.UUID
		if e.trunc != nil {
			key += ":" + strconv.Itoa(e.ub)
		}
		if v, ok := m.opt.Cache.Get(key); ok {
			if n, ok := v.(int); ok {
				e.exact = n
				return n
			}
		}
	}
	m.tokenized = true
	e.exact = m.counter.Message(recordMessage(e.sent()))
	if key != "" {
		m.opt.Cache.Add(key, e.exact)
	}
	return e.exact
}

// invalidate forgets every request-level measurement after the live
// context was changed in place (compaction, truncation).
func (m *Manager) invalidate() {
	m.calib.ok = false
	m.sent.ok = false
}

// approxMargin is how far above the fast estimate approx sizes what was not
// counted: the estimate is typically within a factor of two, and code, the
// bulk of a coding session, runs about a fifth above it.
const approxMargin = 1.5

// approx is e's size for choices that need no guarantee (how much to keep
// verbatim, how to split the material of a summary): the exact count when
// made, else the fast estimate with approxMargin, never above the bound.
// It never tokenizes.
func (m *Manager) approx(e *entry) int {
	if e.exact >= 0 {
		return e.exact
	}
	return min(e.ub, int(approxMargin*float64(m.size(e, estimate))))
}

// approxText is approx for a text that is no record.
func (m *Manager) approxText(s string) int {
	return min(len(s), int(approxMargin*float64(m.opt.Estimate(s))))
}
