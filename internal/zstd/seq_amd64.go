//go:build amd64 && !purego

package zstd

import "golang.org/x/sys/cpu"

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
