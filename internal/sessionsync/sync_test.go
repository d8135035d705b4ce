package sessionsync

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestPushThenPullMakesTheSameFile: a session pushed from one machine and
// pulled on another is byte for byte the same file, listed with its title
// and count; what is appended on either side later travels as new bytes
// only, and a pull with nothing new fetches no segment.
func TestPushThenPullMakesTheSameFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	obj := newMem()
	a, b := newMachine(t, root), newMachine(t, root)
	id := a.newSession("alpha", 3)
	if rep := mustSync(t, a.syncer(obj, ""), true, false); rep.Pushed != 1 {
		t.Fatalf("push: %+v", rep)
	}
	if rep := mustSync(t, b.syncer(obj, ""), false, true); rep.New != 1 {
		t.Fatalf("pull: %+v", rep)
	}
	if !bytes.Equal(a.file(id), b.file(id)) {
		t.Fatal("the pulled file is not the pushed one")
	}
	if l := b.list(); len(l) != 1 || l[0].Title != "alpha question 0" || l[0].Messages != 6 {
		t.Fatalf("listing on B: %+v", l)
	}
	// B continues; A gets B's turn.
	b.appendTurns(id, "beta", 3, 1)
	mustSync(t, b.syncer(obj, ""), true, true)
	rep := mustSync(t, a.syncer(obj, ""), true, true)
	if rep.Pulled != 1 || !bytes.Equal(a.file(id), b.file(id)) {
		t.Fatalf("A after B's turn: %+v", rep)
	}
	// Nothing changed anywhere: one listing and the manifest, no head, no segment.
	before := obj.ops
	mustSync(t, a.syncer(obj, ""), true, true)
	if n := obj.ops - before; n > 4 {
		t.Fatalf("a sync with nothing to do made %d requests", n)
	}
}

// TestBothSidesAppendedKeepEveryRecord: A and B append to one session
// while apart and then both sync: A (first) keeps its line as the
// session; B's own records continue in a fork titled as such; after A
// pulls again both machines hold every record of both, each once, and the
// fork resumes B's context.
func TestBothSidesAppendedKeepEveryRecord(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	obj := newMem()
	a, b := newMachine(t, root), newMachine(t, root)
	id := a.newSession("common", 2)
	mustSync(t, a.syncer(obj, ""), true, true)
	mustSync(t, b.syncer(obj, ""), true, true)

	a.appendTurns(id, "alpha", 2, 2)
	b.appendTurns(id, "beta", 2, 3)
	bOwn := b.uuids(id)[4:]
	mustSync(t, a.syncer(obj, ""), true, true)
	rep := mustSync(t, b.syncer(obj, ""), true, true)
	if len(rep.Forks) != 1 || rep.Forks[0].Session != id || rep.Forks[0].Records != 6 {
		t.Fatalf("B's sync: %+v", rep)
	}
	fork := rep.Forks[0].Fork
	mustSync(t, a.syncer(obj, ""), true, true)

	for _, m := range []*machine{a, b} {
		if !bytes.Equal(m.file(id), a.file(id)) || !bytes.Equal(m.file(fork), b.file(fork)) {
			t.Fatal("the machines' files differ")
		}
		for _, u := range bOwn {
			if !slices.Contains(m.uuids(fork), u) {
				t.Fatalf("B's record %s is not in the fork", u)
			}
		}
		if n := len(m.uuids(id)); n != 8 {
			t.Fatalf("the session holds %d records, want 8 (common and A's)", n)
		}
		var titles []string
		for _, s := range m.list() {
			titles = append(titles, s.Title)
		}
		if len(titles) != 2 || !slices.ContainsFunc(titles, func(s string) bool { return strings.Contains(s, "fork") }) {
			t.Fatalf("listing %q: want the session and its fork, named as such", titles)
		}
	}
	live, err := storage.LoadLive(context.Background(), b.proj.Path(fork))
	if err != nil || len(live.Warnings) > 0 {
		t.Fatal(err, live.Warnings)
	}
	var texts []string
	for _, lr := range live.Records {
		if lr.Record.Message != nil {
			texts = append(texts, lr.Record.Message.Content)
		}
	}
	if got := strings.Join(texts, "|"); !strings.Contains(got, "common question 0") || !strings.Contains(got, "beta answer 4") || strings.Contains(got, "alpha") {
		t.Fatalf("the fork resumes %q, want the common turns and B's", got)
	}
}

// TestEncryptedStoreHoldsNoWordInClear: with a passphrase no object —
// names included — holds a word of the session, its title or its project
// path; a pull without the passphrase, or with another, is refused with
// a line that says so, and writes nothing.
func TestEncryptedStoreHoldsNoWordInClear(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	obj := newMem()
	a, b := newMachine(t, root), newMachine(t, root)
	id := a.newSession("zanzibar", 2)
	mustSync(t, a.syncer(obj, "correct horse battery staple"), true, false)
	for key, body := range obj.all() {
		for _, word := range []string{"zanzibar", "question", "gpt-4o", root, id, "assistant"} {
			if strings.Contains(key, word) || bytes.Contains(body, []byte(word)) {
				t.Fatalf("object %s holds %q in clear", key, word)
			}
		}
	}
	rep := &Report{}
	err := b.syncer(obj, "").Pull(context.Background(), rep)
	if err == nil || !strings.Contains(err.Error(), KeyEnv) {
		t.Fatalf("a pull without the key: %v", err)
	}
	err = b.syncer(obj, "wrong").Pull(context.Background(), rep)
	if err == nil || !strings.Contains(err.Error(), "not the passphrase") {
		t.Fatalf("a pull with a wrong key: %v", err)
	}
	if len(b.list()) != 0 {
		t.Fatal("a refused pull wrote a session")
	}
	mustSync(t, b.syncer(obj, "correct horse battery staple"), false, true)
	if !bytes.Equal(a.file(id), b.file(id)) {
		t.Fatal("the decrypted session is not the pushed one")
	}
}

// TestDamagedSegmentIsNeverWritten: a segment whose bytes no longer match
// its hash stops that session's pull with ErrDamaged, writing nothing of
// it; once the store is mended the next pull completes.
func TestDamagedSegmentIsNeverWritten(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	obj := newMem()
	a, b := newMachine(t, root), newMachine(t, root)
	id := a.newSession("intact", 2)
	mustSync(t, a.syncer(obj, ""), true, false)
	saved := obj.all()
	for key, body := range saved {
		if strings.HasPrefix(key, segmentsDir) {
			obj.put(key, bytes.Replace(body, []byte("intact"), []byte("broken"), 1))
		}
	}
	rep := &Report{}
	if err := b.syncer(obj, "").Pull(context.Background(), rep); err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); !errors.Is(err, ErrDamaged) {
		t.Fatalf("pull of a damaged segment: %v", err)
	}
	if fileSize(b.proj.Path(id)) > 0 {
		t.Fatal("damaged bytes were written")
	}
	for key, body := range saved {
		obj.put(key, body)
	}
	mustSync(t, b.syncer(obj, ""), false, true)
	if !bytes.Equal(a.file(id), b.file(id)) {
		t.Fatal("the mended pull is not the pushed session")
	}
}

// TestAPushCutShortAtAnyStepIsCompletedByTheNext: a push that fails at
// any one of its requests — before it, or after the server did it and the
// answer was lost (a kill at that moment) — leaves the store as it was or
// complete; the next push completes it, and a pull on another machine has
// every record exactly once. A compaction among the new records makes the
// push merge segments too, so every step of that is cut as well.
func TestAPushCutShortAtAnyStepIsCompletedByTheNext(t *testing.T) {
	t.Parallel()
	for _, lost := range []bool{false, true} {
		for step := 1; ; step++ {
			root := t.TempDir()
			obj := newMem()
			a, b := newMachine(t, root), newMachine(t, root)
			id := a.newSession("first", 3)
			mustSync(t, a.syncer(obj, ""), true, false)
			for i := 3; i < 5; i++ { // a segment a turn, as auto pushes them
				a.appendTurns(id, "more", i, 1)
				mustSync(t, a.syncer(obj, ""), true, false)
			}
			a.compact(id)
			a.appendTurns(id, "after", 5, 1)

			start, cutOp := obj.ops, ""
			obj.fail = func(op string, n int) error {
				if n-start == step {
					cutOp = op
					if lost {
						return errLost
					}
					return errInjected
				}
				return nil
			}
			rep := &Report{}
			err := a.syncer(obj, "").Push(context.Background(), rep)
			cut := obj.ops-start >= step
			obj.fail = nil
			if !cut {
				break // the push took fewer steps: every one was cut
			}
			// Removing replaced segments is best effort: its failure fails nothing.
			if err == nil && rep.Err() == nil && !lost && cutOp != "list" && cutOp != "delete" {
				t.Fatalf("step %d: the push did not notice its failure", step)
			}
			mustSync(t, a.syncer(obj, ""), true, false)
			mustSync(t, b.syncer(obj, ""), false, true)
			if !bytes.Equal(a.file(id), b.file(id)) {
				t.Fatalf("lost=%v step %d: B's pull is not A's session", lost, step)
			}
			u := b.uuids(id)
			if len(slices.Compact(slices.Sorted(slices.Values(u)))) != len(u) {
				t.Fatalf("lost=%v step %d: a record twice", lost, step)
			}
		}
	}
}

// TestSegmentsMergeAtACompaction: a session pushed a turn at a time is a
// segment a turn until a compaction; the push that carries its boundary
// merges the segments before it into one, removes the replaced ones once
// they are old enough, and a machine that pulls afterwards gets the same
// file.
func TestSegmentsMergeAtACompaction(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	obj := newMem()
	a, b := newMachine(t, root), newMachine(t, root)
	id := a.newSession("turn", 1)
	sa := a.syncer(obj, "")
	mustSync(t, sa, true, false)
	for i := 1; i < 6; i++ {
		a.appendTurns(id, "turn", i, 1)
		mustSync(t, sa, true, false)
	}
	segs := func() int {
		h, _, err := mustRemote(t, sa).getHead(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return len(h.Segments)
	}
	if n := segs(); n != 6 {
		t.Fatalf("%d segments before the compaction, want one a push", n)
	}
	a.compact(id)
	a.appendTurns(id, "after", 6, 1)
	sa.now = func() time.Time { return time.Now().Add(2 * collectAge) }
	mustSync(t, sa, true, false)
	if n := segs(); n != 2 {
		t.Fatalf("%d segments after the compaction, want the merged history and the new one", n)
	}
	if n := len(obj.all()); n != 4 {
		t.Fatalf("%d objects, want the manifest, the head and two segments", n)
	}
	mustSync(t, b.syncer(obj, ""), false, true)
	if !bytes.Equal(a.file(id), b.file(id)) {
		t.Fatal("the pull after a merge is not the session")
	}
}

func mustRemote(t *testing.T, s *Syncer) *remote {
	t.Helper()
	r, err := s.remote(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
