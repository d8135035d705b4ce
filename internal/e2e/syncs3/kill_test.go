package syncs3

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// killSeed fixes where the kills land.
const killSeed = 20261128

// grow appends a round of records to each of the machine's sessions in
// project dir (as a long session's turns would: a user message and a
// reply of tens of KiB each), with a compaction in every third round so
// that pushes merge segments too.
func grow(t *testing.T, m *machine, dir string, ids []string, round int) []string {
	t.Helper()
	p, err := storage.NewStore(m.Home).Project(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 2500) // ~67 KB
	for i := range ids {
		var s *storage.Session
		if ids[i] == "" {
			s, err = p.Create(ctx)
		} else {
			s, err = p.Open(ctx, ids[i])
		}
		if err != nil {
			t.Fatal(err)
		}
		for turn := range 6 {
			user := &storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: fmt.Sprintf("round %d turn %d: %s", round, turn, filler)}}
			u, err := s.Append(user)
			if err == nil {
				_, err = s.Append(&storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: "reply " + filler, Model: "gpt-4o", Usage: &storage.Usage{InputTokens: 10, OutputTokens: 5}}})
			}
			if err == nil && round%3 == 2 && turn == 4 {
				_, err = s.AppendBatch(
					&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeCompactBoundary, Message: &storage.Message{Role: "system", Content: "Conversation compacted"},
						CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: 1000, RetainedOffset: u, RetainedUUID: user.UUID}},
					&storage.Record{Type: storage.TypeUser, IsCompactSummary: true, Message: &storage.Message{Role: "user", Content: "summary of round " + fmt.Sprint(round)},
						CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: 1000, PostTokens: 100}})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		ids[i] = s.ID()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// TestPushKilledAtRandomMoments: a push SIGKILLed at 20 random moments
// (each between its start and the time the last whole push took) loses
// nothing and duplicates nothing: after each kill another machine's pull
// holds a prefix of each session, every record once; the next push
// completes, and the pull then has every record, byte for byte.
func TestPushKilledAtRandomMoments(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	a := newMachine(t, st, "kills", false)
	b := newMachine(t, st, "kills", false)
	dir := a.Project
	ids := grow(t, a, dir, make([]string, 3), 0)
	start := time.Now()
	a.mustSync("--push")
	whole := time.Since(start)
	rng := rand.New(rand.NewPCG(killSeed, 0))
	cut := 0 // kills that stopped a push before it was done
	for round := 1; round <= 20; round++ {
		grow(t, a, dir, ids, round)
		at := time.Duration(rng.Int64N(int64(whole)))
		ctx, cancel := context.WithTimeout(context.Background(), a.Timeout)
		cmd := a.Command(ctx, "sync", "--push")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(at)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		cancel()

		b.mustSync("--pull")
		behind := false
		for _, id := range ids {
			have, want := b.sessionBytesOr(id), a.sessionBytes(id)
			if !bytes.HasPrefix(want, have) {
				t.Fatalf("round %d (kill at %v): B's %s is not a prefix of A's", round, at, id)
			}
			checkOnce(t, have, fmt.Sprintf("round %d: B's %s", round, id))
			behind = behind || len(have) < len(want)
		}
		if behind {
			cut++
		}

		start := time.Now()
		a.mustSync("--push")
		whole = time.Since(start)
		b.mustSync("--pull")
		for _, id := range ids {
			if !bytes.Equal(a.sessionBytes(id), b.sessionBytes(id)) {
				t.Fatalf("round %d (kill at %v): after the next push, B's %s is not A's", round, at, id)
			}
			checkOnce(t, b.sessionBytes(id), fmt.Sprintf("round %d: B's %s", round, id))
		}
	}
	t.Logf("%d of 20 kills stopped a push before its head was written", cut)
}

// sessionBytesOr is the session's bytes, none when the machine lacks it.
func (m *machine) sessionBytesOr(id string) []byte {
	if m.sessionPath(id) == "" {
		return nil
	}
	return m.sessionBytes(id)
}

// checkOnce fails the test when a record appears twice in data.
func checkOnce(t *testing.T, data []byte, what string) {
	t.Helper()
	if len(data) == 0 {
		return
	}
	u := uuids(t, data)
	if len(slices.Compact(slices.Sorted(slices.Values(u)))) != len(u) {
		t.Fatalf("%s holds a record twice", what)
	}
}
