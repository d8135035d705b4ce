package contextmgr

// backoff is the summariser's failure back-off: after failStreakLimit
// summaries in a row failed, the next auto-compactions skip the model and
// write the fallback digest directly, for a stretch that doubles with
// every further failure (backoffStart, then 6, 12, up to backoffMax). A
// success resets it; a manual /compact always asks the model. Its state is
// kept on every summary record (compactMetadata failures, skipsLeft), so
// it carries over a resume.
type backoff struct {
	streak   int // summary failures in a row
	skipLeft int // auto-compactions left that go straight to the fallback
	next     int // the next back-off length
}

func newBackoff() backoff { return backoff{next: backoffStart} }

// restoredBackoff is the back-off a summary record left behind.
func restoredBackoff(failures, skipsLeft int) backoff {
	b := backoff{streak: failures, skipLeft: skipsLeft, next: backoffStart}
	for i := failStreakLimit; i <= failures && b.next < backoffMax; i++ {
		b.next = min(2*b.next, backoffMax)
	}
	return b
}

// askModel reports whether a compaction of trigger asks the summariser.
func (b *backoff) askModel(manual bool) bool { return manual || b.skipLeft == 0 }

// skipped notes an auto-compaction that went straight to the fallback.
func (b *backoff) skipped() { b.skipLeft-- }

// succeeded resets the back-off after a summary was written.
func (b *backoff) succeeded() { *b = newBackoff() }

// failed notes a summary that failed.
func (b *backoff) failed() {
	b.streak++
	if b.streak >= failStreakLimit {
		b.skipLeft = b.next
		b.next = min(2*b.next, backoffMax)
	}
}
