//go:build race

package intake

// raceEnabled reports whether the race detector runs, whose shadow memory
// makes resident-memory measurements meaningless.
const raceEnabled = true
