//go:build !amd64 || purego

package zstd

// useAsm is false: this build has only the pure-Go loop.
var useAsm = false

// seqsFast decodes none of seqs: decodeSeqs's loop decodes them all.
func seqsFast(*seqState, []seq) int { return 0 }

// huff4Fast decodes none of the four streams: huffTable.side4 does.
func huff4Fast(*huffTable, []byte, int, *[4]bitReader) int { return 0 }
