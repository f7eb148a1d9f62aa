// Package layers owns the architecture checks of DESIGN.md: every package
// has exactly one package comment, no layer imports what it must know
// nothing of, and no function is over 80 lines. It holds tests only.
package layers
