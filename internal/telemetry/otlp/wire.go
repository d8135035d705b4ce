package otlp

import (
	"encoding/binary"
	"math"
)

// The protobuf wire format, as much of it as OTLP's messages use: varints,
// 64- and 32-bit fixed fields, and length-delimited fields (strings,
// bytes, nested messages, packed repeated fixed64 and doubles). We write
// it ourselves because the protobuf runtime costs every start of the
// binary, telemetry on or off: its package initialisation hashes the
// running executable (internal/detrand), a few milliseconds on a loaded
// machine, which `clawdcode --version` would pay. The field numbers are
// opentelemetry-proto's (v1), and the tests decode what is written here
// with the generated OTLP types.

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// buf is a message under construction.
type buf struct{ b []byte }

func (e *buf) tag(field, wire int) { e.b = binary.AppendUvarint(e.b, uint64(field)<<3|uint64(wire)) }

func (e *buf) varint(field int, v uint64) {
	if v == 0 {
		return
	}
	e.tag(field, wireVarint)
	e.b = binary.AppendUvarint(e.b, v)
}

// int64v is an int64 field (two's complement varint), written even when 0
// inside a oneof (see anyValue).
func (e *buf) int64v(field int, v int64) {
	e.tag(field, wireVarint)
	e.b = binary.AppendUvarint(e.b, uint64(v))
}

func (e *buf) boolv(field int, v bool) {
	e.tag(field, wireVarint)
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *buf) fixed64(field int, v uint64) {
	if v == 0 {
		return
	}
	e.fixed64Always(field, v)
}

func (e *buf) fixed64Always(field int, v uint64) {
	e.tag(field, wireFixed64)
	e.b = binary.LittleEndian.AppendUint64(e.b, v)
}

func (e *buf) double(field int, v float64) { e.fixed64Always(field, math.Float64bits(v)) }

func (e *buf) fixed32(field int, v uint32) {
	if v == 0 {
		return
	}
	e.tag(field, wireFixed32)
	e.b = binary.LittleEndian.AppendUint32(e.b, v)
}

func (e *buf) bytes(field int, v []byte) {
	if len(v) == 0 {
		return
	}
	e.tag(field, wireBytes)
	e.b = binary.AppendUvarint(e.b, uint64(len(v)))
	e.b = append(e.b, v...)
}

func (e *buf) str(field int, v string) {
	if v == "" {
		return
	}
	e.tag(field, wireBytes)
	e.b = binary.AppendUvarint(e.b, uint64(len(v)))
	e.b = append(e.b, v...)
}

// strAlways writes a string field even when empty (a oneof's member).
func (e *buf) strAlways(field int, v string) {
	e.tag(field, wireBytes)
	e.b = binary.AppendUvarint(e.b, uint64(len(v)))
	e.b = append(e.b, v...)
}

// msg writes a nested message that fill builds (written even when empty:
// an empty message still says which member of a oneof is set).
func (e *buf) msg(field int, fill func(*buf)) {
	var m buf
	fill(&m)
	e.tag(field, wireBytes)
	e.b = binary.AppendUvarint(e.b, uint64(len(m.b)))
	e.b = append(e.b, m.b...)
}

// packedFixed64 writes a packed repeated fixed64 (or double) field.
func (e *buf) packedFixed64(field int, vs []uint64) {
	if len(vs) == 0 {
		return
	}
	e.tag(field, wireBytes)
	e.b = binary.AppendUvarint(e.b, uint64(8*len(vs)))
	for _, v := range vs {
		e.b = binary.LittleEndian.AppendUint64(e.b, v)
	}
}

func appendLen(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}
