package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// BenchmarkLAN is the LAN figure of issue 40, run by scripts/bench-lan.sh:
// one host exports a 10-pack set of MIB MiB, served by a counting HTTP
// server (the mirror); CLIENTS client daemons on this machine (a state
// folder and a port each, [lan] share on, every other client named in
// [lan] peers) sync it: the first alone, the others at once. It reports
// the bytes the mirror served for all of them against the set's size (1
// means the set once for the whole LAN; without peers it is CLIENTS), and
// the total wall against CLIENTS direct syncs at once, without peers, into
// other folders. Then the host publishes v2 of one pack (issue 25's edit,
// scaled) and the clients apply it the same way, as a delta update across
// the LAN: it reports the index requests per client and the changed
// chunks' bytes served against one client's need.
func BenchmarkLAN(b *testing.B) {
	clients := envInt("FORGESYNC_LAN_CLIENTS", 10)
	mib := envInt("FORGESYNC_LAN_MIB", 200)
	const packs = 10
	work := b.TempDir()
	host := newGameIn(b, filepath.Join(work, "host"))
	paks := make([][]byte, packs)
	for i := range packs {
		id := fmt.Sprintf("lan-pack-%02d", i)
		paks[i] = bigPak(byte(i+1), mib<<20/packs)
		storedPackZip(b, filepath.Join(host.drop, id+".zip"), id, "1.0.0", paks[i])
	}
	mustRun(b, binary, "sync", "--config", host.config)
	export := filepath.Join(work, "export")
	publish := func() int64 {
		mustRun(b, binary, "export", export, "--prune", "--config", host.config)
		data, _ := os.ReadFile(filepath.Join(export, lock.LockName))
		l, err := lock.Decode("lock", data, lock.DecodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for _, p := range l.Packs {
			n += p.Size
		}
		return n
	}
	setBytes := publish()
	var served, archives, indexes, chunks atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{ResponseWriter: w}
		http.FileServer(http.Dir(export)).ServeHTTP(cw, r)
		switch {
		case strings.HasSuffix(r.URL.Path, ".caibx"):
			indexes.Add(1)
		case strings.HasPrefix(r.URL.Path, "/chunks/"):
			chunks.Add(cw.n)
		case strings.HasPrefix(r.URL.Path, "/packs/"):
			archives.Add(cw.n)
		}
		served.Add(cw.n)
	}))
	defer srv.Close()
	reset := func() { served.Store(0); archives.Store(0); indexes.Store(0); chunks.Store(0) }

	direct := lanMachines(b, filepath.Join(work, "direct"), clients, false)
	lanned := lanMachines(b, filepath.Join(work, "lan"), clients, true)
	syncAll := func(ms []*game) {
		var wg sync.WaitGroup
		errs := make([]error, len(ms))
		for i, m := range ms {
			wg.Go(func() {
				if out, err := exec.Command(binary, "sync", "--set", srv.URL+"/", "--config", m.config).CombinedOutput(); err != nil {
					errs[i] = fmt.Errorf("%s: %v\n%s", m.root, err, out)
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}

	b.ResetTimer()
	start := time.Now()
	syncAll(direct)
	directWall, directServed := time.Since(start), served.Load()
	reset()
	start = time.Now()
	syncAll(lanned[:1])
	syncAll(lanned[1:])
	lanWall, lanServed := time.Since(start), served.Load()

	// v2 of one pack, applied by every client across the LAN.
	b.StopTimer()
	n := len(paks[0])
	v2 := slices.Concat(paks[0][:n/4], bigPak(100, n/200), paks[0][n/4:])
	copy(v2[len(v2)/2:], bigPak(150, n/100))
	v2 = append(v2, bigPak(200, n/400)...)
	os.Remove(filepath.Join(host.drop, "lan-pack-00.zip"))
	storedPackZip(b, filepath.Join(host.drop, "lan-pack-00-2.zip"), "lan-pack-00", "2.0.0", v2)
	mustRun(b, binary, "sync", "--config", host.config)
	publish()
	reset()
	b.StartTimer()
	start = time.Now()
	syncAll(lanned[:1])
	firstChunks := chunks.Load()
	syncAll(lanned[1:])
	updateWall := time.Since(start)
	b.StopTimer()

	b.ReportMetric(float64(clients), "clients")
	b.ReportMetric(float64(setBytes)/(1<<20), "set-MiB")
	b.ReportMetric(float64(directServed)/float64(setBytes), "direct-served/set")
	b.ReportMetric(directWall.Seconds(), "direct-wall-s")
	b.ReportMetric(float64(lanServed)/float64(setBytes), "lan-served/set")
	b.ReportMetric(lanWall.Seconds(), "lan-wall-s")
	b.ReportMetric(float64(indexes.Load())/float64(clients), "update-indexes/client")
	b.ReportMetric(float64(chunks.Load())/(1<<20), "update-chunks-MiB")
	b.ReportMetric(float64(firstChunks)/(1<<20), "update-chunks-first-client-MiB")
	b.ReportMetric(float64(archives.Load()), "update-archive-bytes")
	b.ReportMetric(updateWall.Seconds(), "update-wall-s")
}

// lanMachines makes n client machines under dir, each with its daemon
// running; with share, each serves on its own loopback port and names
// every other one in [lan] peers.
func lanMachines(b *testing.B, dir string, n int, share bool) []*game {
	b.Helper()
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	ms := make([]*game, n)
	for i := range ms {
		g := newGameIn(b, filepath.Join(dir, fmt.Sprintf("c%02d", i)))
		text := "[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\nsocket = \"s.sock\"\n[deploy]\nnative = false\n[log]\nlevel = \"info\"\n"
		if share {
			var peers []string
			for j, p := range ports {
				if j != i {
					peers = append(peers, fmt.Sprintf("%q", fmt.Sprintf("http://127.0.0.1:%d", p)))
				}
			}
			text += fmt.Sprintf("[lan]\nshare = true\nlisten = \"127.0.0.1:%d\"\nmax_upload = \"1GB\"\npeers = [%s]\n", ports[i], strings.Join(peers, ", "))
		}
		if err := os.WriteFile(g.config, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		g.start(b)
		ms[i] = g
	}
	return ms
}
