package cli

import (
	"context"

	"github.com/clawdcode/clawdcode/internal/buildinfo"
	"github.com/clawdcode/clawdcode/internal/telemetry"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Telemetry is the run's OpenTelemetry export (CONTRACT.md section 16),
// started on first use, or nil when it is off: CLAWDCODE_ENABLE_TELEMETRY
// or the user's [telemetry] enabled turn it on, the OTEL_* variables say
// where it goes. Off, nothing of the OpenTelemetry SDK is built. A
// setting it cannot use is a warning, never a failure of the run.
func (f *Factory) Telemetry() *telemetry.Telemetry {
	t, _ := f.telemetry.get(func() (*telemetry.Telemetry, error) {
		enabled := false
		var prices tokens.Prices
		if cfg, err := f.Config(); err == nil {
			enabled, prices = cfg.TelemetryEnabled, tokens.NewPrices(cfg.Prices)
		}
		set, warns := telemetry.Read(f.Getenv, enabled)
		warn := warnTo(f.IO.ErrOut)
		for _, w := range warns {
			warn("telemetry: " + w)
		}
		if !set.Enabled {
			return nil, nil
		}
		t, err := telemetry.Start(set, buildinfo.Version, prices, f.IO.ErrOut, f.Logger())
		if err != nil {
			warn("telemetry: " + err.Error() + "; it is off for this run")
			return nil, nil
		}
		return t, nil
	})
	return t
}

// stopTelemetry exports what is left, within telemetry.ExitFlush, when
// telemetry was started.
func (f *Factory) stopTelemetry() {
	if !f.telemetry.done() {
		return
	}
	t, _ := f.telemetry.get(nil)
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.ExitFlush)
	defer cancel()
	if err := t.Shutdown(ctx); err != nil {
		f.Logger().Warn("telemetry shutdown", "err", err)
	}
}

// hooksOf is t's hooks, or telemetry.Off.
func hooksOf(t *telemetry.Telemetry) telemetry.Hooks {
	if t == nil {
		return telemetry.Off
	}
	return t
}
