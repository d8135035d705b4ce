package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool's parameters are one struct (readParams, bashParams, …): its
// fields carry the contract's parameter names (CONTRACT.md §3) in their
// json tags, their descriptions in jsonschema tags, and what JSON Schema
// adds beyond the Go type in param tags. The schema offered to the model
// is generated from the struct (schemaOf) and calls are decoded into it
// (decodeParams), so the two cannot drift apart.
//
// A field without omitempty is required. param tag options, comma
// separated:
//
//	text            a string that must hold more than white space
//	min=N, max=N    the schema's minimum and maximum (the tool checks them
//	                itself, with a message that helps the model)
//	enum=a|b|c      the schema's allowed values
//
// Decoding keeps args' leniency ("10" for 10, "true" for true, null for
// absent) and its messages, which name the parameter and what was wrong.

// typed fills in a tool's schema, run and describe from its parameter
// struct P.
func typed[P any](t *tool, run func(context.Context, P) Result, describe func(P) string) *tool {
	t.schema, t.briefSchema = schemaOf[P]()
	if t.brief == "" {
		t.brief = briefs[t.name]
	}
	t.run = func(ctx context.Context, a args) Result {
		p, err := decodeParams[P](a, false)
		if err != nil {
			return invalid(err)
		}
		return run(ctx, p)
	}
	t.describe = func(a args) string {
		p, _ := decodeParams[P](a, true)
		return describe(p)
	}
	return t
}

// checked is a tool's Precheck over its parameter struct.
func checked[P any](validate func(context.Context, P) (Result, bool)) func(ctx context.Context, a args) (Result, bool) {
	return func(ctx context.Context, a args) (Result, bool) {
		p, err := decodeParams[P](a, false)
		if err != nil {
			return invalid(err), false
		}
		return validate(ctx, p)
	}
}

// schemaOf is P's JSON Schema, compact: every request carries it; and its
// brief form, without the descriptions (brief.go).
func schemaOf[P any]() (full, brief string) {
	s, err := jsonschema.For[P](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: schema of %T: %v", *new(P), err))
	}
	if err := applyParamTags(s, reflect.TypeFor[P]()); err != nil {
		panic(fmt.Sprintf("tools: schema of %T: %v", *new(P), err))
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: schema of %T: %v", *new(P), err))
	}
	short, err := json.Marshal(withoutDescriptions(s))
	if err != nil {
		panic(fmt.Sprintf("tools: brief schema of %T: %v", *new(P), err))
	}
	return string(b), string(short)
}

// applyParamTags applies the param tags of t's fields to their
// properties in s, and those of a list's items to the items' schema (the
// todos of TodoWrite).
func applyParamTags(s *jsonschema.Schema, t reflect.Type) error {
	for _, f := range reflect.VisibleFields(t) {
		name, _ := jsonName(f)
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		// A pointer field (absent vs. zero) is still one type to the model.
		if i := slices.Index(prop.Types, "null"); i >= 0 && len(prop.Types) == 2 {
			prop.Type, prop.Types = prop.Types[1-i], nil
		}
		if err := applyParamTag(prop, f.Tag.Get("param")); err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct && prop.Items != nil {
			if err := applyParamTags(prop.Items, f.Type.Elem()); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	}
	return nil
}

func applyParamTag(prop *jsonschema.Schema, tag string) error {
	for opt := range strings.SplitSeq(tag, ",") {
		key, val, _ := strings.Cut(strings.TrimSpace(opt), "=")
		switch key {
		case "", "text":
		case "min", "max":
			n, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return fmt.Errorf("param %s: %w", key, err)
			}
			if key == "min" {
				prop.Minimum = &n
			} else {
				prop.Maximum = &n
			}
		case "enum":
			for v := range strings.SplitSeq(val, "|") {
				prop.Enum = append(prop.Enum, v)
			}
		default:
			return fmt.Errorf("unknown param option %q", key)
		}
	}
	return nil
}

// jsonName is a field's parameter name and whether it is optional.
func jsonName(f reflect.StructField) (name string, optional bool) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
}

// decodeParams fills a P from a call's arguments. loose decodes what it
// can and ignores the rest, for one-line descriptions of calls that may
// be malformed; otherwise the first problem is the error.
func decodeParams[P any](a args, loose bool) (P, error) {
	var p P
	v := reflect.ValueOf(&p).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		if !f.IsExported() {
			continue
		}
		name, optional := jsonName(f)
		if err := decodeField(a, name, optional, f.Tag.Get("param"), v.FieldByIndex(f.Index)); err != nil && !loose {
			return p, err
		}
	}
	return p, nil
}

func decodeField(a args, name string, optional bool, tag string, dst reflect.Value) error {
	if !optional && a.raw(name) == nil {
		return missing(name)
	}
	if a.raw(name) == nil {
		return nil
	}
	if dst.Kind() == reflect.Pointer {
		dst.Set(reflect.New(dst.Type().Elem()))
		dst = dst.Elem()
	}
	switch dst.Kind() {
	case reflect.String:
		s, err := a.decodeString(name, a.raw(name))
		if err == nil && slices.Contains(strings.Split(tag, ","), "text") && strings.TrimSpace(s) == "" {
			err = fmt.Errorf("%w: %s is empty", errBadArgs, name)
		}
		dst.SetString(s)
		return err
	case reflect.Int:
		n, _, err := a.optionalInt(name)
		dst.SetInt(int64(n))
		return err
	case reflect.Bool:
		b, err := a.optionalBool(name)
		dst.SetBool(b)
		return err
	default:
		if err := json.Unmarshal(a.raw(name), dst.Addr().Interface()); err != nil {
			return fmt.Errorf("%w: parameter %q: %v", errBadArgs, name, err)
		}
		return nil
	}
}
