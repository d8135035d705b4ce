package ctxbench

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/recall"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// A fact is available to the model when its request holds it, or holds a
// Recall ref through which it is one call away: clearing a tool result to
// a stub with a ref, or folding a ledger entry to its ref, keeps the fact
// available although its text left the request. Only a ref the binary's
// Recall would really open counts, and only for what that call returns.

// refPattern is what a request can hold as a Recall ref: a record's uuid,
// or a prefix of one of at least eight hex digits (clawdcode shows eight).
// Anything else it matches (a long number, a hash) opens no record and so
// counts for nothing.
var refPattern = regexp.MustCompile(`\b[0-9a-f]{8}(?:-[0-9a-f]{4}){0,3}(?:-[0-9a-f]{12})?\b`)

// requestRefs are the distinct candidate refs of a request's text, in the
// order they first appear.
func requestRefs(text string) []string {
	var refs []string
	for _, m := range refPattern.FindAllString(text, -1) {
		if !slices.Contains(refs, m) {
			refs = append(refs, m)
		}
	}
	return refs
}

// opener returns the text a Recall call with ref would show the model,
// and false when that call would find no record.
type opener func(ref string) (string, bool)

// available is the set of facts' keys that text (a normalised request,
// llmtest.RequestText) holds, or that a ref it holds opens.
func available(text string, facts []llmtest.Fact, open opener) map[string]bool {
	out := map[string]bool{}
	var missing []llmtest.Fact
	for _, f := range facts {
		if llmtest.Holds(text, f.Key) {
			out[f.Key] = true
		} else {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 || open == nil {
		return out
	}
	for _, ref := range requestRefs(text) {
		body, ok := open(ref)
		if !ok {
			continue
		}
		body = strings.Join(strings.Fields(body), " ")
		for _, f := range missing {
			if llmtest.Holds(body, f.Key) {
				out[f.Key] = true
			}
		}
	}
	return out
}

// sessionOpener opens refs as the Recall tool of the session id, in the
// project at root under the CLAWDCODE_HOME home, would: the same search
// over the session files the binary wrote (its own records and, for a
// fork, those of the session it came from), the record and its
// neighbours, each cut where Recall cuts it.
func sessionOpener(home, root, id string) (opener, error) {
	store := storage.NewStore(home)
	proj, err := store.Project(root)
	if err != nil {
		return nil, err
	}
	s := &recall.Searcher{Store: store, Project: proj, Session: func() string { return id }}
	return func(ref string) (string, bool) {
		hits, err := s.Around(context.Background(), ref, tools.ScopeSession, tools.RecallNeighbours)
		if err != nil || len(hits) == 0 {
			return "", false
		}
		var b strings.Builder
		for _, h := range hits {
			b.WriteString(tools.CapText(h.Text, tools.RecallRecordCap))
			b.WriteByte('\n')
		}
		return b.String(), true
	}, nil
}
