package contextmgr

import (
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

// requestTokens is the size of the next request. With exact false it uses
// only what is already known (exact counts where made, upper bounds
// elsewhere); with exact true it counts, with the tokenizer, every part not
// counted before. Since the server's last prompt_tokens covers everything up
// to calib.upto, only what came after is looked at.
func (m *Manager) requestTokens(exact bool) int {
	if m.calib.ok && m.calib.upto <= len(m.entries) {
		n := m.calib.tokens
		for _, e := range m.entries[m.calib.upto:] {
			n += m.size(e, exact)
		}
		return n
	}
	n := replyPriming + m.partSize(&m.system, exact) + m.partSize(&m.tools, exact)
	if m.summary != nil {
		n += m.size(m.summary, exact)
	}
	for _, e := range m.entries {
		n += m.size(e, exact)
	}
	return n
}

func (m *Manager) size(e *entry, exact bool) int {
	if exact {
		return m.countEntry(e)
	}
	return e.best()
}

func (m *Manager) partSize(p *part, exact bool) int {
	if p.ub == 0 {
		return 0
	}
	if exact && p.exact < 0 {
		m.tokenized = true
		if p == &m.system {
			p.exact = m.counter.Message(chat.Message{Role: chat.RoleSystem, Content: m.opt.System})
		} else {
			p.exact = m.counter.Tools(m.opt.Tools)
		}
	}
	return p.best()
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
