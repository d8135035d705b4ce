package tokens

import (
	"fmt"
	"runtime"
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
// Where the ranks come from: the first few times new pieces turn up, one
// pass over the embedded rank file picks out their tokens (scanRanks, a
// few ms, nothing kept); a process that keeps counting new text builds
// the whole rank map once instead (loadRanks), after which a lookup is a
// map access. A `-c -p` turn near the trigger counts a message or three
// and never builds the map.
//
// Safe for concurrent use: learning is serialised by learnMu, known grows
// under mu's write lock, and tiktoken-go reads it under the read lock.
type encoder struct {
	name   string
	pieces *regexp2.Regexp

	learnMu sync.Mutex
	scans   int                 // passes over the rank file made so far
	all     map[string]int      // every token's rank, once built
	seen    map[string]struct{} // pieces whose tokens are all in known

	mu    sync.RWMutex
	known map[string]int // the ranks tk sees
	tk    *tiktoken.Tiktoken
}

const (
	// longestToken is the longest token of either encoding, in bytes (a
	// test checks the files).
	longestToken = 128
	// maxScans is how many passes over the rank file an encoder makes
	// before it builds the rank map: about what building it costs.
	maxScans = 4
	// maxSeen bounds the pieces an encoder remembers; past it, it forgets
	// them (their tokens stay known; a piece seen again is looked up again).
	maxSeen = 1 << 16
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
	return &encoder{name: name, pieces: re, seen: map[string]struct{}{}, known: known, tk: tk}, nil
}

// counts returns the number of tokens of each text as ordinary text.
// Texts are cut into pieces and, when they are long, encoded in parallel.
func (e *encoder) counts(texts []string) ([]int, error) {
	pieces := make([][]string, len(texts))
	each(texts, func(i int) { pieces[i] = e.piecesOf(texts[i]) })
	if err := e.learn(pieces); err != nil {
		return nil, err
	}
	n := make([]int, len(texts))
	e.mu.RLock()
	defer e.mu.RUnlock()
	each(texts, func(i int) { n[i] = len(e.tk.EncodeOrdinary(texts[i])) })
	return n, nil
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
	found, err := e.ranksOf(wanted)
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

// ranksOf returns the ranks of those of wanted that are tokens.
func (e *encoder) ranksOf(wanted map[string]struct{}) (map[string]int, error) {
	file := e.name + ".tiktoken"
	if e.all == nil && e.scans < maxScans {
		e.scans++
		return scanRanks(file, wanted)
	}
	if e.all == nil {
		all, err := loadRanks(file)
		if err != nil {
			return nil, err
		}
		e.all = all
	}
	found := map[string]int{}
	for t := range wanted {
		if r, ok := e.all[t]; ok {
			found[t] = r
		}
	}
	return found, nil
}

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
