package llm

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy bounds retries of rate-limit (429), 5xx, network errors, cut
// streams and mid-stream server errors. A zero field takes its value from
// DefaultRetryPolicy.
type RetryPolicy struct {
	MaxAttempts int                                              // total attempts including the first
	BaseDelay   time.Duration                                    // first backoff
	MaxDelay    time.Duration                                    // cap for backoff and for Retry-After
	Sleep       func(ctx context.Context, d time.Duration) error // nil = real sleep honouring ctx
}

// DefaultRetryPolicy is four attempts, backing off from 1 s up to 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, BaseDelay: time.Second, MaxDelay: 30 * time.Second, Sleep: sleepCtx}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.Sleep == nil {
		p.Sleep = d.Sleep
	}
	return p
}

// delay is the wait before attempt number failed+1. The server's
// Retry-After wins when it sent one; otherwise exponential backoff with
// "equal jitter" (half fixed, half random), so clients that failed together
// do not return together yet each still waits a meaningful minimum.
func (p RetryPolicy) delay(failed int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, p.MaxDelay)
	}
	d := p.BaseDelay
	for i := 1; i < failed && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	half := d / 2
	return half + rand.N(half+1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryAfter reads how long the server asked us to wait: retry-after-ms
// (OpenAI), then Retry-After as seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		secs = min(secs, 24*3600) // keep the conversion below from overflowing
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
