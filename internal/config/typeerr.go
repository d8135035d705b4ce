package config

import (
	"encoding"
	"reflect"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// The TOML library's type errors name Go types ("cannot decode TOML
// string into struct field config.File.ContextWindow of type int"): a
// user's file is better told what the key wants and what it has, in the
// file's own terms. typeMismatch finds both by walking the key: through
// File's fields (by their toml tags) for what it wants, and through the
// file decoded as plain TOML for what it has.

// typeMismatch words the type error at key of doc; ok is false when the
// key cannot be followed (the library's words are kept then).
func typeMismatch(doc []byte, key []string) (msg string, ok bool) {
	want, ok := wantedAt(reflect.TypeOf(File{}), key)
	if !ok {
		return "", false
	}
	var plain map[string]any
	if toml.Unmarshal(doc, &plain) != nil {
		return "", false
	}
	have, ok := valueAt(plain, key)
	if !ok {
		return "", false
	}
	return "wants " + typeWords(want) + ", not " + valueWords(have), true
}

// wantedAt is the Go type the key decodes into.
func wantedAt(t reflect.Type, key []string) (reflect.Type, bool) {
	for _, part := range key {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			f, found := fieldByTag(t, part)
			if !found {
				return nil, false
			}
			t = f.Type
		default:
			return nil, false
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, true
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// valueAt is the decoded TOML value at key (in an array of tables, the
// first table that has the next part).
func valueAt(v any, key []string) (any, bool) {
	for _, part := range key {
		switch x := v.(type) {
		case map[string]any:
			next, found := x[part]
			if !found {
				return nil, false
			}
			v = next
		case []any:
			found := false
			for _, el := range x {
				if m, isMap := el.(map[string]any); isMap {
					if next, has := m[part]; has {
						v, found = next, true
						break
					}
				}
			}
			if !found {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return v, true
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// typeWords says what a Go type takes, in TOML's terms.
func typeWords(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "a string in quotes"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string in quotes"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct && !reflect.PointerTo(t.Elem()).Implements(textUnmarshaler) {
			return "tables ([[…]])"
		}
		switch el := typeWords(t.Elem()); el {
		case "a string in quotes":
			return `a list of strings, e.g. ["a", "b"]`
		case "a whole number", "a number":
			return "a list of numbers"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a table"
	}
	return "another kind of value"
}

// valueWords says what a decoded TOML value is.
func valueWords(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "a whole number"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	case time.Time, toml.LocalDate, toml.LocalDateTime, toml.LocalTime:
		return "a date or time"
	}
	return "another kind of value"
}
