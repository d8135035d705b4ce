// Package telemetry is clawdcode's OpenTelemetry export (CONTRACT.md
// section 16): metrics, events (log records) and traces over OTLP/HTTP,
// off unless the user turns it on.
//
// The engine reports through Hooks, a few calls at the places things
// happen — a turn (or a subagent's run), a tool call, a permission
// decision, the records appended to a session — and the model client is
// wrapped (WrapLLM) so that every model call, compactions' summary calls
// included, is seen where it is made. With telemetry off the engine holds
// Off, whose methods do nothing: Start is never called, so no provider,
// exporter or goroutine of the SDK exists and nothing connects anywhere.
//
// What leaves the machine: counts, models, timings, tool names, decisions
// and outcomes, each with session.id. Never the API key, a file's content,
// a tool's input or output, or an error's text (only its class); the
// user's prompt only with OTEL_LOG_USER_PROMPTS=1 (else its length).
//
// Traces follow OpenTelemetry's GenAI conventions: a turn is an
// invoke_agent span, each model call a chat span (gen_ai.request.model,
// gen_ai.usage.input_tokens, …) and each tool call an execute_tool span
// under it; a subagent's turn is a child of its Task call's span.
//
// Nothing is exported on the caller's goroutine: the SDK's batch
// processors and periodic reader send from their own, and a collector
// that is down, slow or refusing costs a turn nothing. At exit Shutdown
// sends what is left within ExitFlush (2 s), whatever the collector does.
//
// Settings come from the standard OTEL_* variables (Read): the endpoint
// and per-signal endpoints, headers, compression, timeouts, resource
// attributes, the metric export interval and each signal's exporter
// (otlp, console — written to stderr, never stdout, which belongs to -p's
// output — or none). The one protocol is http/protobuf (package otlp).
// Whether it is on is CLAWDCODE_ENABLE_TELEMETRY's, else the user's
// configuration file's [telemetry] enabled; a project's file has no say
// over it.
package telemetry
