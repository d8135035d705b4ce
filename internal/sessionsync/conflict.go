package sessionsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Fork is a session a pull split in two: both machines appended to
// Session since they last synced; the store's line stays Session, and
// this machine's own records (Records of them) continue in Fork.
type Fork struct {
	Session, Fork, Title string
	Records              int
}

// forkTitleSuffix names a fork a sync made, in its title.
const forkTitleSuffix = " (fork: changed here and on another machine)"

// forkNamespace makes a conflict's fork id a function of the session, the
// point where the two lines part and this machine's bytes after it: a
// pull killed after it wrote the fork finds it again, and never makes a
// second one.
var forkNamespace = uuid.MustParse("6a1f0b0e-3c55-4c1e-9a34-2f1d5c7b9e01")

// forkDiverged settles a session both sides appended to since they last
// synced: the common prefix is c bytes; the store holds c + its lines,
// this machine c + its own. Every record is kept, on both machines: this
// machine's own records go first into a new session, a fork named as
// such (the fork record, then its records before its live context, then
// the live context it had, so that -r of the fork continues exactly where
// this machine stood); then, once the fork is on disk, the session's file
// becomes the store's bytes — the common prefix and the store's lines,
// written beside it, synced and renamed over it, under its lock. This is
// the one way sync replaces a session file, and it moves no record out of
// the store: the lines the file loses are those the fork holds.
func (s *Syncer) forkDiverged(ctx context.Context, r *remote, p *storage.Project, sess *storage.Session, f *os.File, h *head, c int64) (*Fork, error) {
	fork, err := s.writeFork(ctx, p, sess, f, c)
	if err != nil {
		return nil, err
	}
	if err := s.replaceTail(ctx, r, p, sess, f, h, c); err != nil {
		return nil, err
	}
	return fork, nil
}

// ownRecords reads this machine's records after the common prefix c.
func ownRecords(ctx context.Context, path string, c int64, warn func(string)) ([]storage.LiveRecord, error) {
	var own []storage.LiveRecord
	err := storage.ReadFrom(ctx, path, c, func(off int64, r *storage.Record) error {
		own = append(own, storage.LiveRecord{Offset: off, Record: r})
		return nil
	}, warn)
	return own, err
}

// writeFork writes the fork of sess's own line after c (nil when that
// line holds no record, as when it is only a line torn by a crash).
func (s *Syncer) writeFork(ctx context.Context, p *storage.Project, sess *storage.Session, f *os.File, c int64) (*Fork, error) {
	own, err := ownRecords(ctx, sess.Path(), c, s.warn)
	if err != nil || len(own) == 0 {
		return nil, err
	}
	sum, err := sumAt(f, c, sess.Size())
	if err != nil {
		return nil, err
	}
	id := uuid.NewSHA1(forkNamespace, []byte(sess.ID()+"\n"+strconv.FormatInt(c, 10)+"\n"+sum)).String()
	title := sess.Info().Title + forkTitleSuffix
	fk := &Fork{Session: sess.ID(), Fork: id, Title: title, Records: len(own)}
	if done, err := forkComplete(ctx, p, id, own[len(own)-1].Record.UUID); err != nil || done {
		return fk, err
	}
	live, err := sess.LoadLive(ctx)
	if err != nil {
		return nil, err
	}
	parentAt, err := lastUUIDBefore(f, c)
	if err != nil {
		return nil, err
	}
	fs, err := p.CreateID(ctx, id)
	if err != nil {
		return nil, err
	}
	err = appendForkRecords(fs, sess.ID(), parentAt, own, live)
	if err == nil {
		err = fs.SaveTitle(title)
	}
	if err == nil {
		err = fs.Sync()
	}
	if cerr := fs.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = p.Remove(id)
		return nil, fmt.Errorf("fork session %s: %w", sess.ID(), err)
	}
	return fk, nil
}

// forkComplete reports whether the fork id exists with every record
// (its last own record among them); one a kill cut short is removed, to
// be written again.
func forkComplete(ctx context.Context, p *storage.Project, id, lastUUID string) (bool, error) {
	path := p.Path(id)
	if fileSize(path) < 0 {
		return false, nil
	}
	found := false
	err := storage.ReadAll(ctx, path, func(_ int64, r *storage.Record) error {
		found = found || r.UUID == lastUUID
		return nil
	}, nil)
	if err == nil && found {
		return true, nil
	}
	if err := p.Remove(id); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return false, fmt.Errorf("remove the unfinished fork %s: %w", id, err)
	}
	return false, nil
}

// appendForkRecords writes a fork: the fork record (naming the session
// and the last record both lines share), this machine's own records that
// lie before its live context, then that live context, its boundary
// pointing at the copies of its retained records (as storage's own forks
// do), so that the fork resumes the context this machine had. Copies keep
// their uuids, timestamps and content; their parent chain and session id
// are the fork's.
func appendForkRecords(fs *storage.Session, parent, parentAt string, own []storage.LiveRecord, live *storage.Live) error {
	first := int64(-1)
	if len(live.Records) > 0 {
		first = live.Records[0].Offset
	}
	batch := []*storage.Record{{Type: storage.TypeSystem, Subtype: storage.SubtypeFork, Fork: &storage.ForkInfo{SessionID: parent, UUID: parentAt}}}
	for _, lr := range own {
		if first >= 0 && lr.Offset < first {
			batch = append(batch, copyRecord(lr.Record))
		}
	}
	retainedAt := len(batch)
	var rest []*storage.Record
	var boundary *storage.Record
	for _, lr := range live.Records {
		c := copyRecord(lr.Record)
		switch {
		case boundary != nil:
			rest = append(rest, c)
		case lr.Record == live.Boundary:
			boundary = c
			rest = append(rest, c)
		default:
			batch = append(batch, c)
		}
	}
	offs, err := fs.AppendBatch(batch...)
	if err != nil || boundary == nil {
		if err == nil && len(rest) > 0 {
			_, err = fs.AppendBatch(rest...)
		}
		return err
	}
	boundary.CompactMetadata.RetainedOffset, boundary.CompactMetadata.RetainedUUID = 0, ""
	if retainedAt < len(batch) {
		boundary.CompactMetadata.RetainedOffset, boundary.CompactMetadata.RetainedUUID = offs[retainedAt], batch[retainedAt].UUID
	}
	_, err = fs.AppendBatch(rest...)
	return err
}

func copyRecord(r *storage.Record) *storage.Record {
	c := *r
	c.ParentUUID, c.SessionID, c.Listing = nil, "", nil
	if c.CompactMetadata != nil {
		m := *c.CompactMetadata
		c.CompactMetadata = &m
	}
	return &c
}

// lastUUIDBefore is the uuid of the last record that ends at or before
// offset c of f ("" when none does).
func lastUUIDBefore(f *os.File, c int64) (string, error) {
	for end := c; end > 0; {
		start, err := lineEnd(f, end-1)
		if err != nil {
			return "", err
		}
		line, err := readAt(f, start, end-1)
		if err != nil {
			return "", err
		}
		var r struct {
			UUID string `json:"uuid"`
		}
		if storage.DecodeLine(line, &r) == nil && r.UUID != "" {
			return r.UUID, nil
		}
		end = start
	}
	return "", nil
}

// replaceTail makes sess's file the store's bytes: its first c bytes (the
// same on both sides) and the store's lines after them, checked against
// their hashes, written to a file beside it, synced, and renamed over it
// while sess holds its lock. sess is closed (its descriptor is the old
// file's); the index entry is then read again from the new file.
func (s *Syncer) replaceTail(ctx context.Context, r *remote, p *storage.Project, sess *storage.Session, f *os.File, h *head, c int64) error {
	path := sess.Path()
	tmp := filepath.Join(filepath.Dir(path), "."+sess.ID()+".sync")
	_ = os.Remove(tmp) // left by a pull a kill cut short
	out, err := storage.OpenRegular(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = s.writeReplacement(ctx, r, out, f, h, c)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	if err := sess.Close(); err != nil {
		return err
	}
	again, err := p.Open(ctx, sess.ID())
	if err != nil {
		return nil // the file is right; its index entry is refreshed by the next listing
	}
	return again.Close()
}

func (s *Syncer) writeReplacement(ctx context.Context, r *remote, out, f *os.File, h *head, c int64) error {
	if _, err := io.Copy(out, io.NewSectionReader(f, 0, c)); err != nil {
		return err
	}
	err := s.fetchRange(ctx, r, h, c, func(data []byte, _ int64) error {
		_, err := out.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	return out.Sync()
}
