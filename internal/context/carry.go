package contextmgr

import (
	"math"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/ledger"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/google/uuid"
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
	// ledger is the evidence ledger in force, and rules the user's
	// constraints carried: the last boundary's (nil = none yet).
	ledger *storage.Ledger
	rules  []string
}

// compaction is what one compaction carries: the ledger merged with what
// the records it takes out tell, the user's rules gathered so far, the
// afterword that states them, and the uuid its boundary record takes —
// chosen here because the afterword names it: Recall opens the boundary
// as the whole ledger (storage.Ledger.Listing), folded entries included.
type compaction struct {
	ledger    *storage.Ledger
	rules     []string
	afterword string
	boundary  string
}

// carryInput is what a compaction is: the live context all, of which it
// takes out all[:cut], the request after it without the afterword (base
// tokens, as size measures texts), the pins in force, the project's
// instruction files and the window.
type carryInput struct {
	root         string
	all          []*entry
	cut          int
	base, window int
	// room is what the trigger leaves for the conversation once the
	// system prompt, tools and pins are sent: at a small window the
	// afterword must leave most of it free (ledgerRoomShare, packetRoomShare).
	room int
	// size is the fast measure of a text (the afterword's parts' bounds),
	// count the exact one: the ledger's share of the request is counted,
	// so that it takes its whole 15 % and never more.
	size, count  func(string) int
	pins         []storage.Pin
	instructions string
}

// compactionInput is m's compaction that takes out its entries[:cut] and
// writes content as the summary message (before the afterword).
func compactionInput(m *Manager, cut int, content string) carryInput {
	all := m.live.entries()
	return carryInput{root: m.opt.Root, all: all, cut: cut, base: m.keep.postSize(content, all[cut:]), window: m.guard.effective, room: roomEstimate(m),
		size: m.acct.approxText, count: m.acct.counter.Text, pins: m.pins.pins(), instructions: m.opt.Instructions}
}

// carryOver prepares what a compaction carries: the ledger of all[:cut]
// merged into the one in force, the user's rules of all added to those
// carried, and the afterword — the ledger (within ledgerShare of the
// request after the compaction), the task list, the re-orientation packet
// of all and, last, the standing instructions.
func (c *carry) carryOver(in carryInput) compaction {
	merged := ledger.Merge(c.ledger, ledger.Read(in.root, records(in.all[:in.cut])))
	rules := userRules(c.rules, in.all)
	// Beside the ledger the afterword takes an eighth of the window at
	// most, if it can: the packet gives way to the task list and the
	// standing instructions.
	todos := c.todos.text()
	standing := standingText(in.pins, in.instructions, rules, int(standingFilesShare*float64(in.window)), in.size)
	bounds := compactionPacket
	bounds.tokens = min(bounds.tokens, in.window/8-in.size(todos)-in.size(standing), roomShare(packetRoomShare, in.room))
	var rest []string
	for _, t := range []string{todos, packetText(in.all, nil, bounds, in.root, in.size), standing} {
		if t != "" {
			rest = append(rest, t)
		}
	}
	// The ledger may take ledgerShare of the whole request (base, the rest
	// of the afterword and itself), counted, and ledgerRoomShare of the
	// room, estimated as the ladder reckons the room.
	others := in.base
	for _, t := range rest {
		others += in.count(t)
	}
	parts := rest
	boundary := uuid.NewString()
	budget := int(ledgerShare / (1 - ledgerShare) * float64(others))
	if t := ledger.Fit(merged, budget, roomShare(ledgerRoomShare, in.room), in.size, in.count, boundary); t != "" {
		parts = append([]string{t}, rest...)
	}
	return compaction{ledger: merged, rules: rules, afterword: carriedStart + "\n\n" + strings.Join(parts, "\n\n"), boundary: boundary}
}

// ledgerShare is the most of the request after a compaction the ledger
// may take.
const ledgerShare = 0.15

// ledgerRoomShare and packetRoomShare are the most of the room (see room)
// that the ledger and the re-orientation packet may take: at a large
// window their own bounds bind long before these, at 4k–8k they keep a
// compaction or a resume from filling the room it was meant to free. The
// ledger, which holds the facts a summary drops, gets the larger share.
const (
	ledgerRoomShare = 0.55
	packetRoomShare = 0.1
)

// bounded is b with its tokens within packetRoomShare of room r.
func bounded(b packetBounds, r int) packetBounds {
	b.tokens = min(b.tokens, roomShare(packetRoomShare, r))
	return b
}

// roomShare is share of room r, in tokens; r 0 (not known) sets no bound.
func roomShare(share float64, r int) int {
	if r <= 0 {
		return math.MaxInt
	}
	return int(share * float64(r))
}

// resumePacket is the record that gives a resumed session's model its
// packet with the next user message (nil = not resumed, or nothing to
// re-orient by); it clears resumed.
func (c *carry) resumePacket(es []*entry, root string, size func(string) int, room int) *storage.Record {
	if !c.resumed {
		return nil
	}
	c.resumed = false
	if len(es) == 0 {
		return nil
	}
	return &storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeReorientation,
		Message: &storage.Message{Role: chat.RoleUser, Content: packetText(es, &c.todos, bounded(resumePacket, room), root, size)}}
}
