//go:build !race

package tokens

// raceDetector: see race_test.go.
const raceDetector = false
