//go:build !race

package importer

const raceDetector = false
