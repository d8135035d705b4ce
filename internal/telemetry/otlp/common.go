package otlp

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
)

// keyValue writes common.v1.KeyValue {key = 1, value = 2}.
func keyValue(e *buf, field int, kv attribute.KeyValue) {
	e.msg(field, func(m *buf) {
		m.str(1, string(kv.Key))
		m.msg(2, func(v *buf) { attrValue(v, kv.Value) })
	})
}

// attrValue writes the members of common.v1.AnyValue: string 1, bool 2,
// int 3, double 4, array 5 (ArrayValue {values = 1}), kvlist 6
// (KeyValueList {values = 1}), bytes 7.
func attrValue(v *buf, val attribute.Value) {
	switch val.Type() {
	case attribute.BOOL:
		v.boolv(2, val.AsBool())
	case attribute.INT64:
		v.int64v(3, val.AsInt64())
	case attribute.FLOAT64:
		v.double(4, val.AsFloat64())
	case attribute.STRING:
		v.strAlways(1, val.AsString())
	case attribute.BOOLSLICE:
		v.msg(5, func(a *buf) {
			for _, b := range val.AsBoolSlice() {
				a.msg(1, func(x *buf) { x.boolv(2, b) })
			}
		})
	case attribute.INT64SLICE:
		v.msg(5, func(a *buf) {
			for _, n := range val.AsInt64Slice() {
				a.msg(1, func(x *buf) { x.int64v(3, n) })
			}
		})
	case attribute.FLOAT64SLICE:
		v.msg(5, func(a *buf) {
			for _, f := range val.AsFloat64Slice() {
				a.msg(1, func(x *buf) { x.double(4, f) })
			}
		})
	case attribute.STRINGSLICE:
		v.msg(5, func(a *buf) {
			for _, s := range val.AsStringSlice() {
				a.msg(1, func(x *buf) { x.strAlways(1, s) })
			}
		})
	case attribute.BYTESLICE:
		v.tag(7, wireBytes)
		v.b = appendLen(v.b, val.AsByteSlice())
	case attribute.SLICE:
		v.msg(5, func(a *buf) {
			for _, x := range val.AsSlice() {
				a.msg(1, func(e *buf) { attrValue(e, x) })
			}
		})
	case attribute.MAP:
		v.msg(6, func(a *buf) {
			for _, kv := range val.AsMap() {
				keyValue(a, 1, kv)
			}
		})
	case attribute.EMPTY:
		// An empty AnyValue.
	default:
		v.strAlways(1, val.String())
	}
}

// attrs writes each attribute as a KeyValue of field.
func attrs(e *buf, field int, kvs []attribute.KeyValue) {
	for _, kv := range kvs {
		keyValue(e, field, kv)
	}
}

// byScope groups n items by their instrumentation scope (scope(i) is the
// i-th's), scopes in the order met, each with its items' indexes.
func byScope(n int, scope func(i int) instrumentation.Scope) ([]instrumentation.Scope, map[instrumentation.Scope][]int) {
	var order []instrumentation.Scope
	idx := map[instrumentation.Scope][]int{}
	for i := range n {
		sc := scope(i)
		if _, ok := idx[sc]; !ok {
			order = append(order, sc)
		}
		idx[sc] = append(idx[sc], i)
	}
	return order, idx
}

// resourceMsg writes resource.v1.Resource {attributes = 1}.
func resourceMsg(e *buf, field int, r *resource.Resource) {
	e.msg(field, func(m *buf) {
		if r != nil {
			attrs(m, 1, r.Attributes())
		}
	})
}

// scopeMsg writes common.v1.InstrumentationScope {name = 1, version = 2,
// attributes = 3}.
func scopeMsg(e *buf, field int, s instrumentation.Scope) {
	e.msg(field, func(m *buf) {
		m.str(1, s.Name)
		m.str(2, s.Version)
		attrs(m, 3, s.Attributes.ToSlice())
	})
}
