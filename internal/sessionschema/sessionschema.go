// Package sessionschema holds the session records the tests make to the
// format's JSON Schema, docs/session.schema.json: the end-to-end harness
// and the testscript runner check every session file a test leaves, and
// storage checks the records it writes itself. A record clawdcode writes
// with a type, subtype or field the schema does not list, or with a wrong
// type of value, fails the test that wrote it.
//
// It is a normal package only so that tests of several packages can share
// it; the clawdcode binary never links it.
package sessionschema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// File is the schema's path relative to the repository root.
const File = "docs/session.schema.json"

// maxReports bounds the errors reported per session file: one bad writer
// tends to repeat itself on every line.
const maxReports = 5

var compiled struct {
	once sync.Once
	sch  *jsonschema.Schema
	err  error
}

// Schema returns the compiled schema (compiled once per process) and
// fails the test when it cannot be read or compiled.
func Schema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(fixtures.Root(t), File)
	compiled.once.Do(func() {
		compiled.sch, compiled.err = compile(path)
	})
	if compiled.err != nil {
		t.Fatalf("sessionschema: %v", compiled.err)
	}
	return compiled.sch
}

func compile(path string) (*jsonschema.Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(path, doc); err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	sch, err := c.Compile(path)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", path, err)
	}
	return sch, nil
}

// Validate checks one record line against the schema.
func Validate(t testing.TB, line []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return Schema(t).Validate(inst)
}

// CheckFile reports, as errors of t, every record of the session file at
// path that starts at byte from or later and does not match the schema.
// Lines that are not JSON at all are left alone: they are damage a test
// made (a corrupted or torn line) and the loader's business, since
// clawdcode only ever writes encoded records. So is a last line without
// its newline.
func CheckFile(t testing.TB, path string, from int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Errorf("sessionschema: %v", err)
		return
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	reports := 0
	var off int64
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		start := off
		off += int64(len(line))
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("sessionschema: read %s: %v", path, err)
			}
			return
		}
		line = bytes.TrimSpace(line)
		if start < from || len(line) == 0 || !json.Valid(line) {
			continue
		}
		if verr := Validate(t, line); verr != nil {
			reports++
			if reports > maxReports {
				t.Errorf("%s: more records do not match %s", path, File)
				return
			}
			t.Errorf("%s:%d: record does not match %s: %v\n%s", path, n, File, verr, clip(line))
		}
	}
}

// CheckHome runs CheckFile on every session file under the
// CLAWDCODE_HOME home. from gives, by path, the byte where clawdcode's own
// writing starts in a file a test installed (nil: everywhere).
func CheckHome(t testing.TB, home string, from map[string]int64) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if err != nil {
		t.Errorf("sessionschema: %v", err)
		return
	}
	for _, p := range paths {
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		CheckFile(t, p, from[p])
	}
}

func clip(line []byte) []byte {
	const max = 600
	if len(line) <= max {
		return line
	}
	return append(line[:max:max], "…"...)
}
