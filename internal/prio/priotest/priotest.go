// Package priotest owns reading a process's priority back (every thread's
// nice value and I/O class, on Linux), for the tests that check that
// package prio's lowering took effect; no command needs it.
package priotest
