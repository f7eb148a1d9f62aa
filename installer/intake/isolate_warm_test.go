//go:build linux || windows

package intake

import (
	"bufio"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// warmExtractor is an Extractor of this test binary as the child, keeping
// a warm child, closed at the test's end; started collects the pid of
// every child it starts.
func warmExtractor(t *testing.T, iso Isolation) (x *Extractor, started func() []int) {
	t.Helper()
	x, started = recordedExtractor(t, iso)
	x.Warm()
	return x, started
}

// recordedExtractor is warmExtractor's Extractor before Warm.
func recordedExtractor(t *testing.T, iso Isolation) (x *Extractor, started func() []int) {
	t.Helper()
	var mu sync.Mutex
	var pids []int
	childStarted = func(pid int) { mu.Lock(); pids = append(pids, pid); mu.Unlock() }
	t.Cleanup(func() { childStarted = nil })
	iso.Command = []string{os.Args[0]}
	iso.Env = append(iso.Env, envUnpackChild+"=1")
	if iso.Memory == 0 {
		iso.Memory = raceMemory()
	}
	x, err := NewExtractor(iso)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, func() []int { mu.Lock(); defer mu.Unlock(); return slices.Clone(pids) }
}

// readyChild waits for a warm child started with envSayReady to say it
// reads its request.
func readyChild(t *testing.T, c *child) {
	t.Helper()
	if line, err := bufio.NewReader(c.stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the warm child said %q, %v; want ready", line, err)
	}
}

// TestWarmChildUsedAndReplaced: an extraction takes the warm child (no
// process is started for it), and the next warm child is started.
func TestWarmChildUsedAndReplaced(t *testing.T) {
	x, started := warmExtractor(t, Isolation{})
	first := waitingChild(t, x).cmd.Process.Pid
	iso := newIsolated(t)
	st, err := x.Extract(t.Context(), writeArchive(t, "p.zip", zipBytes(t, goodPack(""))), iso.staging, DefaultLimits(), nil)
	if err != nil {
		t.Fatalf("Extract with a warm child = %v", err)
	}
	removeStaging(st.Dir)
	next := waitingChild(t, x).cmd.Process.Pid
	if pids := started(); !slices.Equal(pids, []int{first, next}) || next == first {
		t.Errorf("children started %v; want the warm one %d, used, then the next warm one %d", pids, first, next)
	}
}

// TestWarmChildClosed: Close ends the warm child; no unpacker is left.
func TestWarmChildClosed(t *testing.T) {
	x, _ := warmExtractor(t, Isolation{})
	c := waitingChild(t, x)
	x.Close()
	if c.cmd.ProcessState == nil {
		t.Fatal("the warm child was not waited for by Close")
	}
	if !processGone(c.cmd.Process.Pid) {
		t.Errorf("the warm child %d runs after Close", c.cmd.Process.Pid)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.warm != nil || x.starting {
		t.Error("a warm child is kept or started after Close")
	}
}

// TestWarmChildDiedIsReplaced: a warm child killed while it waited (kill
// -9 from outside) is replaced when an archive comes: the archive is
// extracted by a new child, not rejected as a crash.
func TestWarmChildDiedIsReplaced(t *testing.T) {
	x, started := warmExtractor(t, Isolation{})
	dead := waitingChild(t, x).cmd.Process.Pid
	killAndAwait(t, dead)
	iso := newIsolated(t)
	st, err := x.Extract(t.Context(), writeArchive(t, "p.zip", zipBytes(t, goodPack(""))), iso.staging, DefaultLimits(), nil)
	if err != nil {
		t.Fatalf("Extract after the warm child died = %v; want the archive extracted by another", err)
	}
	removeStaging(st.Dir)
	if pids := started(); len(pids) < 2 || pids[0] != dead {
		t.Errorf("children started %v; want the dead warm one %d, then others", pids, dead)
	}
}

// BenchmarkExtractColdWarm: the latency of extracting a 1 MiB pack with a
// child started for it (cold) and with the warm child (warm), which is
// started again, off the clock, between archives as it is between drops.
// Each iteration extracts once each way, so that the two share the
// machine's load; it reports the medians and their ratio:
// go test ./intake -run '^$' -bench ColdWarm -benchtime 30x.
func BenchmarkExtractColdWarm(b *testing.B) {
	archive := writeArchive(b, "p.zip", zipBytes(b, with(entry{name: "content/a.pak", body: randomish(1 << 20)})))
	newX := func() *Extractor {
		x, err := NewExtractor(Isolation{Command: []string{os.Args[0]}, Env: []string{envUnpackChild + "=1"}, Memory: raceMemory()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { x.Close() })
		return x
	}
	cold, warm := newX(), newX()
	warm.Warm()
	parent := b.TempDir()
	extract := func(x *Extractor) time.Duration {
		x.starter.Wait()
		start := time.Now()
		st, err := x.Extract(b.Context(), archive, parent, DefaultLimits(), nil)
		d := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		removeStaging(st.Dir)
		return d
	}
	var colds, warms []time.Duration
	for b.Loop() {
		colds = append(colds, extract(cold))
		warms = append(warms, extract(warm))
	}
	median := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	c, w := median(colds), median(warms)
	b.ReportMetric(float64(c)/1e6, "cold-p50-ms")
	b.ReportMetric(float64(w)/1e6, "warm-p50-ms")
	b.ReportMetric(float64(w)/float64(c), "warm/cold")
}

// TestWarmOnce: after WarmOnce an extraction takes the child started
// ahead, and no other is started after it; Close ends one no extraction
// took.
func TestWarmOnce(t *testing.T) {
	x, started := recordedExtractor(t, Isolation{})
	x.WarmOnce()
	first := waitingChild(t, x).cmd.Process.Pid
	iso := newIsolated(t)
	st, err := x.Extract(t.Context(), writeArchive(t, "p.zip", zipBytes(t, goodPack(""))), iso.staging, DefaultLimits(), nil)
	if err != nil {
		t.Fatalf("Extract after WarmOnce = %v", err)
	}
	removeStaging(st.Dir)
	x.starter.Wait()
	if pids := started(); !slices.Equal(pids, []int{first}) {
		t.Errorf("children started %v; want the one of WarmOnce %d, used, and no other", pids, first)
	}
	x.WarmOnce()
	c := waitingChild(t, x)
	x.Close()
	if c.cmd.ProcessState == nil {
		t.Fatal("Close did not end the child WarmOnce started")
	}
}

// TestExtractTakesTheChildStarting: an extraction that comes while the
// warm child is still starting waits for it rather than start another.
func TestExtractTakesTheChildStarting(t *testing.T) {
	entered, release := make(chan int, 4), make(chan struct{})
	childStarted = func(pid int) {
		entered <- pid
		<-release
	}
	t.Cleanup(func() { childStarted = nil })
	x, err := NewExtractor(Isolation{Command: []string{os.Args[0]}, Env: []string{envUnpackChild + "=1"}, Memory: raceMemory()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	x.WarmOnce()
	first := <-entered // the warm child is started, not yet handed over
	iso := newIsolated(t)
	archive := writeArchive(t, "p.zip", zipBytes(t, goodPack("")))
	done := make(chan error, 1)
	go func() {
		st, err := x.Extract(t.Context(), archive, iso.staging, DefaultLimits(), nil)
		if err == nil {
			removeStaging(st.Dir)
		}
		done <- err
	}()
	select {
	case pid := <-entered:
		close(release)
		t.Fatalf("the extraction started child %d while child %d was starting; want it to wait for that one", pid, first)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Extract = %v", err)
	}
}
