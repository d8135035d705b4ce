package agent

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestAfterTurnHearsEachTurnWithItsRecordsWritten: the hook sync's auto
// push hangs on is called once per turn, with the session's id, when the
// turn's reply is already in the session file — a failed turn included
// (its records are written too).
func TestAfterTurnHearsEachTurnWithItsRecordsWritten(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	var heard []string
	e.cfg.AfterTurn = func(id string) {
		heard = append(heard, types(w.records(t, id)))
	}
	w.srv.Enqueue(llmtest.Text("first answer"))
	if _, err := e.Turns().Submit(t.Context(), "first", nil); err != nil {
		t.Fatal(err)
	}
	w.srv.Enqueue(llmtest.Error(400, "bad request", "invalid_request_error", ""))
	_, _ = e.Turns().Submit(t.Context(), "second", nil)
	if len(heard) != 2 || heard[0] != "user,assistant" || !strings.HasPrefix(heard[1], "user,assistant,user") {
		t.Fatalf("the hook heard %q, want each turn's records", heard)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}
