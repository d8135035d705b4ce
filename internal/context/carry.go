package contextmgr

import (
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// What a compaction carries forward beside the summary is read from the
// session's records and from nothing the summariser wrote: the evidence
// ledger (ledger.go) and the model's task list (todos.go) — so no summary
// can decide what was done. It is written into the summary message after the summary and its recall note,
// as the afterword (carriedStart opens it), so that it sits at the end of
// the compacted prefix, where models attend, and stays byte for byte the
// same in every request until the next compaction (a prompt cache can
// serve it). The next compaction does not fold it into its summary
// (summaryBody cuts it off): it writes its own from the records.

// carriedStart opens the afterword.
const carriedStart = "\n\n--- Carried forward from the session's records (not from the summary) ---"

// carry is what the manager keeps for the afterword and the packet.
type carry struct {
	todos taskList
	// resumed is set when the live context was restored from a session:
	// the next user message is preceded by a re-orientation packet.
	resumed bool
	// ledger is the evidence ledger in force: the last boundary's (nil =
	// none yet).
	ledger *storage.Ledger
}

// compaction is what one compaction carries: the ledger merged with what
// the records it takes out tell, and the afterword that states it.
type compaction struct {
	ledger    *storage.Ledger
	afterword string
}

// carryOver prepares what a compaction carries: the ledger of all[:cut]
// (what it takes out) merged into the one in force, and the afterword —
// the ledger, the task list and the re-orientation packet of all — its
// ledger within ledgerShare of the request after the compaction, which is
// base tokens without the afterword (size measures texts as base does).
func (c *carry) carryOver(root string, all []*entry, cut int, base int, size func(string) int) compaction {
	dropped := all[:cut]
	ledger := mergeLedger(c.ledger, readLedger(root, dropped))
	// The ledger may take ledgerShare of base + itself.
	budget := int(ledgerShare / (1 - ledgerShare) * float64(base))
	var parts []string
	if t := ledgerText(ledger, budget, size); t != "" {
		parts = append(parts, t)
	}
	if t := c.todos.text(); t != "" {
		parts = append(parts, t)
	}
	parts = append(parts, packetText(all, nil, compactionPacket, root, size))
	return compaction{ledger: ledger, afterword: carriedStart + "\n\n" + strings.Join(parts, "\n\n")}
}

// resumePacket is the record that gives a resumed session's model its
// packet with the next user message (nil = not resumed, or nothing to
// re-orient by); it clears resumed.
func (c *carry) resumePacket(es []*entry, root string, size func(string) int) *storage.Record {
	if !c.resumed {
		return nil
	}
	c.resumed = false
	if len(es) == 0 {
		return nil
	}
	return &storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeReorientation,
		Message: &storage.Message{Role: chat.RoleUser, Content: packetText(es, &c.todos, resumePacket, root, size)}}
}
