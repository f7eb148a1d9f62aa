//go:build !amd64 || purego

package zstd

// useAsm is false: this build has only the pure-Go loop.
var useAsm = false

// seqsFast decodes none of seqs: decodeSeqs's loop decodes them all.
func seqsFast(*seqState, []seq) int { return 0 }
