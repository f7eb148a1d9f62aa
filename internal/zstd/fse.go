package zstd

import "math/bits"

// fseEntry is a state of an FSE decoding table, with the meaning of its
// symbol folded in: base is the symbol's baseline (the symbol itself for
// Huffman weights) and addBits the extra bits read for it; next is the
// base of the next state and nbBits the bits read to reach it.
type fseEntry struct {
	base    uint32
	next    uint16
	addBits uint8
	nbBits  uint8
}

// fseTable is a decoding table of at most 512 states (accuracy log 9).
type fseTable struct {
	e   [512]fseEntry
	log uint8
}

// Largest accuracy logs and symbols of the tables (RFC 8878 section
// 3.1.1.3.2.2).
const (
	maxLLLog, maxMLLog, maxOFLog, maxWeightLog = 9, 9, 8, 6
	maxLLSym, maxMLSym, maxOFSym, maxWeightSym = 35, 52, 31, 12
)

// readNormCounts reads an FSE table description (RFC 8878 section
// 4.1.1) from in into norm; it returns the accuracy log, the number of
// symbols and the bytes read, or ok false when the description is
// malformed or asks for more than maxLog or maxSym.
func readNormCounts(in []byte, norm *[256]int16, maxLog, maxSym int) (log, nsym, n int, ok bool) {
	if len(in) == 0 {
		return 0, 0, 0, false
	}
	log = int(in[0]&15) + 5
	if log > maxLog {
		return 0, 0, 0, false
	}
	pos := 4 // bit position in in
	remaining := 1<<log + 1
	threshold := 1 << log
	nbBits := log + 1
	sym := 0
	prev0 := false
	for remaining > 1 && sym <= maxSym {
		if prev0 {
			var more bool
			if sym, pos, more = readZeroRun(in, pos, sym, norm, maxSym); !more {
				return 0, 0, 0, false
			}
		}
		v := int(le64(in, pos>>3) >> (pos & 7))
		max := 2*threshold - 1 - remaining
		count := v & (threshold - 1)
		if count < max {
			pos += nbBits - 1
		} else {
			count = v & (2*threshold - 1)
			if count >= threshold {
				count -= max
			}
			pos += nbBits
		}
		count--
		if count < 0 {
			remaining += count
		} else {
			remaining -= count
		}
		norm[sym] = int16(count)
		sym++
		prev0 = count == 0
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
	}
	n = (pos + 7) >> 3
	if remaining != 1 || n > len(in) {
		return 0, 0, 0, false
	}
	return log, sym, n, true
}

// readZeroRun reads the repeat flags that follow a zero count, sets the
// counts they cover to zero and returns the next symbol and bit position.
func readZeroRun(in []byte, pos, sym int, norm *[256]int16, maxSym int) (int, int, bool) {
	n0 := sym
	for {
		if pos>>3 > len(in) {
			return 0, 0, false
		}
		r := int(le64(in, pos>>3)>>(pos&7)) & 3
		pos += 2
		n0 += r
		if r != 3 {
			break
		}
	}
	if n0 > maxSym {
		return 0, 0, false
	}
	for ; sym < n0; sym++ {
		norm[sym] = 0
	}
	return sym, pos, true
}

// build fills t from normalized counts (RFC 8878 section 4.1.1), with
// base and extra bits of each symbol from bases and extra (nil: the
// symbol itself and none). It reports false when the counts do not fill
// the table.
func (t *fseTable) build(norm []int16, log int, bases []uint32, extra []uint8) bool {
	size := 1 << log
	high := size - 1
	var next [256]uint16
	var syms [512]uint8
	for s, c := range norm {
		if c == -1 {
			syms[high&511] = uint8(s)
			high--
			next[s] = 1
		} else {
			next[s] = uint16(c)
		}
	}
	step := size>>1 + size>>3 + 3
	mask := size - 1
	pos := 0
	for s, c := range norm {
		for i := 0; i < int(c); i++ {
			syms[pos&511] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	if pos != 0 {
		return false
	}
	for u := 0; u < size; u++ {
		s := syms[u&511]
		ns := next[s]
		next[s]++
		nb := log - (bits.Len16(ns) - 1)
		e := &t.e[u&511]
		e.nbBits = uint8(nb)
		e.next = uint16(int(ns)<<nb - size)
		e.base, e.addBits = uint32(s), 0
		if bases != nil {
			e.base, e.addBits = bases[s], extra[s]
		}
	}
	t.log = uint8(log)
	return true
}

// rle makes t a table of one state that always gives symbol s.
func (t *fseTable) rle(s uint8, bases []uint32, extra []uint8) {
	t.e[0] = fseEntry{base: uint32(s)}
	if bases != nil {
		t.e[0] = fseEntry{base: bases[s], addBits: extra[s]}
	}
	t.log = 0
}
