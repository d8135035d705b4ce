//go:build race

package importer

// raceDetector is true in a race-enabled test binary (see skipSweepUnderRace).
const raceDetector = true
