package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/daemon"
)

// The daemon's measurements, run by scripts/bench-daemon.sh. They are
// benchmarks: they report figures as metrics and assert nothing about
// time, which on a shared machine would only make tests flaky, and `go
// test` does not run them unless -bench asks.

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func reportLatency(b *testing.B, lat []time.Duration) {
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.9).Microseconds())/1000, "p90-ms")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(slices.Max(lat).Microseconds())/1000, "max-ms")
}

// BenchmarkDaemonDropToPublished: from an archive's final rename in drop
// to installed.txt published, for a 1 MiB pack, minus the settle window
// (a lone archive goes to the writer when it settles: no batch quiet
// follows). One pack per iteration. The daemon's debug log line
// "transaction done" splits the rest into its steps.
func BenchmarkDaemonDropToPublished(b *testing.B) {
	g := newGame(b)
	const settle = 200 * time.Millisecond
	g.start(b)
	ev := g.follow(b)
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		data := packZip(b, fmt.Sprintf("lat-pack-%04d", i), "1.0.0", 1<<20)
		part := filepath.Join(g.drop, fmt.Sprintf("p%04d.zip.part", i))
		if err := os.WriteFile(part, data, 0o644); err != nil {
			b.Fatal(err)
		}
		before := len(ev.snapshot())
		start := time.Now()
		if err := os.Rename(part, filepath.Join(g.drop, fmt.Sprintf("p%04d.zip", i))); err != nil {
			b.Fatal(err)
		}
		ev.wait(b, 30*time.Second, "published", func(all []api.Event) bool {
			for _, e := range all[before:] {
				if d, err := e.Decode(); err == nil {
					if p, ok := d.(api.InventoryPublished); ok && slices.Contains(p.Files, "installed.txt") {
						return true
					}
				}
			}
			return false
		})
		lat = append(lat, time.Since(start)-settle)
	}
	reportLatency(b, lat)
}

// BenchmarkDaemonIdle: CPU and context switches of a daemon with nothing
// to do, over FORGESYNC_IDLE_SECONDS (60 by default) per iteration; Linux
// only (it reads /proc).
func BenchmarkDaemonIdle(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("reads /proc")
	}
	seconds := 60
	if s, err := strconv.Atoi(os.Getenv("FORGESYNC_IDLE_SECONDS")); err == nil {
		seconds = s
	}
	g := newGame(b)
	d := g.start(b)
	ev := g.follow(b)
	// Start-up is done once the start-up deploy has been reported.
	ev.wait(b, 30*time.Second, "the start-up deploy", func(all []api.Event) bool { return count(all, api.EventModuleDeployed) > 0 })
	pid := d.cmd.Process.Pid
	var ticks, switches int64
	for b.Loop() {
		cpu0, ctx0 := procCPU(b, pid), procField(b, pid, "voluntary_ctxt_switches")
		time.Sleep(time.Duration(seconds) * time.Second) // the idle window measured
		ticks += procCPU(b, pid) - cpu0
		switches += procField(b, pid, "voluntary_ctxt_switches") - ctx0
	}
	b.ReportMetric(float64(ticks)/float64(seconds*b.N), "%core")
	b.ReportMetric(float64(switches)/float64(seconds*b.N), "switches/s")
	b.Logf("RSS %s, peak %s", procStatus(pid, "VmRSS"), procStatus(pid, "VmHWM"))
}

func procCPU(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ut + st
}

func procStatus(pid int, key string) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func procField(b *testing.B, pid int, key string) int64 {
	n, err := strconv.ParseInt(strings.Fields(procStatus(pid, key) + " 0")[0], 10, 64)
	if err != nil {
		b.Fatalf("/proc/%d/status %s: %v", pid, key, err)
	}
	return n
}

// BenchmarkDaemonStatusUnderLoad: GET /v1/status latency at 500 requests/s
// from the moment a 256 MiB archive is dropped until it is installed.
func BenchmarkDaemonStatusUnderLoad(b *testing.B) {
	g := newGame(b)
	g.start(b)
	ev := g.follow(b)
	c := daemon.NewClient(g.sock)
	defer c.Close()
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		part := filepath.Join(g.drop, "big.zip.part")
		if err := os.WriteFile(part, packZip(b, fmt.Sprintf("big-pack-%d", i), "1.0.0", 256<<20), 0o644); err != nil {
			b.Fatal(err)
		}
		before := count(ev.snapshot(), api.EventPackInstalled)
		// The waiting goroutine only signals; failures are reported here.
		installed := make(chan struct{})
		go func() {
			for count(ev.snapshot(), api.EventPackInstalled) == before {
				<-ev.ch
			}
			close(installed)
		}()
		tick := time.NewTicker(2 * time.Millisecond) // 500/s
		if err := os.Rename(part, filepath.Join(g.drop, fmt.Sprintf("big-%d.zip", i))); err != nil {
			b.Fatal(err)
		}
		timeout := time.After(2 * time.Minute)
	loop:
		for {
			select {
			case <-installed:
				break loop
			case <-timeout:
				b.Fatal("the big pack was not installed within 2 min")
			case <-tick.C:
			}
			t0 := time.Now()
			if _, err := c.Status(b.Context()); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		tick.Stop()
	}
	reportLatency(b, lat)
}
