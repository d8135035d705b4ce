package storage

import "fmt"

// AppendFork starts a forked session: a SubtypeFork record naming parentID
// and the last record taken, then a copy of live (the parent's live
// context, as LoadLive returned it), all in ONE write. Nothing before the
// parent's live context is read or copied, so a fork costs the size of the
// context, not of the history. The copies keep their uuids, timestamps and
// content (a Recall ref names the same record in both sessions); their
// parentUuid chain and sessionId are this session's, and the copied
// boundary points at the copied retained records, so this session resumes
// exactly the context the parent had.
func (s *Session) AppendFork(parentID string, live *Live) error {
	recs := make([]*Record, 0, len(live.Records)+1)
	last := ""
	if n := len(live.Records); n > 0 {
		last = live.Records[n-1].Record.UUID
	}
	recs = append(recs, &Record{Type: TypeSystem, Subtype: SubtypeFork, Fork: &ForkInfo{SessionID: parentID, UUID: last}})
	boundary := -1
	for _, lr := range live.Records {
		c := *lr.Record
		c.ParentUUID, c.SessionID = nil, ""
		if c.CompactMetadata != nil {
			m := *c.CompactMetadata
			c.CompactMetadata = &m
		}
		if lr.Record == live.Boundary {
			boundary = len(recs)
		}
		recs = append(recs, &c)
	}
	_, err := s.appendBatch(recs, func(i int, r *Record, offs []int64) {
		if i != boundary {
			return
		}
		// Records copied before the boundary are the ones it retained.
		if i > 1 {
			r.CompactMetadata.RetainedOffset, r.CompactMetadata.RetainedUUID = offs[1], recs[1].UUID
		} else {
			r.CompactMetadata.RetainedOffset, r.CompactMetadata.RetainedUUID = 0, ""
		}
	})
	if err != nil {
		return fmt.Errorf("fork session %s: %w", parentID, err)
	}
	return nil
}
