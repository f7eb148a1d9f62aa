//go:build race

package lzma2

// raceEnabled reports whether the race detector runs, which makes the
// reference encoder too slow for the large inputs.
const raceEnabled = true
