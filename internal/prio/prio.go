// Package prio owns this process's processor and I/O priority: lowering
// the whole process (every thread it runs now and every one it starts
// later) for install work that runs beside a game, or one thread for one
// long computation (Do). Reading a process's
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
