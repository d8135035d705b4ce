package tokens

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
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
// given a map of our own (known), empty at first, and before a piece is
// counted every token that is a substring of it is added to it.
// tiktoken-go's byte-pair merge looks up nothing but substrings of one
// piece at a time, the pieces being those its pre-tokenizer pattern cuts;
// so the count is the one the full map gives. It relies on CoreBPE
// keeping the map it was given, not a copy (tiktoken-go v0.1.8):
// TestTextMatchesTiktoken and FuzzTextMatchesTiktoken compare every count
// with tiktoken-go's own encoding and would fail at once otherwise.
//
// How a text is counted: it is cut into its pieces once, by the library's
// own pattern (with regexp2's faster v2 engine, see splitPattern; still
// the larger part of counting a new text), and its count is the sum of its
// pieces' counts — tiktoken-go's EncodeOrdinary does exactly that, piece
// by piece, and a piece handed to it alone is cut into that one piece.
// Each piece is counted once per process and its count kept (pieceCount):
// a piece that is a token is one token, as tiktoken-go's encoder finds
// it whole before it merges anything; any other is handed to
// EncodeOrdinary alone. Prose and code repeat their words, so after the
// first few kilobytes most pieces are counted already, and the library's
// own pass over the text, a second run of the pattern, is never needed.
//
// Where the ranks come from: the first time tokens are learnt, the
// embedded rank file is read and indexed by hash (rankFile, ~4 ms); each
// learning then looks up, for a piece not seen before, the piece whole,
// and only when it is no token its substrings. A turn near the compaction
// trigger, a process of its own, pays the index once and never builds
// the 200,000-entry map.
//
// A text already counted is not counted again: memo keeps the count of
// each text it was given (texts are cut where no piece spans the cut, so
// a message that repeats another's lines costs only its new ones).
//
// Safe for concurrent use: learning is serialised by learnMu, known grows
// under mu's write lock, and tiktoken-go reads it under the read lock;
// memo and pieceCount are memoMu's.
type encoder struct {
	name    string
	pattern *regexp2.Regexp

	learnMu sync.Mutex
	file    *rankFile // read at the first learning

	mu    sync.RWMutex
	known map[string]int // the ranks tk sees
	tk    *tiktoken.Tiktoken

	memoMu     sync.Mutex
	memo       map[string]int // the count of each text counted
	memoBytes  int
	pieceCount map[string]int // the count of each piece counted; its tokens are in known
}

const (
	// longestToken is the longest token of either encoding, in bytes (a
	// test checks the files).
	longestToken = 128
	// maxPieces bounds the pieces an encoder keeps the count of; past it,
	// it forgets them (their tokens stay known; a piece seen again is
	// looked up and counted again).
	maxPieces = 1 << 16
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
	re, err := regexp2.Compile(splitPattern(pattern), regexp2.None)
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
	return &encoder{name: name, pattern: re, known: known, tk: tk, memo: map[string]int{}, pieceCount: map[string]int{}}, nil
}

// counts returns the number of tokens of each text as ordinary text.
// Long texts are cut into pieces in parallel.
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
	count, err := e.pieceCounts(pieces)
	if err != nil {
		return nil, err
	}
	counted := make([]int, len(todo))
	for i, s := range todo {
		for _, p := range pieces[i] {
			counted[i] += count[p]
		}
		for _, j := range at[s] {
			n[j] = counted[i]
		}
	}
	e.remember(todo, counted)
	return n, nil
}

// pieceCounts returns the count of every piece of pieces: those counted
// before from pieceCount, the others counted now, after their tokens are
// learnt, and kept.
func (e *encoder) pieceCounts(pieces [][]string) (map[string]int, error) {
	count := map[string]int{}
	var fresh []string
	e.memoMu.Lock()
	for _, ps := range pieces {
		for _, p := range ps {
			if _, ok := count[p]; ok {
				continue
			}
			if k, ok := e.pieceCount[p]; ok {
				count[p] = k
				continue
			}
			count[p] = -1
			fresh = append(fresh, p)
		}
	}
	e.memoMu.Unlock()
	if len(fresh) == 0 {
		return count, nil
	}
	if err := e.learn(fresh); err != nil {
		return nil, err
	}
	counted := make([]int, len(fresh))
	e.mu.RLock()
	each(fresh, func(i int) {
		if _, ok := e.known[fresh[i]]; ok {
			counted[i] = 1 // a token, found whole before any merge
		} else {
			counted[i] = len(e.tk.EncodeOrdinary(fresh[i]))
		}
	})
	e.mu.RUnlock()
	e.memoMu.Lock()
	defer e.memoMu.Unlock()
	if len(e.pieceCount)+len(fresh) > maxPieces {
		clear(e.pieceCount)
	}
	for i, p := range fresh {
		count[p] = counted[i]
		// A copy: the piece is a slice of the text, which may be long.
		e.pieceCount[strings.Clone(p)] = counted[i]
	}
	return count, nil
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

// piecesOf returns the pieces the pattern cuts s into, in order. Like
// tiktoken-go, it matches on s's runes, so an invalid byte is the
// piece's U+FFFD; the pieces of valid text are slices of s.
func (e *encoder) piecesOf(s string) []string {
	runes := []rune(s)
	valid := utf8.ValidString(s)
	var out []string
	r, b := 0, 0 // a rune of s and the byte it starts at
	// The pattern matches every character, so the matches tile s.
	_ = e.pattern.FindRunesMatches(runes, 0, func(m regexp2.MatchView) bool {
		at, n, _ := m.GroupRange(0)
		if !valid {
			out = append(out, string(runes[at:at+n]))
			return true
		}
		for ; r < at; r++ {
			b += utf8.RuneLen(runes[r])
		}
		start := b
		for ; r < at+n; r++ {
			b += utf8.RuneLen(runes[r])
		}
		out = append(out, s[start:b])
		return true
	})
	return out
}

// learn adds to known the tokens inside the pieces: a piece that is a
// token is learnt whole, the substrings of any other one by one.
func (e *encoder) learn(pieces []string) error {
	e.learnMu.Lock()
	defer e.learnMu.Unlock()
	// Only learn writes known, so reading it here needs no other lock.
	var whole []string
	for _, p := range pieces {
		if _, ok := e.known[p]; !ok {
			whole = append(whole, p)
		}
	}
	if len(whole) == 0 {
		return nil
	}
	if e.file == nil {
		f, err := openRankFile(e.name + ".tiktoken")
		if err != nil {
			return err
		}
		e.file = f
	}
	found, err := e.file.find(whole)
	if err != nil {
		return err
	}
	seen := map[string]struct{}{}
	var wanted []string
	for _, p := range whole {
		if _, ok := found[p]; ok {
			continue
		}
		for i := range len(p) {
			for j := i + 1; j <= min(len(p), i+longestToken); j++ {
				t := p[i:j]
				if _, ok := e.known[t]; ok {
					continue
				}
				if _, ok := seen[t]; !ok {
					seen[t] = struct{}{}
					wanted = append(wanted, t)
				}
			}
		}
	}
	parts, err := e.file.find(wanted)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ranks := range []map[string]int{found, parts} {
		for t, r := range ranks {
			// A copy: the piece is a slice of the text, which may be long.
			e.known[strings.Clone(t)] = r
		}
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
