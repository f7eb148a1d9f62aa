// Command zipdelta is the measuring half of scripts/bench-packdelta.sh: it
// compares two versions of a zip and prints what changed between them,
// two ways.
//
// Entry by entry: each entry of NEW (its local header, then its data with
// any data descriptor) is compared with the entry of the same name in OLD;
// bytes equal at the same offset count as unchanged, bytes equal but
// shifted (the common start and end of the data of a changed entry, and
// whole entries that only moved) as moved, the rest, with the central
// directory, as differing.
//
// By content-defined chunks: both files are cut with a gear rolling hash
// (chunks of 16 KiB to 256 KiB, 64 KiB on average: casync's default
// bounds), and the bytes of NEW's chunks that OLD has no chunk of (by
// SHA-256) are what a chunk-based delta update fetches. This chunker only
// measures; it is not casync's buzhash and its cut points are not casync's.
//
// Usage: zipdelta OLD.zip NEW.zip
package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: zipdelta OLD.zip NEW.zip")
		os.Exit(2)
	}
	old, err := os.ReadFile(os.Args[1])
	if err != nil {
		fatal(err)
	}
	cur, err := os.ReadFile(os.Args[2])
	if err != nil {
		fatal(err)
	}
	oe, _, err := entries(old)
	if err != nil {
		fatal(fmt.Errorf("%s: %w", os.Args[1], err))
	}
	ne, ncd, err := entries(cur)
	if err != nil {
		fatal(fmt.Errorf("%s: %w", os.Args[2], err))
	}
	same, moved, differ := entryDelta(old, cur, oe, ne)
	differ = append(differ, span{"central directory", ncd, int64(len(cur))})
	var diff int64
	for _, d := range differ {
		diff += d.end - d.start
	}
	fmt.Printf("v1 %d B, v2 %d B; unchanged at the same offset %d B, unchanged but moved %d B, differing %d B (%.2f MiB, %.2f%% of v2):\n",
		len(old), len(cur), same, moved, diff, float64(diff)/(1<<20), 100*float64(diff)/float64(len(cur)))
	for _, d := range differ {
		fmt.Printf("    %s: [%d, %d) = %d B\n", d.what, d.start, d.end, d.end-d.start)
	}
	have := map[[32]byte]bool{}
	for _, c := range chunks(old) {
		have[sha256.Sum256(c)] = true
	}
	var fetch, n, total int64
	for _, c := range chunks(cur) {
		total++
		if !have[sha256.Sum256(c)] {
			fetch += int64(len(c))
			n++
		}
	}
	fmt.Printf("content-defined chunks (16/64/256 KiB): v2 has %d chunks, %d new to v1: %d B (%.2f MiB, %.2f%% of v2)\n",
		total, n, fetch, float64(fetch)/(1<<20), 100*float64(fetch)/float64(len(cur)))
}

// A span is a range of NEW's bytes that differ from OLD's, and what it
// holds.
type span struct {
	what       string
	start, end int64
}

// entryDelta compares each entry of cur (the entries ne) with the entry of
// the same name in old (oe): it returns the bytes unchanged at the same
// offset, the bytes unchanged but moved, and the spans that differ.
func entryDelta(old, cur []byte, oe, ne map[string]entry) (same, moved int64, differ []span) {
	for _, e := range ne {
		o, ok := oe[e.name]
		if !ok {
			differ = append(differ, span{e.name, e.header, e.end})
			continue
		}
		oh, nh := old[o.header:o.data], cur[e.header:e.data]
		od, nd := old[o.data:o.end], cur[e.data:e.end]
		at := o.header == e.header
		if bytes.Equal(oh, nh) {
			same += count(at, int64(len(nh)))
		} else {
			differ = append(differ, span{e.name + " (local header)", e.header, e.data})
		}
		if bytes.Equal(od, nd) {
			if at || o.data == e.data {
				same += int64(len(nd))
			} else {
				moved += int64(len(nd))
			}
			continue
		}
		p := prefix(od, nd)
		q := suffix(od[p:], nd[p:])
		if o.data == e.data {
			same += int64(p)
		} else {
			moved += int64(p)
		}
		if int64(len(od)-q)+o.data == int64(len(nd)-q)+e.data {
			same += int64(q)
		} else {
			moved += int64(q)
		}
		differ = append(differ, span{e.name + " (data)", e.data + int64(p), e.end - int64(q)})
	}
	return same, moved, differ
}

func count(at bool, n int64) int64 {
	if at {
		return n
	}
	return 0
}

type entry struct {
	name              string
	header, data, end int64 // local header, data, end of data and descriptor
}

// entries lists a zip's entries in file order, keyed by name, and where
// its central directory starts.
func entries(b []byte) (map[string]entry, int64, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, 0, err
	}
	var list []entry
	for _, f := range zr.File {
		d, err := f.DataOffset()
		if err != nil {
			return nil, 0, err
		}
		list = append(list, entry{name: f.Name, data: d})
	}
	slices.SortFunc(list, func(a, b entry) int { return int(a.data - b.data) })
	// The central directory's offset is in the end record, 16 bytes in.
	eocd := bytes.LastIndex(b, []byte("PK\x05\x06"))
	if eocd < 0 {
		return nil, 0, fmt.Errorf("no end of central directory")
	}
	cd := int64(uint32(b[eocd+16]) | uint32(b[eocd+17])<<8 | uint32(b[eocd+18])<<16 | uint32(b[eocd+19])<<24)
	out := map[string]entry{}
	for i := range list {
		e := &list[i]
		// The local header starts 30 + name + extra bytes before the
		// data: find its signature with a name length that fits.
		for back := int64(30 + len(e.name)); back <= int64(30+len(e.name)+0xffff) && e.data-back >= 0; back++ {
			h := e.data - back
			if string(b[h:h+4]) == "PK\x03\x04" && int(b[h+26])|int(b[h+27])<<8 == len(e.name) && int64(30+len(e.name))+int64(int(b[h+28])|int(b[h+29])<<8) == back {
				e.header = h
				break
			}
		}
	}
	for i := range list {
		if i+1 < len(list) {
			list[i].end = list[i+1].header
		} else {
			list[i].end = cd
		}
		out[list[i].name] = list[i]
	}
	return out, cd, nil
}

func prefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func suffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// gear is the gear hash's table: fixed, so that cut points are the same
// on every run.
var gear = func() (t [256]uint64) {
	r := rand.New(rand.NewPCG(25, 25))
	for i := range t {
		t[i] = r.Uint64()
	}
	return t
}()

// chunks cuts b where the gear hash has its 16 low bits zero (64 KiB on
// average), within 16 KiB to 256 KiB.
func chunks(b []byte) [][]byte {
	const lo, hi, mask = 16 << 10, 256 << 10, 1<<16 - 1
	var out [][]byte
	for len(b) > 0 {
		cut := min(len(b), hi)
		var h uint64
		for i := lo; i < min(len(b), hi); i++ {
			h = h<<1 + gear[b[i]]
			if h&mask == 0 {
				cut = i + 1
				break
			}
		}
		out = append(out, b[:cut])
		b = b[cut:]
	}
	return out
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "zipdelta:", err)
	os.Exit(1)
}
