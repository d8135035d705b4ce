// Package otlp exports the OpenTelemetry SDK's spans, metrics and log
// records over OTLP/HTTP with protobuf bodies (the http/protobuf
// protocol), the one transport clawdcode speaks: the SDK's own OTLP HTTP
// exporters import the OTLP collector service packages, which bring gRPC
// into the binary, and the protobuf runtime, whose initialisation every
// start of clawdcode would pay whether telemetry is on or not. The
// messages are written field by field (wire.go) from the SDK's read-only
// data; the tests decode them with the generated OTLP types and a real
// collector receives them.
//
// An exporter sends each batch in one POST and does not retry: the SDK's
// processors call it from their own goroutines, never from the caller's.
package otlp
