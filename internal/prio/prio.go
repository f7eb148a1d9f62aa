// Package prio owns this process's processor and I/O priority: lowering
// the whole process (every thread it runs now and every one it starts
// later) for install work that runs beside a game. Reading a process's
// priority back, for the tests that check it, is package priotest's.
package prio

// Nice values of the two roles that lower themselves. The unpacker is
// pure decoding work nobody waits on frame by frame: the lowest priority
// there is. The installing process (the daemon, or a command that
// installs) holds the state's lock and answers status requests, so it
// only steps aside: nice 10 and the lowest best-effort I/O level, never
// the idle I/O class, in which a journal commit could wait behind a game
// that streams assets without end while the lock is held.
const (
	UnpackerNice  = 19
	installerNice = 10
)

// Scheduling policies, as Linux's sched_setattr(2) names them. The
// unpacker runs under SCHED_IDLE: it gets a processor only when nothing
// else wants it, and a game's thread that wakes takes the processor from
// it at once, where a nice value alone still lets it finish its slice.
const (
	schedOther = 0
	SchedIdle  = 5
)

// I/O scheduling classes and the level the installer uses, as Linux's
// ioprio_set(2) names them.
const (
	ioClassNone       = 0
	ioClassBestEffort = 2
	IOClassIdle       = 3
	// ioLevelLowest is the lowest level of the best-effort class.
	ioLevelLowest = 7
)
