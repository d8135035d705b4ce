package usage

import (
	"context"
	"sync"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Today is today's cost over every stored session, every project's, for
// the REPL's status line: computed in the background (Refresh, after each
// turn) as `clawdcode usage --all` would count the day, and read at once
// (Figure) as often as the line is drawn. Safe for concurrent use.
type Today struct {
	store  *storage.Store
	prices tokens.Prices
	model  func() string
	now    func() time.Time

	mu      sync.Mutex
	cost    float64
	known   bool // a figure was computed
	running bool
	again   bool
	done    func()
}

// NewToday counts st's sessions at prices; model is the current model,
// whose price decides whether the figure is shown at all.
func NewToday(st *storage.Store, prices tokens.Prices, model func() string) *Today {
	return &Today{store: st, prices: prices, model: model, now: time.Now}
}

// Refresh computes the figure again in the background, then calls done
// (when not nil: the status line is drawn again); a refresh asked for
// while one runs is done once that one ends.
func (t *Today) Refresh(done func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if done != nil {
		t.done = done
	}
	if t.running {
		t.again = true
		return
	}
	t.running = true
	go t.run()
}

func (t *Today) run() {
	for {
		cost, err := t.compute(context.Background())
		t.mu.Lock()
		if err == nil {
			t.cost, t.known = cost, true
		}
		done := t.done
		if !t.again {
			t.running = false
			t.mu.Unlock()
			if done != nil {
				done()
			}
			return
		}
		t.again = false
		t.mu.Unlock()
	}
}

func (t *Today) compute(ctx context.Context) (float64, error) {
	sessions, err := Collect(ctx, t.store, nil)
	if err != nil {
		return 0, err
	}
	day := t.now().Format(time.DateOnly)
	rep := Build(sessions, Options{By: ByDay, Since: day, Until: day, Loc: time.Local, Prices: t.prices})
	return rep.Totals.Cost, nil
}

// Figure is "today $1.23", or "" while nothing is computed yet, or when
// the current model has no known price and nothing today cost anything
// (a local server's tokens are not money).
func (t *Today) Figure() string {
	t.mu.Lock()
	cost, known := t.cost, t.known
	t.mu.Unlock()
	if !known {
		return ""
	}
	if _, ok := t.prices.Of(t.model()); !ok && cost == 0 {
		return ""
	}
	return "today " + Dollars(cost)
}
