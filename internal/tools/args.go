package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// args are a call's decoded arguments, kept as raw fields so each can be
// read with the type the tool wants and every problem reported by name.
// Models produce arguments of uneven quality; a precise message ("parameter
// "offset" must be an integer, got string "ten"") lets them fix the call.
type args map[string]json.RawMessage

func parseArgs(input json.RawMessage) (args, error) {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return args{}, nil
	}
	if !json.Valid(trimmed) {
		var probe any
		err := json.Unmarshal(trimmed, &probe)
		return nil, fmt.Errorf("%w: arguments are not valid JSON: %v", errBadArgs, err)
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: arguments must be a JSON object, got %s", errBadArgs, jsonKind(trimmed))
	}
	var a args
	if err := json.Unmarshal(trimmed, &a); err != nil {
		return nil, fmt.Errorf("%w: arguments: %v", errBadArgs, err)
	}
	return a, nil
}

// raw returns the field's JSON, or nil when it is absent or null (a null
// optional parameter is what some models send for "not given").
func (a args) raw(name string) json.RawMessage {
	v, ok := a[name]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil
	}
	return v
}

func missing(name string) error {
	return fmt.Errorf("%w: missing required parameter %q", errBadArgs, name)
}

func wrongType(name, want string, got json.RawMessage) error {
	return fmt.Errorf("%w: parameter %q must be %s, got %s", errBadArgs, name, want, describeJSON(got))
}

// requiredString returns a string parameter that must be present (it may be
// empty: Write's content and Edit's new_string legitimately are).
func (a args) requiredString(name string) (string, error) {
	v := a.raw(name)
	if v == nil {
		return "", missing(name)
	}
	return a.decodeString(name, v)
}

// requiredText is requiredString for a parameter that must hold more than
// white space (a path, a command, a pattern).
func (a args) requiredText(name string) (string, error) {
	s, err := a.requiredString(name)
	if err == nil && strings.TrimSpace(s) == "" {
		err = fmt.Errorf("%w: %s is empty", errBadArgs, name)
	}
	return s, err
}

func (a args) decodeString(name string, v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", wrongType(name, "a string", v)
	}
	return s, nil
}

// optionalInt accepts 10, 10.0 and "10"; ok is false when absent.
func (a args) optionalInt(name string) (n int, ok bool, err error) {
	v := a.raw(name)
	if v == nil {
		return 0, false, nil
	}
	text := string(bytes.TrimSpace(v))
	var s string
	if json.Unmarshal(v, &s) == nil {
		text = strings.TrimSpace(s)
	}
	if i, err := strconv.ParseInt(text, 10, 64); err == nil && i >= math.MinInt32 && i <= math.MaxInt32 {
		return int(i), true, nil
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 {
		return int(f), true, nil
	}
	return 0, false, wrongType(name, "an integer", v)
}

// optionalBool accepts true/false and "true"/"false"; absent is false.
func (a args) optionalBool(name string) (bool, error) {
	v := a.raw(name)
	if v == nil {
		return false, nil
	}
	var b bool
	if json.Unmarshal(v, &b) == nil {
		return b, nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return b, nil
		}
	}
	return false, wrongType(name, "a boolean", v)
}

// describeJSON names a JSON value's kind and shows it briefly.
func describeJSON(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	shown := string(v)
	if len(shown) > 40 {
		shown = shown[:40] + "…"
	}
	return jsonKind(v) + " " + shown
}

func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}
