package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// NameRecall is the memory tool of CONTRACT.md §3.
const NameRecall = toolcall.Recall

// Recall scopes.
const (
	ScopeSession = toolcall.RecallScopeSession // this session, history before compactions included (the default)
	ScopeProject = "project"                   // every session of this project
	ScopeAll     = "all"                       // every project: asks first
)

// Recall bounds: a call can never flood the window.
const (
	RecallDefaultLimit = 10
	RecallMaxLimit     = 50
	// RecallRecordCap bounds each record shown in full (ref); the ref and
	// its neighbours together stay under OutputCap.
	RecallRecordCap = 5800
	// RecallNeighbours is how many records on each side of a ref are shown.
	RecallNeighbours = 2
)

// RecallHit is one stored record found by Recall.
type RecallHit struct {
	SessionID string
	Project   string // the project root, for scope all
	UUID      string
	Type      string // user, assistant, tool_use, tool_result, summary, pin
	Time      time.Time
	Text      string // a snippet (Find), the text (Around's neighbours) or a page of it (the ref)
	Ref       bool   // Around: the record asked for
	// Offset and Total place a page (the ref's Text in Around, Page's):
	// where it begins in the record's text and the text's whole length,
	// in bytes.
	Offset, Total int
}

// History is what Recall searches: the stored session files. Find returns
// up to limit records matching query, newest first; Around returns the
// record ref (a uuid or a unique prefix of one), its text's first
// RecallRecordCap bytes, and its neighbours in file order; Page returns
// up to size bytes of the record ref's text from offset, cut at rune
// boundaries (TrimPage), without its neighbours, and an error when offset
// is past the text's end. Both fail when no record has that ref.
type History interface {
	Find(ctx context.Context, query, scope string, limit int) ([]RecallHit, error)
	Around(ctx context.Context, ref, scope string, neighbours int) ([]RecallHit, error)
	Page(ctx context.Context, ref, scope string, offset, size int) (RecallHit, error)
}

// NewRecall returns the Recall tool over h.
func NewRecall(h History) Tool {
	return typed(&tool{
		name: NameRecall,
		description: "Search the stored history of this conversation, including everything earlier " +
			"compactions removed from your context: exact file paths, commands, error messages, numbers, " +
			"what the user said. Give query (all words must match; \"quoted phrase\" matches as a phrase) " +
			"to list matching records, newest first, each with its ref; give ref to read that record and " +
			"its neighbours; a long record is shown a part at a time: add offset (bytes into the record's text, " +
			"as the part shown says) to read on from there. scope: session (default), project (every session of this project), " +
			"all (every project; the user is asked first).",
		needs: recallNeedsPermission,
	}, func(ctx context.Context, p recallParams) Result { return runRecall(ctx, h, p) }, describeRecall)
}

// recallParams are Recall's parameters (see params.go).
type recallParams struct {
	Query string `json:"query,omitempty" jsonschema:"Words to search for; all must match. \"quoted phrase\" matches as a phrase."`
	Ref   string `json:"ref,omitempty" jsonschema:"The ref (record uuid) of a record to read with its neighbours."`
	Scope string `json:"scope,omitempty" param:"enum=session|project|all" jsonschema:"Where to search (default session)."`
	Limit int    `json:"limit,omitempty" jsonschema:"At most this many records (default 10, at most 50)."`
	// Offset is a pointer: offset=0 asks for the first page alone.
	Offset *int `json:"offset,omitempty" jsonschema:"With ref: read the record's text from this byte on, a larger part and without its neighbours."`
}

// recallNeedsPermission: searching every project reaches beyond this one,
// so that scope asks first (CONTRACT.md §3). Arguments that cannot be
// read ask too.
func recallNeedsPermission(a args) bool {
	p, err := decodeParams[recallParams](a, false)
	return err != nil || strings.EqualFold(strings.TrimSpace(p.Scope), ScopeAll)
}

func describeRecall(p recallParams) string {
	if p.Ref != "" && p.Offset != nil {
		return fmt.Sprintf("ref %s from byte %d", p.Ref, *p.Offset)
	}
	if p.Ref != "" {
		return "ref " + p.Ref
	}
	if p.Scope != "" && p.Scope != ScopeSession {
		return p.Scope + ": " + p.Query
	}
	return p.Query
}

func runRecall(ctx context.Context, h History, p recallParams) Result {
	query, ref, limit := p.Query, p.Ref, p.Limit
	scope := strings.ToLower(strings.TrimSpace(p.Scope))
	switch scope {
	case "":
		scope = ScopeSession
	case ScopeSession, ScopeProject, ScopeAll:
	default:
		return fail("scope must be session, project or all, not %q", scope)
	}
	if limit <= 0 {
		limit = RecallDefaultLimit
	}
	limit = min(limit, RecallMaxLimit)
	query, ref = strings.TrimSpace(query), strings.TrimSpace(ref)
	switch {
	case p.Offset != nil:
		return recallPage(ctx, h, ref, scope, *p.Offset)
	case ref != "":
		hits, err := h.Around(ctx, ref, scope, RecallNeighbours)
		if err != nil {
			return fail("recall %s: %v", ref, err)
		}
		return Result{Output: formatAround(ref, scope, hits)}
	case query != "":
		hits, err := h.Find(ctx, query, scope, limit)
		if err != nil {
			return fail("recall %q: %v", query, err)
		}
		return Result{Output: formatFind(query, scope, limit, hits)}
	default:
		return fail("give query (words to search for) or ref (a record's uuid)")
	}
}

// recallPage shows a part of the record ref from offset, alone.
func recallPage(ctx context.Context, h History, ref, scope string, offset int) Result {
	switch {
	case ref == "":
		return fail("offset reads a record by its ref: give ref too")
	case offset < 0:
		return fail("offset must be 0 or more, not %d", offset)
	}
	hit, err := h.Page(ctx, ref, scope, offset, RecallPageCap)
	if err != nil {
		return fail("recall %s: %v", ref, err)
	}
	var b strings.Builder
	b.WriteString("A part of the record:\n")
	writeHitHeader(&b, hit, true)
	b.WriteString(":\n")
	b.WriteString(hit.Text)
	b.WriteString("\n")
	b.WriteString(recallPageNote(hit.UUID, scope, hit.Offset, hit.Offset+len(hit.Text), hit.Total))
	return Result{Output: b.String()}
}

func scopeWords(scope string) string {
	switch scope {
	case ScopeProject:
		return "the sessions of this project"
	case ScopeAll:
		return "every project"
	}
	return "this session"
}

func formatFind(query, scope string, limit int, hits []RecallHit) string {
	var b strings.Builder
	if len(hits) == 0 {
		fmt.Fprintf(&b, "No stored record matches %q in %s.", query, scopeWords(scope))
		if scope == ScopeSession {
			b.WriteString(" Try fewer words, or scope project.")
		}
		return b.String()
	}
	order := "newest first"
	if scope != ScopeSession {
		order = "best matches first"
	}
	fmt.Fprintf(&b, "%d record(s) match %q in %s, %s", len(hits), query, scopeWords(scope), order)
	if len(hits) >= limit {
		b.WriteString(" (limit reached; more may match)")
	}
	b.WriteString(". Recall with ref=<ref> shows a record and its neighbours in full.\n")
	for _, h := range hits {
		writeHitHeader(&b, h, scope != ScopeSession)
		b.WriteString(": ")
		b.WriteString(h.Text)
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeHitHeader(b *strings.Builder, h RecallHit, where bool) {
	fmt.Fprintf(b, "- ref %s · %s · %s", h.UUID, h.Time.UTC().Format(time.RFC3339), h.Type)
	if where {
		fmt.Fprintf(b, " · session %s", h.SessionID)
		if h.Project != "" {
			fmt.Fprintf(b, " · project %s", h.Project)
		}
	}
}

func formatAround(ref, scope string, hits []RecallHit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Record %s with its neighbours, in order:\n", ref)
	for _, h := range hits {
		b.WriteByte('\n')
		if h.Ref {
			b.WriteString(">>")
		}
		writeHitHeader(&b, h, true)
		b.WriteString(":\n")
		if end := h.Offset + len(h.Text); h.Ref && (h.Offset > 0 || end < h.Total) {
			b.WriteString(h.Text)
			b.WriteString("\n" + recallPageNote(h.UUID, scope, h.Offset, end, h.Total) + "\n")
			continue
		}
		b.WriteString(CapText(h.Text, RecallRecordCap))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
