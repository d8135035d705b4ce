package contextmgr

import "github.com/clawdcode/clawdcode/internal/storage"

// A resume sizes the request as the last reply's recorded usage
// (prompt_tokens, after the summary) plus what came after, as the live
// process does — no tokenizer for a steady -c turn — because it sends
// what that request held: the retained records the boundary names are cut
// as they were (compactMetadata.truncated). Texts cut down in memory
// outside a compaction (the overflow guard, a context with nothing to
// compact) are not cut again on resume; such a cut appends a context_cut
// record, and a reply after it, or after a context_window record, is only
// a floor under the local count. So is a reply from a model of another
// tokenizer encoding than this run's (names are not compared: servers
// answer with dated snapshots, provider prefixes or file names). The
// system prompt and tool definitions are taken to be this run's.

// resumeMarks finds, in a loaded live context, where the records after the
// summary begin (post) and the first of them after the live context was
// cut down in memory outside a compaction (cutFrom, -1 = none), both
// counted in the entries restore holds. Records after the summary are what
// the session did since the last compaction: only their usage counts on
// top of the boundary's.
//
// The cut is a context_cut record, or a context_window one (a server
// rejection, which came with cuts before context_cut existed): the
// requests measured after it were smaller than what a resume sends, since
// it sends those records whole.
//
// clearedAt is where the last context_clear record is (0 = none): the
// replies before it measured results a resume sends as stubs, so their
// counts are stale.
func resumeMarks(live *storage.Live) (post, cutFrom, clearedAt int) {
	summaryUUID := ""
	post, cutFrom = -1, -1
	if live.Summary == nil {
		post = 0
	} else {
		summaryUUID = live.Summary.UUID
	}
	held := 0
	for _, lr := range live.Records {
		r := lr.Record
		switch {
		case r == nil:
			continue
		case r.IsSummary():
			if r.UUID == summaryUUID && post < 0 {
				post = held
			}
			continue
		}
		if post < 0 && r.ParentUUID != nil && *r.ParentUUID == summaryUUID {
			post = held
		}
		if post >= 0 && cutFrom < 0 && r.Type == storage.TypeSystem &&
			(r.Subtype == storage.SubtypeContextCut || r.Subtype == storage.SubtypeContextWindow) {
			cutFrom = held
		}
		if r.Subtype == storage.SubtypeContextClear && r.CompactMetadata != nil && len(r.CompactMetadata.Cleared) > 0 {
			clearedAt = held
		}
		if relevant(r) {
			held++
		}
	}
	if post < 0 {
		post = held
	}
	return post, cutFrom, clearedAt
}

// replyUsage is the usage a reply record reports (nil for any other).
func replyUsage(r *storage.Record) *storage.Usage {
	if r.Type != storage.TypeAssistant || r.Message == nil {
		return nil
	}
	return r.Message.Usage
}

// calibrateResumed takes the count of a resumed session from its replies
// after the summary (es, the entries from index from on): the last reply
// with a usage report calibrates it, as in the live process, and is only
// a floor when it was measured before a cut (cutFrom) or for another
// model (see calibration.floor); one measured before the last
// context_clear (clearedAt) does not calibrate it. Every report also tells the window guard
// what the server accepted.
func (a *accountant) calibrateResumed(es []*entry, from, cutFrom, clearedAt int, g *windowGuard) {
	for j, e := range es {
		u := replyUsage(e.rec)
		if u == nil || u.InputTokens <= 0 {
			continue
		}
		i := from + j
		g.accept(u.InputTokens)
		if i < clearedAt {
			continue // measured before results were cleared: stale
		}
		a.calib = calibration{ok: true, tokens: u.InputTokens, upto: i,
			floor: (cutFrom >= 0 && i >= cutFrom) || !a.sameModel(e.rec.Message.Model)}
	}
}
