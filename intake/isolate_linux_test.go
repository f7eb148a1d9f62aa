package intake

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lzmaCoder returns the offset of the first LZMA coder in a 7z's plain
// header: flags 0x23, id 03 01 01, 5 property bytes.
func lzmaCoder(t *testing.T, b []byte) (hdr []byte, i int) {
	t.Helper()
	hdr = b[32+binary.LittleEndian.Uint64(b[12:]):]
	i = bytes.Index(hdr, []byte{0x23, 0x03, 0x01, 0x01, 0x05})
	if i < 0 {
		t.Fatal("no LZMA coder in the header")
	}
	return hdr, i
}

// mustRejectFor extracts archive and wants one problem with rule.
func mustRejectFor(t *testing.T, archive, rule string) Problem {
	t.Helper()
	re := mustReject(t, archive, DefaultLimits(), want{rule: rule, anyEntry: true})
	for _, p := range re.Problems {
		if p.Rule == rule {
			return p
		}
	}
	return Problem{}
}

// TestIsolationMemoryLimit: an archive built to need a 1 GiB dictionary,
// with the dictionary rule lifted in the child, is stopped by the child's
// memory limit (the allocation past it fails) and reported as such.
func TestIsolationMemoryLimit(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts against the limit")
	}
	isolateFor(t, &Isolation{Env: []string{envLZMADict + "=" + strconv.Itoa(4<<30)}})
	b := sevenZip(t, nil, "-mhc=off", "-m0=lzma2")
	hdr := b[32+binary.LittleEndian.Uint64(b[12:]):]
	i := bytes.Index(hdr, []byte{0x21, 0x21, 0x01}) // LZMA2: one property byte
	if i < 0 {
		t.Fatal("no LZMA2 coder in the header")
	}
	b = patch7z(t, b, hdr[i:i+4], []byte{0x21, 0x21, 0x01, 36}) // a 1 GiB dictionary
	p := mustRejectFor(t, writeArchive(t, "huge.7z", b), RuleUnpackMemory)
	if p.Value != "more than 256 MiB" {
		t.Errorf("value = %q; want the limit named", p.Value)
	}
}

// TestIsolationWallBudget: an archive whose coder never ends (a stand-in,
// known only to the test child, for the 2^62 AES rounds that the coder
// rules now refuse before they start) is stopped at its budget.
func TestIsolationWallBudget(t *testing.T) {
	isolateFor(t, &Isolation{Time: time.Second})
	b := sevenZip(t, nil, "-mhc=off", "-m0=lzma")
	hdr, i := lzmaCoder(t, b)
	b = patch7z(t, b, hdr[i:i+10], []byte{0x23, 0x03, 0x01, 0x7f, 0x05, 1, 0, 0, 0, 0})
	p := mustRejectFor(t, writeArchive(t, "forever.7z", b), RuleUnpackTime)
	if p.Value != "more than 1 s" {
		t.Errorf("value = %q; want the budget named", p.Value)
	}
}

// TestIsolationCrash: a decoder that panics (as lzip-go did) rejects its
// archive with the panic named; the caller goes on.
func TestIsolationCrash(t *testing.T) {
	isolateFor(t, &Isolation{})
	b := sevenZip(t, nil, "-mhc=off", "-m0=lzma")
	hdr, i := lzmaCoder(t, b)
	b = patch7z(t, b, hdr[i:i+10], []byte{0x23, 0x03, 0x01, 0x7f, 0x05, 2, 9, 0, 0, 0})
	p := mustRejectFor(t, writeArchive(t, "crash.7z", b), RuleUnpackerCrashed)
	if !strings.HasPrefix(p.Value, "panic: runtime error: index out of range") {
		t.Errorf("value = %q; want the panic", p.Value)
	}
}

// TestIsolationKilledChild: a child killed mid-extraction (kill -9) leaves
// nothing in staging, and its archive is rejected.
func TestIsolationKilledChild(t *testing.T) {
	isolateFor(t, &Isolation{})
	iso := newIsolated(t)
	archive := writeArchive(t, "big.tar", tarBytes(t, with(entry{name: "content/big.pak", body: randomish(128 << 20)})))
	var mu sync.Mutex
	pid := 0
	childStarted = func(p int) { mu.Lock(); pid = p; mu.Unlock() }
	t.Cleanup(func() { childStarted = nil })
	killed := false
	_, err := testExtract(t.Context(), archive, iso.staging, DefaultLimits(), func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if !killed && done > 0 {
			killed = true
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	var re *RejectError
	if !errors.As(err, &re) || len(re.Problems) != 1 || re.Problems[0].Rule != RuleUnpackerCrashed {
		t.Fatalf("Extract with the child killed = %v; want the crash rule", err)
	}
	iso.verify(t, true)
}
