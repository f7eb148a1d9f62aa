//go:build amd64 && !purego

package zstd

import (
	"encoding/binary"

	"golang.org/x/sys/cpu"
)

// useAsm says whether decodeSeqs starts with decodeSeqsBMI2: the
// processor has BMI2's shifts by any register and BZHI. Tests turn it
// off to run the pure-Go loop on the same streams.
var useAsm = cpu.X86.HasBMI2

// decodeSeqsBMI2 decodes sequences into seqs from the state st while the
// stream has at least 16 bytes before its read position, exactly as
// decodeSeqs's loop does; it returns how many it decoded and leaves st
// at the next one. It sets st.bad, and stops, on a repeat offset of
// zero.
//
//go:noescape
func decodeSeqsBMI2(st *seqState, seqs []seq) int

// seqsFast decodes what it can of seqs with decodeSeqsBMI2, all but the
// last (whose state bits decodeSeqs gives back), and returns how many.
func seqsFast(st *seqState, seqs []seq) int {
	if !useAsm || len(seqs) < 2 {
		return 0
	}
	return decodeSeqsBMI2(st, seqs[:len(seqs)-1])
}

// huffState is where huff4Fast hands four Huffman streams to
// huff4BMI2 and takes them back (huff_amd64.s reads its fields by
// offset): each stream's first byte, its read position and the bits of
// its 8 bytes there already used.
type huffState struct {
	in   [4]*byte
	at   [4]int
	used [4]uint64
}

// huff4BMI2 decodes rounds rounds of four symbols of each of four
// Huffman streams with t, as huffTable.side4 does, into out[i:],
// out[seg+i:], out[2*seg+i:] and out[3*seg+i:] for i from 0, and leaves
// st at the streams' next symbols. Each stream must hold 8 bytes before
// its read position at each round's start (a round reads at most 6).
//
//go:noescape
func huff4BMI2(t *huffTable, out *byte, seg int, st *huffState, rounds int)

// huff4Fast decodes the four streams b of dst, of segments of seg bytes,
// with huff4BMI2 as far as it safely can, and returns how many symbols
// of each it decoded.
func huff4Fast(t *huffTable, dst []byte, seg int, b *[4]bitReader) int {
	if !useAsm {
		return 0
	}
	rounds := (len(dst) - 3*seg) / 4
	var st huffState
	for k := range b {
		if b[k].off < 8 {
			return 0
		}
		rounds = min(rounds, (b[k].off-8)/6+1)
		st.in[k], st.at[k], st.used[k] = &b[k].in[0], b[k].off, uint64(b[k].consumed)
	}
	if rounds <= 0 {
		return 0
	}
	huff4BMI2(t, &dst[0], seg, &st, rounds)
	for k := range b {
		b[k].off, b[k].consumed = st.at[k], uint(st.used[k])
		b[k].value = binary.LittleEndian.Uint64(b[k].in[st.at[k]:])
	}
	return 4 * rounds
}
