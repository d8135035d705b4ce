package telemetry

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/usage"
)

// LLM is the model client as the engine uses it (agent.LLM).
type LLM interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error)
	ListModels(ctx context.Context) ([]string, error)
}

// WrapLLM reports every model call of inner — the replies' and the
// compactions' summary calls alike — as a chat span under the turn of its
// context, its tokens and cost as metrics, and an api_request or
// api_error event. Only counts, models and timings leave the process.
func (t *Telemetry) WrapLLM(inner LLM) LLM { return &tracedLLM{inner: inner, t: t} }

type tracedLLM struct {
	inner LLM
	t     *Telemetry
}

func (l *tracedLLM) ListModels(ctx context.Context) ([]string, error) { return l.inner.ListModels(ctx) }

func (l *tracedLLM) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	t, start := l.t, time.Now()
	session := t.session(ctx)
	ctx, span := t.tracer.Start(ctx, "chat "+req.Model, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String(attrOperation, "chat"),
			attribute.String(attrProvider, "openai"),
			attribute.String(attrRequestModel, req.Model),
			attribute.String(attrSession, session)))
	resp, err := l.inner.Stream(ctx, req, onDelta)
	ms := time.Since(start).Milliseconds()
	if err != nil {
		typ := errorType(err)
		span.SetStatus(codes.Error, "model call failed")
		span.SetAttributes(attribute.String(attrErrorType, typ))
		span.End()
		kvs := []attribute.KeyValue{attribute.String("model", req.Model), attribute.String("error", typ),
			attribute.Int64("duration_ms", ms)}
		var le *llm.Error
		if errors.As(err, &le) && le.StatusCode != 0 {
			kvs = append(kvs, attribute.Int("status_code", le.StatusCode))
		}
		t.event(ctx, "clawdcode.api_error", session, kvs...)
		return resp, err
	}
	model := resp.Model
	if model == "" {
		model = req.Model
	}
	u := resp.Usage
	cached := min(u.CachedTokens, u.PromptTokens)
	span.SetAttributes(
		attribute.String(attrResponseModel, model),
		attribute.Int(attrInputTokens, u.PromptTokens),
		attribute.Int(attrOutputTokens, u.CompletionTokens),
		attribute.Int(attrCacheRead, cached))
	if resp.FinishReason != "" {
		span.SetAttributes(attribute.StringSlice(attrFinish, []string{resp.FinishReason}))
	}
	span.End()
	cost, _ := usage.Cost(t.prices, model, storage.Usage{InputTokens: u.PromptTokens, CacheReadInputTokens: cached, OutputTokens: u.CompletionTokens})
	for _, c := range []struct {
		typ string
		n   int
	}{{"input", u.PromptTokens - cached}, {"cache_read", cached}, {"output", u.CompletionTokens}} {
		if c.n > 0 {
			t.inst.tokens.Add(ctx, int64(c.n), metric.WithAttributes(attribute.String("type", c.typ),
				attribute.String("model", model), attribute.String(attrSession, session)))
		}
	}
	if cost > 0 {
		t.inst.cost.Add(ctx, cost, metric.WithAttributes(attribute.String("model", model), attribute.String(attrSession, session)))
	}
	t.event(ctx, "clawdcode.api_request", session,
		attribute.String("model", model),
		attribute.Int("input_tokens", u.PromptTokens),
		attribute.Int("cache_read_tokens", cached),
		attribute.Int("output_tokens", u.CompletionTokens),
		attribute.Float64("cost_usd", cost),
		attribute.Int64("duration_ms", ms))
	return resp, nil
}

// errorType names an error's class, never its text (which may quote the
// server, a file or a command): the model client's kind, "canceled", or
// "error".
func errorType(err error) string {
	var le *llm.Error
	switch {
	case errors.As(err, &le):
		return le.Kind.String()
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "error"
}
