package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/storage"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	updated := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	ambiguous := &storage.AmbiguousIDError{Prefix: "ab", Candidates: []storage.SessionInfo{
		{ID: "ab000000-1111", Title: "first", Updated: updated},
		{ID: "ab999999-2222", Updated: updated},
	}}
	tests := []struct {
		name      string
		err       error
		cause     error
		wantCode  int
		wantMsg   string
		wantHints []string
	}{
		{"nil", nil, nil, 0, "", nil},
		{"runtime", errors.New("disk full"), nil, 1, "disk full", nil},
		{"usage", usageErrorf("bad thing"), nil, 2, "bad thing", nil},
		{"wrapped usage keeps hints", fmt.Errorf("ctx: %w", &UsageError{Err: errors.New("x"), Hints: []string{"try y"}}), nil, 2, "ctx: x", []string{"try y"}},
		{"invalid id", fmt.Errorf("resume: %w", storage.ErrInvalidID), nil, 2, "resume: invalid session id", nil},
		{"unknown id", fmt.Errorf("resume: %w", storage.ErrNotFound), nil, 2, "resume: session not found", nil},
		{"ambiguous id lists candidates", ambiguous, nil, 2, `ambiguous session id "ab" matches 2 sessions`,
			[]string{"ab000000-1111  2026-11-21T10:00:00Z  first", "ab999999-2222  2026-11-21T10:00:00Z  (untitled)"}},
		{"cancelled", fmt.Errorf("turn: %w", context.Canceled), nil, 130, "interrupted", nil},
		{"any error after an interrupt", errors.New("read: closed"), errInterrupted, 130, "interrupted", nil},
		{"agent interrupted", fmt.Errorf("%w: %w", agent.ErrInterrupted, context.Canceled), nil, 130, "interrupted", nil},
		{"missing key", llm.ErrMissingAPIKey, nil, 1, llm.ErrMissingAPIKey.Error(), nil},
		{"network", &llm.Error{Kind: llm.KindNetwork, Message: "connection refused"}, nil, 1,
			(&llm.Error{Kind: llm.KindNetwork, Message: "connection refused"}).Error(),
			[]string{"is the server at OPENAI_BASE_URL running and reachable?"}},
		{"idle timeout is no interrupt", fmt.Errorf("model call: %w", &llm.Error{Kind: llm.KindNetwork, Message: "no response", Err: llm.ErrIdleTimeout}), nil, 1,
			"model call: network error: no response",
			[]string{"the server sent nothing in time; if it is only slow, raise CLAWDCODE_TIMEOUT (e.g. CLAWDCODE_TIMEOUT=300s)"}},
		{"unknown slash command", fmt.Errorf("%w /compcat; type /help for the list", slash.ErrUnknownCommand), nil, 2,
			"unknown command /compcat; type /help for the list", []string{"`clawdcode -p /help` lists the commands"}},
		{"slash command arguments", fmt.Errorf("%w: /switch <id-prefix or title-prefix>", slash.ErrUsage), nil, 2,
			"usage: /switch <id-prefix or title-prefix>", nil},
		{"busy", fmt.Errorf("resume session x: %w", storage.ErrSessionBusy), nil, 1, "resume session x: " + storage.ErrSessionBusy.Error(),
			[]string{"another clawdcode process has this session open; try again once it has finished"}},
		{"hint", withHint(errors.New("no session to continue"), "start one"), nil, 1, "no session to continue", []string{"start one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Describe(tt.err, tt.cause)
			if got.Code != tt.wantCode || got.Message != tt.wantMsg || strings.Join(got.Hints, "|") != strings.Join(tt.wantHints, "|") {
				t.Errorf("Describe(%v) = %+v\nwant code %d, message %q, hints %q", tt.err, got, tt.wantCode, tt.wantMsg, tt.wantHints)
			}
		})
	}
}

func TestDescribeCapsCandidates(t *testing.T) {
	t.Parallel()
	amb := &storage.AmbiguousIDError{Prefix: "a"}
	for i := range 20 {
		amb.Candidates = append(amb.Candidates, storage.SessionInfo{ID: fmt.Sprintf("a%07d", i)})
	}
	got := Describe(amb, nil)
	if len(got.Hints) != storage.MaxCandidates+1 || got.Hints[storage.MaxCandidates] != "… and 12 more" {
		t.Errorf("hints = %q, want %d candidates and a count of the rest", got.Hints, storage.MaxCandidates)
	}
}

func TestFailurePrint(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	Failure{Code: 1, Message: "boom", Hints: []string{"do this"}}.Print(&buf)
	if got, want := buf.String(), "clawdcode: boom\n  do this\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	buf.Reset()
	Failure{Code: 1, Message: "write a: disk full\nclose b: disk full\n", Hints: []string{"free some space"}}.Print(&buf)
	if got, want := buf.String(), "clawdcode: write a: disk full\n  close b: disk full\n  free some space\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	buf.Reset()
	Failure{Code: 0}.Print(&buf)
	if buf.Len() != 0 {
		t.Errorf("success printed %q", buf.String())
	}
}
