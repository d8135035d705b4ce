package acp

import (
	acpsdk "github.com/coder/acp-go-sdk"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// spendFigures is what a session spent (contextmgr.Spend).
type spendFigures = contextmgr.Spend

// turnCost is what one turn spent.
type turnCost struct {
	Input, Output, Cached int
	// USD is its cost at the model's price; Priced says one is known.
	USD    float64
	Priced bool
}

// reportUsage tells the client where the session stands — the context
// window's use and, when the model's price is known, what the session
// has cost so far (usage_update, which editors show as a meter) — and
// returns the prompt response's _meta: the turn's own tokens and cost
// (nil after a load, which has no turn).
//
// The cost goes both ways because clients differ: usage_update is the
// protocol's place for a session's cost and context, which Zed and the
// other editors that follow the protocol's stabilized updates display;
// _meta carries the one turn's figures for clients and scripts that read
// the response (the protocol's own per-turn usage is not stable yet).
func (s *session) reportUsage(turn *turnCost) map[string]any {
	u, spend := s.eng.Context.Usage(), s.eng.Context.Spend()
	up := &acpsdk.SessionUsageUpdate{Used: u.Tokens, Size: u.Window}
	if spend.Priced {
		all := storage.Usage{}
		for _, x := range []storage.Usage{spend.Session, spend.Summaries, spend.Subagents} {
			all.InputTokens += x.InputTokens
			all.OutputTokens += x.OutputTokens
			all.CacheReadInputTokens += x.CacheReadInputTokens
		}
		up.Cost = &acpsdk.Cost{Amount: spend.Price.Cost(all.InputTokens, all.CacheReadInputTokens, all.OutputTokens), Currency: "USD"}
	}
	s.notify(acpsdk.SessionUpdate{UsageUpdate: up})
	if turn == nil {
		return nil
	}
	meta := map[string]any{"inputTokens": turn.Input, "outputTokens": turn.Output, "cachedInputTokens": turn.Cached}
	if turn.Priced {
		meta["costUsd"] = turn.USD
	}
	return map[string]any{"clawdcode": meta}
}
