package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestStartingHeapThenTheDefault: the heap's first goal is raised, and the
// first collection puts GOGC back to 100; a GOGC the user set is kept.
// Not parallel: it sets the test process's own GC percent.
func TestStartingHeapThenTheDefault(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	startingHeap()
	if got := debug.SetGCPercent(startingGCPercent); got != startingGCPercent {
		t.Fatalf("GC percent after startingHeap = %d, want %d", got, startingGCPercent)
	}
	deadline := time.Now().Add(time.Minute) // a safety net, not a measure
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the cleanup runs on its own goroutine
		got := debug.SetGCPercent(100)
		if got == 100 {
			break
		}
		debug.SetGCPercent(got)
		if time.Now().After(deadline) {
			t.Fatalf("GC percent still %d after collections: the first one did not restore the default", got)
		}
	}

	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	startingHeap()
	if got := debug.SetGCPercent(100); got != 50 {
		t.Fatalf("with GOGC=50 set, startingHeap made the percent %d", got)
	}
}
