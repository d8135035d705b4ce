package tokens

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/dlclark/regexp2"
	tiktoken "github.com/pkoukk/tiktoken-go"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// encoder counts ordinary text with tiktoken-go, whose encoder is given
// only the ranks of the tokens the texts counted so far contain.
//
// Why not the *Tiktoken of tiktoken.GetEncoding: its NewCoreBPE builds,
// beside the rank map, a reverse map and a sorted copy of every token
// (for Decode; counting reads neither), and for o200k's 200,000 tokens
// that costs ~70 ms of CPU and ~13 MiB on top of the ~25 ms and ~9 MiB of
// the rank map itself. Each `-c -p` turn near the compaction trigger is
// a process of its own that must count its new message exactly; it paid
// all of that every time (about 25 times an ordinary turn's CPU, 55 MiB).
//
// The workaround, in this package rather than in a fork: NewCoreBPE is
// given a map of our own (known), empty at first, and before texts are
// counted every token that is a substring of one of their pieces is added
// to it. tiktoken-go's byte-pair merge looks up nothing but substrings of
// one piece at a time, the pieces being those its pre-tokenizer pattern
// cuts, which learn cuts with the same pattern and engine; so the count
// is the one the full map gives. It relies on CoreBPE keeping the map it
// was given, not a copy (tiktoken-go v0.1.8): TestTextMatchesTiktoken and
// FuzzTextMatchesTiktoken compare every count with tiktoken-go's own
// encoding and would fail at once otherwise.
//
// Where the ranks come from: the first time tokens are learnt, the
// embedded rank file is read and indexed by hash (rankFile, ~5 ms); each
// learning then looks up its new substrings in it, and only those. A turn
// near the compaction trigger, a process of its own, pays that once and
// never builds the 200,000-entry map.
//
// A text already counted is not counted again: counts keeps the count of
// each text it was given (texts are cut where no piece spans the cut, so
// a message that repeats another's lines costs only its new ones).
//
// Safe for concurrent use: learning is serialised by learnMu, known grows
// under mu's write lock, and tiktoken-go reads it under the read lock.
type encoder struct {
	name   string
	pieces *regexp2.Regexp

	learnMu sync.Mutex
	file    *rankFile           // read at the first learning
	seen    map[string]struct{} // pieces whose tokens are all in known

	mu    sync.RWMutex
	known map[string]int // the ranks tk sees
	tk    *tiktoken.Tiktoken

	memoMu    sync.Mutex
	memo      map[string]int // the count of each text counted
	memoBytes int
}

const (
	// longestToken is the longest token of either encoding, in bytes (a
	// test checks the files).
	longestToken = 128
	// maxSeen bounds the pieces an encoder remembers; past it, it forgets
	// them (their tokens stay known; a piece seen again is looked up again).
	maxSeen = 1 << 16
	// maxMemo bounds the bytes of the texts whose counts an encoder keeps,
	// and maxMemoText the longest it keeps; past maxMemo it forgets them.
	maxMemo     = 4 << 20
	maxMemoText = 64 << 10
)

func newEncoder(name string) (*encoder, error) {
	pattern, ok := patterns[name]
	if !ok {
		return nil, &UnknownEncodingError{Name: name}
	}
	// The ranks are read as texts need them; the file must be there.
	f, err := assets.Assets.Open(name + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("open %s of tiktoken-go-loader: %w", name, err)
	}
	f.Close()
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("compile the %s pattern: %w", name, err)
	}
	known := map[string]int{}
	// No special tokens: clawdcode counts ordinary text only.
	core, err := tiktoken.NewCoreBPE(known, nil, pattern)
	if err != nil {
		return nil, err
	}
	tk := tiktoken.NewTiktoken(core, &tiktoken.Encoding{Name: name, PatStr: pattern, MergeableRanks: known}, nil)
	return &encoder{name: name, pieces: re, seen: map[string]struct{}{}, known: known, tk: tk, memo: map[string]int{}}, nil
}

// counts returns the number of tokens of each text as ordinary text.
// Texts are cut into pieces and, when they are long, encoded in parallel.
func (e *encoder) counts(texts []string) ([]int, error) {
	n := make([]int, len(texts))
	// at lists where each text not counted before is, once per text.
	at := map[string][]int{}
	var todo []string
	e.memoMu.Lock()
	for i, s := range texts {
		if k, ok := e.memo[s]; ok {
			n[i] = k
			continue
		}
		if at[s] == nil {
			todo = append(todo, s)
		}
		at[s] = append(at[s], i)
	}
	e.memoMu.Unlock()
	if len(todo) == 0 {
		return n, nil
	}
	pieces := make([][]string, len(todo))
	each(todo, func(i int) { pieces[i] = e.piecesOf(todo[i]) })
	if err := e.learn(pieces); err != nil {
		return nil, err
	}
	counted := make([]int, len(todo))
	e.mu.RLock()
	each(todo, func(i int) { counted[i] = len(e.tk.EncodeOrdinary(todo[i])) })
	e.mu.RUnlock()
	for i, s := range todo {
		for _, j := range at[s] {
			n[j] = counted[i]
		}
	}
	e.remember(todo, counted)
	return n, nil
}

// remember keeps the counts of texts.
func (e *encoder) remember(texts []string, counts []int) {
	e.memoMu.Lock()
	defer e.memoMu.Unlock()
	for i, s := range texts {
		if len(s) > maxMemoText {
			continue
		}
		if e.memoBytes+len(s) > maxMemo {
			clear(e.memo)
			e.memoBytes = 0
		}
		// A copy: the text may be a slice of a far longer one.
		e.memo[strings.Clone(s)] = counts[i]
		e.memoBytes += len(s)
	}
}

// piecesOf returns the distinct pieces the pattern cuts s into. Like
// tiktoken-go, it matches on s's runes, so an invalid byte is the
// piece's U+FFFD.
func (e *encoder) piecesOf(s string) []string {
	runes := []rune(s)
	distinct := map[string]struct{}{}
	var out []string
	m, _ := e.pieces.FindRunesMatch(runes)
	for ; m != nil; m, _ = e.pieces.FindNextMatch(m) {
		p := string(runes[m.Index : m.Index+m.Length])
		if _, ok := distinct[p]; !ok {
			distinct[p] = struct{}{}
			out = append(out, p)
		}
	}
	return out
}

// learn adds to known the tokens inside the pieces not seen before.
func (e *encoder) learn(pieces [][]string) error {
	e.learnMu.Lock()
	defer e.learnMu.Unlock()
	// Only learn writes known, so reading it here needs no other lock.
	var fresh []string
	wanted := map[string]struct{}{}
	for _, ps := range pieces {
		for _, p := range ps {
			if _, ok := e.seen[p]; ok {
				continue
			}
			fresh = append(fresh, p)
			for i := range len(p) {
				for j := i + 1; j <= min(len(p), i+longestToken); j++ {
					if _, ok := e.known[p[i:j]]; !ok {
						wanted[p[i:j]] = struct{}{}
					}
				}
			}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	if e.file == nil {
		f, err := openRankFile(e.name + ".tiktoken")
		if err != nil {
			return err
		}
		e.file = f
	}
	found, err := e.file.find(wanted)
	if err != nil {
		return err
	}
	e.mu.Lock()
	for t, r := range found {
		e.known[t] = r
	}
	e.mu.Unlock()
	if len(e.seen)+len(fresh) > maxSeen {
		clear(e.seen)
	}
	for _, p := range fresh {
		e.seen[p] = struct{}{}
	}
	return nil
}

// parallelPart is the least text a goroutine of each takes: below ~2 ms
// of tokenizing, another goroutine gains little.
const parallelPart = 8 << 10

// each calls fn for every index of texts, in parallel (up to GOMAXPROCS)
// when there is enough text for it to pay.
func each(texts []string, fn func(i int)) {
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	workers := min(runtime.GOMAXPROCS(0), len(texts), size/parallelPart)
	if workers < 2 {
		for i := range texts {
			fn(i)
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range texts {
		next <- i
	}
	close(next)
	wg.Wait()
}
