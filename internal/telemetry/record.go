package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// The attribute names: OpenTelemetry's GenAI conventions for spans, and
// session.id on everything.
const (
	attrSession       = "session.id"
	attrOperation     = "gen_ai.operation.name"
	attrProvider      = "gen_ai.provider.name"
	attrAgentName     = "gen_ai.agent.name"
	attrConversation  = "gen_ai.conversation.id"
	attrRequestModel  = "gen_ai.request.model"
	attrResponseModel = "gen_ai.response.model"
	attrInputTokens   = "gen_ai.usage.input_tokens"
	attrOutputTokens  = "gen_ai.usage.output_tokens"
	attrCacheRead     = "gen_ai.usage.cache_read.input_tokens"
	attrFinish        = "gen_ai.response.finish_reasons"
	attrToolName      = "gen_ai.tool.name"
	attrToolCallID    = "gen_ai.tool.call.id"
	attrToolType      = "gen_ai.tool.type"
	attrErrorType     = "error.type"
)

// Turn starts a turn's span (invoke_agent) and, for the session's own
// turns, counts the session once and reports the prompt (its length; the
// text only with OTEL_LOG_USER_PROMPTS=1).
func (t *Telemetry) Turn(ctx context.Context, tn Turn) (context.Context, func(error)) {
	agent := tn.Agent
	if agent == "" {
		agent = "clawdcode"
	}
	ctx = withTurn(ctx, t, tn.Session)
	ctx, span := t.tracer.Start(ctx, "invoke_agent "+agent, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attribute.String(attrOperation, "invoke_agent"),
			attribute.String(attrAgentName, agent),
			attribute.String(attrConversation, tn.Session),
			attribute.String(attrRequestModel, tn.Model),
			attribute.String(attrSession, tn.Session)))
	if tn.Agent == "" {
		if _, seen := t.counted.LoadOrStore(tn.Session, true); !seen {
			t.inst.sessions.Add(ctx, 1, metric.WithAttributes(attribute.String(attrSession, tn.Session)))
		}
		kvs := []attribute.KeyValue{attribute.Int("prompt_length", len(tn.Prompt))}
		if t.set.LogUserPrompts {
			kvs = append(kvs, attribute.String("prompt", tn.Prompt))
		}
		t.event(ctx, "clawdcode.user_prompt", tn.Session, kvs...)
	}
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, "turn failed")
			span.SetAttributes(attribute.String(attrErrorType, errorType(err)))
		}
		span.End()
	}
}

// Tool starts a tool call's span (execute_tool); its end reports the
// result's outcome, never its text, and the lines a Write or Edit changed.
func (t *Telemetry) Tool(ctx context.Context, call ToolCall) (context.Context, func(ToolEnd)) {
	session := t.session(ctx)
	start := time.Now()
	ctx, span := t.tracer.Start(ctx, "execute_tool "+call.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attribute.String(attrOperation, "execute_tool"),
			attribute.String(attrToolName, call.Name),
			attribute.String(attrToolCallID, call.ID),
			attribute.String(attrToolType, "function"),
			attribute.String(attrSession, session)))
	return ctx, func(end ToolEnd) {
		ok := end.Error == ""
		if !ok {
			span.SetStatus(codes.Error, "tool call failed")
			span.SetAttributes(attribute.String(attrErrorType, "tool_error"))
		}
		span.End()
		t.event(ctx, "clawdcode.tool_result", session,
			attribute.String("tool_name", call.Name), attribute.Bool("success", ok),
			attribute.Int64("duration_ms", time.Since(start).Milliseconds()))
		if ok {
			if added, removed := linesChanged(call.Name, call.Input); added+removed > 0 {
				t.lines(ctx, session, added, removed)
			}
		}
	}
}

func (t *Telemetry) lines(ctx context.Context, session string, added, removed int) {
	for _, c := range []struct {
		typ string
		n   int
	}{{"added", added}, {"removed", removed}} {
		if c.n > 0 {
			t.inst.lines.Add(ctx, int64(c.n), metric.WithAttributes(attribute.String("type", c.typ), attribute.String(attrSession, session)))
		}
	}
}

// Decision counts a permission decision.
func (t *Telemetry) Decision(ctx context.Context, d Decision) {
	dec := "reject"
	if d.Allowed {
		dec = "accept"
	}
	t.inst.decisions.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", d.Tool), attribute.String("decision", dec),
		attribute.String("source", d.Source), attribute.String(attrSession, t.session(ctx))))
}

// Records reads compactions from the records appended to a session: a
// boundary and its summary (step summary, or fallback when the model
// could not summarise), and the context ladder's clearing of old tool
// results (step clear).
func (t *Telemetry) Records(session string, recs []*storage.Record) {
	ctx := context.Background()
	for i, r := range recs {
		var step string
		var cm *storage.CompactMetadata
		switch {
		case r.IsBoundary() && r.CompactMetadata != nil:
			step, cm = "summary", r.CompactMetadata
			if i+1 < len(recs) && recs[i+1].CompactMetadata != nil {
				if recs[i+1].CompactMetadata.Fallback {
					step = "fallback"
				}
				cm = &storage.CompactMetadata{Trigger: cm.Trigger, PreTokens: cm.PreTokens,
					PostTokens: recs[i+1].CompactMetadata.PostTokens, Receipt: cm.Receipt}
			}
		case r.Subtype == storage.SubtypeContextClear && r.CompactMetadata != nil && len(r.CompactMetadata.Cleared) > 0:
			step, cm = "clear", r.CompactMetadata
		default:
			continue
		}
		t.inst.compactions.Add(ctx, 1, metric.WithAttributes(attribute.String("step", step), attribute.String(attrSession, session)))
		kvs := []attribute.KeyValue{attribute.String("step", step), attribute.String("trigger", cm.Trigger),
			attribute.Int("pre_tokens", cm.PreTokens), attribute.Int("post_tokens", cm.PostTokens)}
		if rc := cm.Receipt; rc != nil && rc.SummaryUsage != nil {
			kvs = append(kvs, attribute.Int("summary_input_tokens", rc.SummaryUsage.InputTokens),
				attribute.Int("summary_output_tokens", rc.SummaryUsage.OutputTokens))
		}
		t.event(ctx, "clawdcode.compaction", session, kvs...)
	}
}

// event emits one of clawdcode's events (a log record named name) with
// session.id, under the span of ctx when there is one.
func (t *Telemetry) event(ctx context.Context, name, session string, kvs ...attribute.KeyValue) {
	var r log.Record
	now := time.Now()
	r.SetEventName(name)
	r.SetTimestamp(now)
	r.SetObservedTimestamp(now)
	r.SetSeverity(log.SeverityInfo)
	r.SetBody(attribute.StringValue(name))
	r.AddAttributes(attribute.String("event.name", name), attribute.String(attrSession, session))
	r.AddAttributes(kvs...)
	t.logger.Emit(ctx, r)
}
