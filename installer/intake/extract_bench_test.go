package intake

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zip"
	"github.com/klauspost/compress/zstd"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// The benchmarks extract one 256 MiB pack (192 files of 1 MiB and two
// .ucas of 32 MiB, data that deflates to about half) with Extract and with
// the system tool, side by side in one run, and report both throughputs,
// their ratio and Extract's peak memory (VmHWM of a child process).
// scripts/bench-extract.sh runs them.

const benchPackBytes = 256 << 20

// benchData fills b with bytes that compress about 2:1: each 256-byte run
// is either fresh noise or a copy of an earlier run.
func benchData(b []byte, seed uint64) {
	x := seed | 1
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	for off := 0; off < len(b); off += 256 {
		end := min(off+256, len(b))
		if r := next(); off >= 4096 && r&1 == 0 {
			src := off - 256*int(1+r>>1%16)
			copy(b[off:end], b[src:])
			continue
		}
		for i := off; i < end; i += 8 {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], next()&0x3f3f3f3f3f3f3f3f)
			copy(b[i:end], w[:])
		}
	}
}

// benchFiles calls fn for every file of a benchmark pack of about total
// bytes: two .ucas of 32 MiB (with their .utoc) and 1 MiB .pak files.
func benchFiles(total int, fn func(name string, body []byte)) {
	fn("forgepack.json", []byte(`{"schema":1,"id":"bench"}`))
	buf := make([]byte, 32<<20)
	for i := range 2 {
		benchData(buf, uint64(i+1))
		fn(fmt.Sprintf("content/big_%d.ucas", i), buf)
		fn(fmt.Sprintf("content/big_%d.utoc", i), buf[:4096])
	}
	for i := range (total - 64<<20) / (1 << 20) {
		benchData(buf[:1<<20], uint64(i+100))
		fn(fmt.Sprintf("content/chunk_%03d.pak", i), buf[:1<<20])
	}
}

// benchArchive writes a benchmark pack of about size bytes as a deflate
// zip or a tar.zst.
func benchArchive(b testing.TB, kind string, size int) (string, int64) {
	b.Helper()
	p := filepath.Join(b.TempDir(), "bench."+kind)
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var total int64
	switch kind {
	case "zip":
		zw := zip.NewWriter(f)
		zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, 5) })
		benchFiles(size, func(name string, body []byte) {
			w, err := zw.Create(name)
			if err == nil {
				_, err = w.Write(body)
			}
			if err != nil {
				b.Fatal(err)
			}
			total += int64(len(body))
		})
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
	case "tar.zst":
		zw, err := zstd.NewWriter(f)
		if err != nil {
			b.Fatal(err)
		}
		var es []entry
		benchFiles(size, func(name string, body []byte) {
			es = append(es, entry{name: name, body: append([]byte(nil), body...)})
			total += int64(len(body))
		})
		if _, err := zw.Write(tarBytes(b, es)); err != nil {
			b.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
	}
	return p, total
}

func BenchmarkExtractVsUnzip(b *testing.B) {
	toolcheck.Need(b, "unzip")
	benchVs(b, "zip", func(archive, dest string) *exec.Cmd { return exec.Command("unzip", "-q", archive, "-d", dest) })
}

func BenchmarkExtractVsTarZstd(b *testing.B) {
	toolcheck.Need(b, "tar", "zstd")
	benchVs(b, "tar.zst", func(archive, dest string) *exec.Cmd { return exec.Command("tar", "--zstd", "-xf", archive, "-C", dest) })
}

func benchVs(b *testing.B, kind string, tool func(archive, dest string) *exec.Cmd) {
	archive, total := benchArchive(b, kind, benchPackBytes)
	work := b.TempDir()
	var ours, theirs time.Duration
	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		st, err := testExtract(b.Context(), archive, work, DefaultLimits(), nil)
		if err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		b.StopTimer()
		if len(st.Files) != 197 {
			b.Fatalf("extracted %d files; want 197", len(st.Files))
		}
		st.Remove()
		dest := filepath.Join(work, "tool")
		if err := os.Mkdir(dest, 0o700); err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		if out, err := tool(archive, dest).CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		theirs += time.Since(start)
		os.RemoveAll(dest)
		b.StartTimer()
	}
	b.StopTimer()
	mbps := func(d time.Duration) float64 { return float64(total) * float64(b.N) / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(ours), "forgesync-MB/s")
	b.ReportMetric(mbps(theirs), "tool-MB/s")
	b.ReportMetric(theirs.Seconds()/ours.Seconds(), "ratio")
	if runtime.GOOS != "linux" {
		return // VmHWM is read from /proc
	}
	if hwm, heap, err := childPeak(archive, work); err == nil {
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(heap)/(1<<20), "HeapSys-MiB")
	} else {
		b.Errorf("peak memory: %v", err)
	}
}

// childPeak runs one Extract in a child process (this test binary, see
// TestExtractPeakMemoryChild) and returns its VmHWM and HeapSys in bytes.
func childPeak(archive, work string) (hwm, heap int64, err error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestExtractPeakMemoryChild$", "-test.v")
	cmd.Env = append(os.Environ(), "FORGESYNC_PEAK_ARCHIVE="+archive, "FORGESYNC_PEAK_WORK="+work, envInProcess+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("%v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		if _, rest, ok := strings.Cut(line, "PEAK "); ok {
			f := strings.Fields(rest)
			if len(f) == 2 {
				hwm, _ = strconv.ParseInt(f[0], 10, 64)
				heap, _ = strconv.ParseInt(f[1], 10, 64)
				return hwm, heap, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("no PEAK line in:\n%s", out)
}

// TestExtractPeakMemory holds the memory promise: extracting a pack much
// larger than the budget peaks under 64 MiB resident.
func TestExtractPeakMemory(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" || raceEnabled {
		t.Skip("needs /proc, a 160 MiB archive and no race detector")
	}
	for _, kind := range []string{"zip", "tar.zst"} {
		archive, total := benchArchive(t, kind, 160<<20)
		hwm, heap, err := childPeak(archive, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d MiB extracted, VmHWM %.1f MiB, HeapSys %.1f MiB", kind, total>>20, float64(hwm)/(1<<20), float64(heap)/(1<<20))
		if hwm >= 64<<20 {
			t.Errorf("%s: peak resident memory %d MiB; want under 64 MiB", kind, hwm>>20)
		}
	}
}

// TestExtractPeakMemoryChild is the child of childPeak; it does nothing in
// a normal test run.
func TestExtractPeakMemoryChild(t *testing.T) {
	archive := os.Getenv("FORGESYNC_PEAK_ARCHIVE")
	if archive == "" {
		t.Skip("only run by the extraction benchmarks")
	}
	st, err := testExtract(t.Context(), archive, os.Getenv("FORGESYNC_PEAK_WORK"), DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Remove()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	hwm, err := vmHWM()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PEAK %d %d", hwm, ms.HeapSys)
}

// vmHWM returns the process's peak resident set size from /proc.
func vmHWM() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// BenchmarkIsolationCost extracts a 10 KB pack in a child process and in
// this one: the difference is what isolation costs per archive.
func BenchmarkIsolationCost(b *testing.B) {
	archive := writeArchive(b, "small.zip", zipBytes(b, with(entry{name: "content/small.pak", body: randomish(8 << 10)})))
	staging := b.TempDir()
	run := func(b *testing.B) {
		for b.Loop() {
			st, err := testExtract(b.Context(), archive, staging, DefaultLimits(), nil)
			if err != nil {
				b.Fatal(err)
			}
			st.Remove()
		}
	}
	b.Run("child", run)
	b.Run("in-process", func(b *testing.B) {
		old := testExtractor.Load()
		testExtractor.Store(nil)
		defer testExtractor.Store(old)
		run(b)
	})
}
