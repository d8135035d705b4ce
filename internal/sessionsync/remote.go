package sessionsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/objstore"
)

// objects is what sync needs of an object store; *objstore.S3 is one, and
// the contract of each method is objstore's.
type objects interface {
	Get(ctx context.Context, key string) (objstore.Object, error)
	Create(ctx context.Context, key string, body []byte) (string, error)
	Swap(ctx context.Context, key string, body []byte, etag string) (string, error)
	List(ctx context.Context, prefix string) ([]objstore.Entry, error)
	Delete(ctx context.Context, key string) error
}

var _ objects = (*objstore.S3)(nil)

// remote is one store as sync reads and writes it: its objects, its name
// for messages and its key (nil: in clear).
type remote struct {
	obj  objects
	name string // s3://bucket/prefix
	key  *keyed
	// empty: the store has no manifest yet (nothing was ever pushed).
	empty bool
}

// openRemote reads the store's manifest and derives the key from
// passphrase ("" = none). forWrite creates the manifest of an empty store
// (encrypted when a passphrase is given). A store encrypted while no
// passphrase is given, a wrong passphrase, and a push with a passphrase
// to a store in clear are errors that say so.
func openRemote(ctx context.Context, obj objects, name, passphrase string, forWrite bool) (*remote, error) {
	r := &remote{obj: obj, name: name}
	for range 2 {
		o, err := obj.Get(ctx, manifestKey)
		if errors.Is(err, objstore.ErrNotFound) {
			if !forWrite {
				r.empty = true
				return r, nil
			}
			if err := r.createManifest(ctx, passphrase); errors.Is(err, objstore.ErrExists) {
				continue // another machine made it just now: read theirs
			} else if err != nil {
				return nil, err
			}
			return r, nil
		}
		if err != nil {
			return nil, err
		}
		return r, r.readManifest(o.Body, passphrase, forWrite)
	}
	return nil, fmt.Errorf("%s: its manifest keeps changing", name)
}

func (r *remote) readManifest(body []byte, passphrase string, forWrite bool) error {
	var m manifest
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("%s: its %s is not a sync manifest: %w", r.name, manifestKey, err)
	}
	if m.Format != format {
		return fmt.Errorf("%s: layout format %d (this clawdcode reads %d)", r.name, m.Format, format)
	}
	switch {
	case m.Encrypted && passphrase == "":
		return fmt.Errorf("%s: %w", r.name, errNeedKey)
	case m.Encrypted:
		if m.KDF == nil {
			return fmt.Errorf("%s: its manifest has no key parameters", r.name)
		}
		k, err := deriveKeys(passphrase, *m.KDF)
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		if err := checkKey(k, m.Check); err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		r.key = k
	case passphrase != "" && forWrite:
		// Pushing in clear what the user means to encrypt would be the
		// one mistake that cannot be taken back.
		return fmt.Errorf("%s: %w: its sessions are in clear, so nothing is pushed there; push encrypted sessions to a new prefix", r.name, errNotSealed)
	}
	return nil
}

func (r *remote) createManifest(ctx context.Context, passphrase string) error {
	m := manifest{Format: format}
	if passphrase != "" {
		p, err := newKDFParams()
		if err != nil {
			return err
		}
		k, err := deriveKeys(passphrase, p)
		if err != nil {
			return err
		}
		check, err := k.seal("manifest", []byte(keyCheck))
		if err != nil {
			return err
		}
		m.Encrypted, m.KDF, m.Check, r.key = true, &p, check, k
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = r.obj.Create(ctx, manifestKey, b)
	return err
}

// getHead reads the head of the session named sname: nil (and no error)
// when there is none.
func (r *remote) getHead(ctx context.Context, sname string) (*head, string, error) {
	key := headKey(sname)
	o, err := r.obj.Get(ctx, key)
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	h, err := r.decodeHead(sname, o.Body)
	return h, o.ETag, err
}

func (r *remote) decodeHead(sname string, body []byte) (*head, error) {
	key := headKey(sname)
	h := &head{}
	if err := decode(r.key, key, body, h); err != nil {
		return nil, fmt.Errorf("%s: session head %s: %w", r.name, key, err)
	}
	if err := h.check(r.key, sname); err != nil {
		return nil, fmt.Errorf("%s: session head %s is not valid: %w", r.name, key, err)
	}
	return h, nil
}

// putHead writes h: as a new object when etag is "", else in place of the
// head of that ETag. objstore.ErrExists / ErrChanged: another machine
// wrote it first.
func (r *remote) putHead(ctx context.Context, h *head, etag string) (string, error) {
	key := headKey(sessionName(r.key, h.Session))
	b, err := encode(r.key, key, h)
	if err != nil {
		return "", err
	}
	if etag == "" {
		return r.obj.Create(ctx, key, b)
	}
	return r.obj.Swap(ctx, key, b, etag)
}

// putSegment uploads data as the segment s. A segment of that name that
// is there already holds the same bytes (its name is their hash): a push
// cut short wrote it, and it is taken as it is.
func (r *remote) putSegment(ctx context.Context, s segment, data []byte) error {
	body := data
	if r.key != nil {
		var err error
		if body, err = r.key.seal(s.Key, data); err != nil {
			return err
		}
	}
	_, err := r.obj.Create(ctx, s.Key, body)
	if errors.Is(err, objstore.ErrExists) {
		return nil
	}
	return err
}

// getSegment downloads s and returns its bytes once they are the ones its
// hash names: otherwise ErrDamaged, and nothing of them is used.
func (r *remote) getSegment(ctx context.Context, s segment) ([]byte, error) {
	o, err := r.obj.Get(ctx, s.Key)
	if err != nil {
		return nil, err
	}
	data := o.Body
	switch {
	case isSealed(data) && r.key == nil:
		return nil, fmt.Errorf("%s: segment %s: %w", r.name, s.Key, errNeedKey)
	case r.key != nil:
		if data, err = r.key.open(s.Key, data); err != nil {
			return nil, fmt.Errorf("%s: segment %s: %w: %w", r.name, s.Key, ErrDamaged, err)
		}
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != s.End-s.Start || hex.EncodeToString(sum[:]) != s.SHA256 {
		return nil, fmt.Errorf("%s: segment %s: %w; nothing of it was written", r.name, s.Key, ErrDamaged)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("%s: segment %s does not end a line; nothing of it was written", r.name, s.Key)
	}
	return data, nil
}

// heads lists the store's sessions: their names and the ETags of their
// heads.
func (r *remote) heads(ctx context.Context) (map[string]string, error) {
	if r.empty {
		return nil, nil
	}
	list, err := r.obj.List(ctx, headsDir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(list))
	for _, e := range list {
		name := strings.TrimPrefix(e.Key, headsDir)
		if name != "" && !strings.Contains(name, "/") {
			out[name] = e.ETag
		}
	}
	return out, nil
}
