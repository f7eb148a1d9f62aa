package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// BenchmarkFleet is the fleet figure of issue 13, run by
// scripts/bench-fleet.sh: HOSTS simulated hosts (a state folder each,
// concurrent processes of the real binary) run `sync --set URL` of a
// 10-pack set of MIB MiB from one local server, beside curl --parallel
// fetching the same files into HOSTS folders; then every host re-checks
// with nothing changed. It reports the wall times, the bytes served per
// host against the set's size (1 means each archive exactly once), and the
// re-check's requests, 304s and time per host. Then the host publishes v2
// of every pack (issue 25's edit scaled to the pack: 1/200 of its .pak
// inserted, 2/200 overwritten, 1/400 appended), every host applies it as
// a delta update, and re-checks again: it reports the update's bytes
// served against a whole re-download, and the second re-check's 304s.
// The packs' .pak are stored, not deflated, as a delta-friendly packer
// writes them. FORGESYNC_FLEET_HOSTS (default 50) and FORGESYNC_FLEET_MIB
// (default 200) shrink it for a busy machine.
func BenchmarkFleet(b *testing.B) {
	hosts := envInt("FORGESYNC_FLEET_HOSTS", 50)
	mib := envInt("FORGESYNC_FLEET_MIB", 200)
	const packs = 10
	work := b.TempDir()

	// The host: ten packs of mib/10 MiB of incompressible content,
	// installed and exported.
	host := newGameIn(b, filepath.Join(work, "host"))
	paks := make([][]byte, packs)
	for i := range packs {
		id := fmt.Sprintf("fleet-pack-%02d", i)
		paks[i] = bigPak(byte(i+1), mib<<20/packs)
		storedPackZip(b, filepath.Join(host.drop, id+".zip"), id, "1.0.0", paks[i])
	}
	mustRun(b, binary, "sync", "--config", host.config)
	export := filepath.Join(work, "export")
	publish := func() (*lock.Lock, int64) {
		mustRun(b, binary, "export", export, "--prune", "--config", host.config)
		data, _ := os.ReadFile(filepath.Join(export, lock.LockName))
		lock, err := lock.Decode("lock", data, lock.DecodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var setBytes int64
		for _, p := range lock.Packs {
			setBytes += p.Size
		}
		return lock, setBytes
	}
	lock, setBytes := publish()

	var requests, served, notModified atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		cw := &countingWriter{ResponseWriter: w}
		http.FileServer(http.Dir(export)).ServeHTTP(cw, r)
		if cw.code == http.StatusNotModified {
			notModified.Add(1)
		}
		if strings.HasPrefix(r.URL.Path, "/packs/") || strings.HasPrefix(r.URL.Path, "/chunks/") {
			served.Add(cw.n)
		}
	}))
	defer srv.Close()

	machines := make([]*game, hosts)
	for i := range machines {
		machines[i] = newGameIn(b, filepath.Join(work, fmt.Sprintf("h%03d", i)))
	}
	fleet := func() (time.Duration, []time.Duration) {
		var wg sync.WaitGroup
		each := make([]time.Duration, hosts)
		errs := make([]error, hosts)
		start := time.Now()
		for i, m := range machines {
			wg.Go(func() {
				t0 := time.Now()
				out, err := exec.Command(binary, "sync", "--set", srv.URL+"/", "--config", m.config).CombinedOutput()
				each[i] = time.Since(t0)
				if err != nil {
					errs[i] = fmt.Errorf("host %d: %v\n%s", i, err, out)
				}
			})
		}
		wg.Wait()
		wall := time.Since(start)
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		return wall, each
	}

	b.ResetTimer()
	syncWall, _ := fleet()
	syncServed, syncRequests := served.Load(), requests.Load()

	// The reference: curl fetching the same files into as many folders.
	var curlWall time.Duration
	if curl, err := exec.LookPath("curl"); err == nil {
		args := []string{"--silent", "--fail", "--parallel", "--parallel-max", strconv.Itoa(min(hosts*packs, 300))}
		for i := range hosts {
			dir := filepath.Join(work, fmt.Sprintf("curl%03d", i))
			os.MkdirAll(dir, 0o755)
			for _, p := range lock.Packs {
				args = append(args, "-o", filepath.Join(dir, filepath.Base(p.URLs[0])), srv.URL+"/"+p.URLs[0])
			}
		}
		start := time.Now()
		if out, err := exec.Command(curl, args...).CombinedOutput(); err != nil {
			b.Fatalf("curl: %v\n%s", err, out)
		}
		curlWall = time.Since(start)
	} else {
		b.Log("curl is not installed (apt-get install curl): no reference figure")
	}

	// Every host re-checks with nothing changed.
	requests.Store(0)
	notModified.Store(0)
	served.Store(0)
	recheckWall, each := fleet()
	recheckRequests, recheck304, recheckServed := requests.Load(), notModified.Load(), served.Load()

	// v2 of every pack, applied by every host as a delta update.
	b.StopTimer()
	for i := range packs {
		id := fmt.Sprintf("fleet-pack-%02d", i)
		n := len(paks[i])
		v2 := slices.Concat(paks[i][:n/4], bigPak(byte(100+i), n/200), paks[i][n/4:])
		copy(v2[len(v2)/2:], bigPak(byte(150+i), n/100))
		v2 = append(v2, bigPak(byte(200+i), n/400)...)
		os.Remove(filepath.Join(host.drop, id+".zip"))
		storedPackZip(b, filepath.Join(host.drop, id+"-2.zip"), id, "2.0.0", v2)
	}
	mustRun(b, binary, "sync", "--config", host.config)
	_, set2Bytes := publish()
	requests.Store(0)
	notModified.Store(0)
	served.Store(0)
	b.StartTimer()
	updateWall, _ := fleet()
	updateServed, updateRequests := served.Load(), requests.Load()
	requests.Store(0)
	notModified.Store(0)
	served.Store(0)
	recheck2Wall, _ := fleet()
	b.StopTimer()

	b.ReportMetric(float64(hosts), "hosts")
	b.ReportMetric(float64(setBytes)/(1<<20), "set-MiB")
	b.ReportMetric(syncWall.Seconds(), "sync-wall-s")
	if curlWall > 0 {
		b.ReportMetric(curlWall.Seconds(), "curl-wall-s")
	}
	b.ReportMetric(float64(syncServed)/float64(int64(hosts)*setBytes), "served/(hosts×set)")
	b.ReportMetric(float64(syncRequests), "sync-requests")
	b.ReportMetric(float64(recheckRequests), "recheck-requests")
	b.ReportMetric(float64(recheck304), "recheck-304")
	b.ReportMetric(float64(recheckServed), "recheck-archive-bytes")
	b.ReportMetric(updateWall.Seconds(), "update-wall-s")
	b.ReportMetric(float64(updateServed)/float64(int64(hosts)*set2Bytes), "update-served/(hosts×set2)")
	b.ReportMetric(float64(updateRequests)/float64(hosts), "update-requests/host")
	b.ReportMetric(float64(requests.Load()), "recheck2-requests")
	b.ReportMetric(float64(notModified.Load()), "recheck2-304")
	b.ReportMetric(float64(recheck2Wall.Microseconds())/1000/float64(hosts), "recheck2-wall-ms/host")
	b.ReportMetric(float64(recheckWall.Milliseconds()), "recheck-wall-ms")
	b.ReportMetric(float64(recheckWall.Microseconds())/1000/float64(hosts), "recheck-wall-ms/host")
	b.ReportMetric(float64(percentile(each, 0.5).Microseconds())/1000, "recheck-process-p50-ms")
	b.ReportMetric(float64(slices.Max(each).Microseconds())/1000, "recheck-process-max-ms")
}

// countingWriter counts a response's status and body bytes.
type countingWriter struct {
	http.ResponseWriter
	code int
	n    int64
}

func (w *countingWriter) WriteHeader(code int) { w.code = code; w.ResponseWriter.WriteHeader(code) }

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

// newGameIn is newGame in a folder of the caller's.
func newGameIn(b testing.TB, root string) *game {
	b.Helper()
	g := &game{root: root, config: filepath.Join(root, "f.toml"), drop: filepath.Join(root, "mods", "MJOLNIRForgePacks", "drop"),
		inv: filepath.Join(root, "mods", "MJOLNIRForgePacks"), state: filepath.Join(root, "state"), sock: filepath.Join(root, "s.sock")}
	text := "[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\nsocket = \"s.sock\"\n[deploy]\nnative = false\n[log]\nlevel = \"warn\"\n"
	if err := os.MkdirAll(g.drop, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(g.config, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	return g
}

func mustRun(b testing.TB, name string, args ...string) {
	b.Helper()
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
