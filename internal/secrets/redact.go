package secrets

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// minSecretLen is the shortest value a Redactor replaces: shorter values
// ("1", "true", a port) would cut through ordinary text.
const minSecretLen = 8

// Redacted replaces a secret's value wherever one is found.
const Redacted = "[REDACTED]"

// Redactor replaces known secret values in bytes about to be written. The
// zero value and nil redact nothing.
type Redactor struct {
	// forms are the byte strings to replace: each secret as it is and as
	// JSON writes it inside a string (when that differs), longest first so
	// a secret containing another is replaced whole.
	forms [][]byte
}

// NewRedactor returns a Redactor for values (too short ones are ignored).
func NewRedactor(values ...string) *Redactor {
	r := &Redactor{}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < minSecretLen {
			continue
		}
		r.add([]byte(v))
		for _, html := range []bool{true, false} {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(html)
			if enc.Encode(v) == nil {
				quoted := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
				r.add(quoted[1 : len(quoted)-1])
			}
		}
	}
	slices.SortFunc(r.forms, func(a, b []byte) int { return len(b) - len(a) })
	return r
}

func (r *Redactor) add(form []byte) {
	if !slices.ContainsFunc(r.forms, func(f []byte) bool { return bytes.Equal(f, form) }) {
		r.forms = append(r.forms, form)
	}
}

// FromEnviron returns a Redactor for the values of every variable in
// environ whose name looks secret or is named in alsoSecret, plus extra
// values (the API key in use, wherever it came from).
func FromEnviron(environ, alsoSecret []string, extra ...string) *Redactor {
	values := slices.Clone(extra)
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && (IsSecretName(name) || slices.Contains(alsoSecret, name)) {
			values = append(values, value)
		}
	}
	return NewRedactor(values...)
}

// Redact returns b with every secret replaced by Redacted. b itself is
// returned, not copied, when it holds none.
func (r *Redactor) Redact(b []byte) []byte {
	if r == nil {
		return b
	}
	for _, f := range r.forms {
		if bytes.Contains(b, f) {
			b = bytes.ReplaceAll(b, f, []byte(Redacted))
		}
	}
	return b
}

// String is Redact for a string.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, f := range r.forms {
		s = strings.ReplaceAll(s, string(f), Redacted)
	}
	return s
}

// Empty reports whether the Redactor knows no secret.
func (r *Redactor) Empty() bool { return r == nil || len(r.forms) == 0 }
