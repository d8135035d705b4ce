//go:build race

package tokens

// raceDetector is true in a race-enabled test binary, where encoding runs
// about ten times slower: the corpus-wide checks, which are sequential and
// have nothing for the detector to find, use a smaller sample there.
const raceDetector = true
