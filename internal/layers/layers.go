// Package layers owns the architecture checks of DESIGN.md: every package
// has exactly one package comment, and no layer imports what it must know
// nothing of. It holds tests only.
package layers
