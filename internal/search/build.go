package search

import (
	"context"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Building the index from many bytes (a first search over a year of
// sessions) is bounded in memory whatever the corpus and the cores: the
// builders of all workers share indexBudget, so there are at most
// indexBudget/workerBudget workers, and a large file is cut into pieces
// that the workers share, so a single 1 GB session is indexed by all of
// them. While it builds, the heap is held under buildLimit by the
// garbage collector (debug.SetMemoryLimit), which the builders' tables,
// allocated once at their budget and never again, make cheap to do.
const (
	indexBudget  = 256 << 20
	workerBudget = 32 << 20
	// buildLimit is the heap the build asks the collector to stay under:
	// the builders, the reading buffers, a segment's dictionary as it is
	// written, and room for the collector to work.
	buildLimit = indexBudget + 64<<20
	pieceBytes = 32 << 20
	// progressEvery is how often a build reports its progress.
	progressEvery = 200 * time.Millisecond
)

// work is the new bytes of one session file.
type work struct {
	file  int
	path  string
	start int64
	size  int64
	end   int64 // offset after the last whole line indexed
	left  atomic.Int32
}

// piece is part of a work: the lines that start in [from, to).
type piece struct {
	w        *work
	from, to int64
	end      int64 // after the last whole line it read; -1 if none
}

// Progress is how far an index build has come: the files and bytes of
// new session data it has read, of all it has to. Done is set on its
// last report.
type Progress struct {
	Files, TotalFiles int
	Bytes, TotalBytes int64
	Elapsed           time.Duration
	Done              bool
}

// OnProgress has fn told how an index build goes, every progressEvery
// while it reads session files and once when it is done; fn is called
// from another goroutine than the search's, never twice at once. A
// search that reads little tells nothing.
func (ix *Index) OnProgress(fn func(Progress)) { ix.progress = fn }

// split cuts the jobs into pieces of about pieceBytes, largest first.
func split(jobs []*work) []*piece {
	var out []*piece
	for _, j := range jobs {
		n := (j.size - j.start + pieceBytes - 1) / pieceBytes
		j.end = j.start
		j.left.Store(int32(n))
		for k := range n {
			p := &piece{w: j, from: j.start + k*pieceBytes, to: min(j.size, j.start+(k+1)*pieceBytes), end: -1}
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].to-out[a].from > out[b].to-out[b].from })
	return out
}

// index reads the jobs' new bytes, the workers each writing their own
// segments, and sets each job's end.
func (ix *Index) index(ctx context.Context, jobs []*work) ([]segEntry, error) {
	pieces := split(jobs)
	total := totalBytes(jobs)
	workers := max(1, min(runtime.GOMAXPROCS(0), len(pieces), indexBudget/workerBudget))
	if total < 4<<20 {
		workers = 1 // not worth a second segment
	}
	// A builder as large as the work can fill, within its share.
	budget := min(int64(indexBudget/workers), max(4<<20, 2*total/int64(workers)))
	if total > 64<<20 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(buildLimit))
		// The builders' memory goes back to the system before the
		// search that follows maps its segments.
		defer debug.FreeOSMemory()
	}
	b := &build{ix: ix, pieces: pieces, budget: budget, totalFiles: len(jobs), totalBytes: total}
	stop := b.report(ctx)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.work(ctx)
		}()
	}
	wg.Wait()
	stop(b.first == nil)
	if b.first != nil {
		return nil, b.first
	}
	for _, p := range pieces {
		if p.end > p.w.end {
			p.w.end = p.end
		}
	}
	for i := range b.out {
		b.out[i].Size = fileSize(filepath.Join(ix.dir, b.out[i].Name))
	}
	return b.out, nil
}

func totalBytes(jobs []*work) int64 {
	var n int64
	for _, j := range jobs {
		n += j.size - j.start
	}
	return n
}

// build is one index build's shared state.
type build struct {
	ix     *Index
	pieces []*piece
	budget int64

	mu    sync.Mutex
	next  int
	out   []segEntry
	first error

	totalFiles int
	totalBytes int64
	doneFiles  atomic.Int64
	doneBytes  atomic.Int64
}

func (b *build) take() *piece {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next >= len(b.pieces) || b.first != nil {
		return nil
	}
	b.next++
	return b.pieces[b.next-1]
}

func (b *build) fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.first == nil {
		b.first = err
	}
}

// work is one worker: it takes pieces until there are none, indexing
// them into its builder and writing a segment whenever it is full.
func (b *build) work(ctx context.Context) {
	w := &worker{build: b, b: newBuilder(b.budget), r: newFileReader()}
	for p := b.take(); p != nil; p = b.take() {
		if err := ctx.Err(); err != nil {
			b.fail(err)
			return
		}
		if err := w.r.read(p, w); err != nil {
			b.fail(err)
			return
		}
		if p.w.left.Add(-1) == 0 {
			b.doneFiles.Add(1)
		}
	}
	if err := w.flush(); err != nil {
		b.fail(err)
	}
}

// report calls the index's progress function every progressEvery until
// stop, which reports the end.
func (b *build) report(ctx context.Context) (stop func(done bool)) {
	fn := b.ix.progress
	if fn == nil {
		return func(bool) {}
	}
	start := time.Now()
	now := func(done bool) Progress {
		return Progress{Files: int(b.doneFiles.Load()), TotalFiles: b.totalFiles, Bytes: b.doneBytes.Load(),
			TotalBytes: b.totalBytes, Elapsed: time.Since(start), Done: done}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				fn(now(false))
			}
		}
	}()
	return func(done bool) {
		close(quit)
		<-finished
		if done {
			fn(now(true))
		}
	}
}

// worker is one indexing goroutine: its builder and its reader.
type worker struct {
	*build
	b *builder
	r *fileReader
}

// add indexes one document, writing a segment first if the builder
// cannot take it.
func (w *worker) add(d doc, text []byte) error {
	if w.b.full(len(text)) {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.b.add(d, text)
	return nil
}

// consumed counts bytes read, for the progress report.
func (w *worker) consumed(n int64) { w.doneBytes.Add(n) }

// flush writes the builder as a segment and empties it.
func (w *worker) flush() error {
	if w.b.empty() {
		return nil
	}
	name, err := w.b.write(w.ix.dir)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.out = append(w.out, segEntry{Name: name, Docs: len(w.b.docs), TotalDL: w.b.totalDL})
	w.mu.Unlock()
	w.b.reset()
	return nil
}
