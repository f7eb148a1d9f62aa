// Command deltaassemble is the measured side of
// scripts/bench-delta-assemble.sh (issue 25): `prepare DIR MIB` writes a
// pack's v1 and v2 (v1 with 1 MiB inserted at a third, 2 MiB overwritten at
// two thirds and 512 KiB appended, at 200 MiB; scaled for other sizes), the
// chunk index of each, v2's SHA-256 (v2.sha256) and a chunk store holding
// only v2's chunks that v1's index lacks, then prints how many of v2's bytes
// those are. `assemble DIR OUT` rebuilds v2 into OUT from the seed v1 (by
// its index) and that store, as a host does (sets/fetch): the seed's chunks
// checked by the whole file's SHA-256, hashed as it is written, with
// WORKERS chunks at once (default casync.DefaultParallel), and prints where
// the bytes came from. `assemble DIR OUT WORKERS checked` rebuilds it as
// hosts did until 2026-12-07: each seed chunk checked against its
// SHA-512/256 id, then the file read back and hashed.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mjolnir-forge/forgesync/sets/casync"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "deltaassemble:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 3 && args[0] == "prepare":
		mib, err := strconv.Atoi(args[2])
		if err != nil || mib < 4 {
			return fmt.Errorf("prepare: size %q: want a whole number of MiB, at least 4", args[2])
		}
		return prepare(args[1], mib)
	case len(args) == 3 && args[0] == "assemble":
		return assemble(args[1], args[2], 0, false)
	case (len(args) == 4 || len(args) == 5 && args[4] == "checked") && args[0] == "assemble":
		par, err := strconv.Atoi(args[3])
		if err != nil || par < 1 {
			return fmt.Errorf("assemble: workers %q: want a whole number, at least 1", args[3])
		}
		return assemble(args[1], args[2], par, len(args) == 5)
	}
	return fmt.Errorf("usage: deltaassemble prepare DIR MIB | assemble DIR OUT [WORKERS [checked]]")
}

// onlyNew passes on the chunks v1's index lacks.
type onlyNew struct {
	old   map[casync.ChunkID]bool
	store casync.LocalStore
	bytes int64
	n     int
}

func (o *onlyNew) PutChunk(id casync.ChunkID, data []byte) error {
	if o.old[id] {
		return nil
	}
	o.old[id] = true // a chunk that repeats in v2 is stored and counted once
	o.bytes += int64(len(data))
	o.n++
	return o.store.PutChunk(id, data)
}

func prepare(dir string, mib int) error {
	size := mib << 20
	v1 := make([]byte, size)
	rand.NewChaCha8([32]byte{25}).Read(v1)
	// The edit, scaled to the size: at 200 MiB, 1 MiB, 2 MiB and 512 KiB.
	ins, over, app := size/200, size/100, size/400
	third := size / 3
	fresh := make([]byte, ins+over+app)
	rand.NewChaCha8([32]byte{26}).Read(fresh)
	v2 := make([]byte, 0, size+ins+app)
	v2 = append(v2, v1[:third]...)
	v2 = append(v2, fresh[:ins]...)
	v2 = append(v2, v1[third:]...)
	copy(v2[2*third:], fresh[ins:ins+over])
	v2 = append(v2, fresh[ins+over:]...)

	ctx := context.Background()
	ix1, err := casync.Make(ctx, bytes.NewReader(v1), nil)
	if err != nil {
		return err
	}
	old := make(map[casync.ChunkID]bool, len(ix1.Chunks))
	for _, c := range ix1.Chunks {
		old[c.ID] = true
	}
	store := &onlyNew{old: old, store: casync.LocalStore{Dir: filepath.Join(dir, "store")}}
	ix2, err := casync.Make(ctx, bytes.NewReader(v2), store)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(v2)
	for name, b := range map[string][]byte{"v1": v1, "v2": v2, "v2.sha256": []byte(hex.EncodeToString(sum[:]))} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	for name, ix := range map[string]*casync.Index{"v1.caibx": ix1, "v2.caibx": ix2} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if _, err := ix.WriteTo(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	fmt.Printf("v1=%d v2=%d v2_chunks=%d new_chunks=%d new_bytes=%d edit_bytes=%d\n",
		len(v1), len(v2), len(ix2.Chunks), store.n, store.bytes, ins+over+app)
	return nil
}

func readIndex(path string) (*casync.Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return casync.ReadIndex(f, casync.Limits{})
}

// assemble rebuilds v2 into out, checked by its SHA-256 as sets/fetch
// does, or each seed chunk checked and the file hashed again (checked).
func assemble(dir, out string, par int, checked bool) error {
	ix1, err := readIndex(filepath.Join(dir, "v1.caibx"))
	if err != nil {
		return err
	}
	ix2, err := readIndex(filepath.Join(dir, "v2.caibx"))
	if err != nil {
		return err
	}
	hexSum, err := os.ReadFile(filepath.Join(dir, "v2.sha256"))
	if err != nil {
		return err
	}
	want, err := hex.DecodeString(string(hexSum))
	if err != nil || len(want) != sha256.Size {
		return fmt.Errorf("v2.sha256: not a SHA-256 in hex")
	}
	f, err := os.OpenFile(out, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	opt := casync.AssembleOptions{Parallel: par}
	if !checked {
		opt.SHA256 = (*[sha256.Size]byte)(want)
	}
	st, err := casync.Assemble(context.Background(), f, ix2,
		[]casync.Seed{{Path: filepath.Join(dir, "v1"), Index: ix1}},
		casync.LocalStore{Dir: filepath.Join(dir, "store")}, opt)
	if err == nil && checked {
		err = checkSum(f, want)
	}
	if err == nil {
		// Assemble writes every chunk; the file is as long as the index says.
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil && uint64(fi.Size()) != ix2.Length() {
			err = fmt.Errorf("assembled %d bytes; the index describes %d", fi.Size(), ix2.Length())
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Printf("chunks=%d seed_chunks=%d fetched_chunks=%d reused_chunks=%d seed_bytes=%d fetched_bytes=%d rechecked=%v\n",
		st.Chunks, st.SeedChunks, st.FetchedChunks, st.ReusedChunks, st.SeedBytes, st.FetchedBytes, st.Rechecked)
	return nil
}

// checkSum reads f back from its start and checks its SHA-256, as
// lock.VerifyFile does after a download.
func checkSum(f *os.File, want []byte) error {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, 1<<62)); err != nil {
		return err
	}
	if !bytes.Equal(h.Sum(nil), want) {
		return fmt.Errorf("the assembled file's SHA-256 is %x, want %x", h.Sum(nil), want)
	}
	return nil
}
