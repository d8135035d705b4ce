package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Infos returns what List says of the sessions ids of the project (those
// with a file and a message; others are left out), from the index and,
// for an entry missing or stale, from the session's file (its head and
// tail). Unlike List it stats only these sessions' files and writes no
// index: a search names the sessions of its few hits.
func (p *Project) Infos(ids []string) (map[string]SessionInfo, error) {
	out := make(map[string]SessionInfo, len(ids))
	dir := p.dir()
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer d.Close()
	idx := p.readIndexOf(dir, ids)
	for _, id := range ids {
		if _, done := out[id]; done || checkID(id) != nil {
			continue
		}
		fi, err := statAt(d, id+".jsonl")
		if err != nil || !fi.Mode().IsRegular() {
			continue // gone, or no session
		}
		e := idx[id]
		if e == nil || !e.fresh(fi) {
			if e, err = p.refreshEntryIn(d, filepath.Join(dir, id+".jsonl"), id, e, fi); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil, err
			}
		}
		if e.Messages > 0 || e.Tokens > 0 {
			info := e.SessionInfo
			info.Project = p.Root
			out[id] = info
		}
	}
	return out, nil
}

// readIndexOf is readIndex for the entries of ids alone: the others are
// stepped over without being decoded (a search names the few sessions of
// its hits, of thousands).
func (p *Project) readIndexOf(dir string, ids []string) map[string]*indexEntry {
	b, err := ReadRegular(filepath.Join(dir, indexName))
	if err != nil {
		return nil
	}
	if red := p.store.currentRedactor(); red != nil {
		b = red.Redact(b)
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	m, err := decodeIndexOf(b, want)
	if err != nil {
		return nil
	}
	return m
}

// decodeIndexOf decodes the entries of index.json whose id is wanted. An
// entry is judged by its first bytes when they are what writeIndex
// writes ({"id":"…", unescaped); any other is decoded to tell.
func decodeIndexOf(b []byte, want map[string]bool) (map[string]*indexEntry, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b), validOptions)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, errors.New("index: not an object")
	}
	out := map[string]*indexEntry{}
	version := -1
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		switch name.String() {
		case "version":
			v, err := dec.ReadToken()
			if err != nil || v.Kind() != '0' {
				return nil, errors.New("index: bad version")
			}
			n, err := v.Int()
			if err != nil {
				return nil, errors.New("index: bad version")
			}
			version = int(n)
		case "sessions":
			if version != indexVersion {
				return nil, errors.New("index: another version")
			}
			if err := decodeEntriesOf(dec, want, out); err != nil {
				return nil, err
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
		}
	}
	if version != indexVersion {
		return nil, errors.New("index: another version")
	}
	return out, nil
}

var idPrefix = []byte(`{"id":"`)

func decodeEntriesOf(dec *jsontext.Decoder, want map[string]bool, out map[string]*indexEntry) error {
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return errors.New("index: sessions not an array")
	}
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if rest, ok := bytes.CutPrefix(v, idPrefix); ok {
			if end := bytes.IndexAny(rest, `"\`); end >= 0 && rest[end] == '"' && !want[string(rest[:end])] {
				continue
			}
		}
		var e indexEntry
		if jsonv2.Unmarshal(v, &e, indexOptions) == nil && want[e.ID] && checkID(e.ID) == nil {
			out[e.ID] = &e
		}
	}
	_, err := dec.ReadToken()
	return err
}
