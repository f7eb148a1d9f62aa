//go:build race

package pipeline

// raceEnabled reports whether the race detector runs: its shadow memory
// counts against an unpacking child's memory limit, which is lifted then.
const raceEnabled = true
