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

// The measurements of the daemon issue, run by scripts/bench-daemon.sh
// (FORGESYNC_MEASURE=1). They report figures; they assert nothing about
// time, which on a shared machine would only make tests flaky.

func measuring(t *testing.T) {
	if os.Getenv("FORGESYNC_MEASURE") == "" {
		t.Skip("set FORGESYNC_MEASURE=1 (scripts/bench-daemon.sh) to measure")
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// TestMeasureDropToPublished: from an archive's final rename in drop to
// installed.txt published, for a 1 MiB pack, minus the settle window.
func TestMeasureDropToPublished(t *testing.T) {
	measuring(t)
	g := newGame(t)
	const settle = 200 * time.Millisecond
	g.start(t)
	ev := g.follow(t)
	var lat []time.Duration
	for i := range 30 {
		data := packZip(t, fmt.Sprintf("lat-pack-%02d", i), "1.0.0", 1<<20)
		part := filepath.Join(g.drop, fmt.Sprintf("p%02d.zip.part", i))
		os.WriteFile(part, data, 0o644)
		before := len(ev.snapshot())
		start := time.Now()
		os.Rename(part, filepath.Join(g.drop, fmt.Sprintf("p%02d.zip", i)))
		ev.wait(t, 30*time.Second, "published", func(all []api.Event) bool {
			for _, e := range all[before:] {
				if e.Type == api.EventInventoryPublished && strings.Contains(string(e.Data), "installed.txt") {
					return true
				}
			}
			return false
		})
		lat = append(lat, time.Since(start)-settle)
	}
	t.Logf("rename → installed.txt published, minus the %v settle (includes the watcher's %v batch quiet): p50 %v, p90 %v, max %v over %d packs of 1 MiB",
		settle, batchQuiet, percentile(lat, 0.5), percentile(lat, 0.9), slices.Max(lat), len(lat))
}

func (ev *events) snapshot() []api.Event {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return slices.Clone(ev.all)
}

// TestMeasureIdle: CPU and memory of a daemon with nothing to do.
func TestMeasureIdle(t *testing.T) {
	measuring(t)
	seconds := 60
	if s, err := strconv.Atoi(os.Getenv("FORGESYNC_IDLE_SECONDS")); err == nil {
		seconds = s
	}
	g := newGame(t)
	cmd := g.start(t)
	time.Sleep(2 * time.Second) // let start-up work finish
	cpu0 := procCPU(t, cmd.Process.Pid)
	ctx0 := procField(t, cmd.Process.Pid, "voluntary_ctxt_switches")
	time.Sleep(time.Duration(seconds) * time.Second)
	cpu1 := procCPU(t, cmd.Process.Pid)
	ctx1 := procField(t, cmd.Process.Pid, "voluntary_ctxt_switches")
	t.Logf("idle %d s: CPU %d ticks (%.3f%% of one core), %d voluntary context switches, RSS %s, peak %s",
		seconds, cpu1-cpu0, float64(cpu1-cpu0)/float64(seconds), ctx1-ctx0,
		procStatus(t, cmd.Process.Pid, "VmRSS"), procStatus(t, cmd.Process.Pid, "VmHWM"))
}

func procCPU(t *testing.T, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ut + st
}

func procStatus(t *testing.T, pid int, key string) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func procField(t *testing.T, pid int, key string) int64 {
	n, _ := strconv.ParseInt(strings.Fields(procStatus(t, pid, key) + " 0")[0], 10, 64)
	return n
}

// TestMeasureStatusUnderLoad: GET /v1/status latency at 500 requests/s
// from the moment a 256 MiB archive is dropped until it is installed.
func TestMeasureStatusUnderLoad(t *testing.T) {
	measuring(t)
	g := newGame(t)
	g.start(t)
	ev := g.follow(t)
	big := packZip(t, "big-pack", "1.0.0", 256<<20)
	part := filepath.Join(g.drop, "big.zip.part")
	os.WriteFile(part, big, 0o644)
	c := daemon.NewClient(g.sock)
	defer c.Close()
	var lat []time.Duration
	installed := make(chan struct{})
	go func() {
		ev.wait(t, 120*time.Second, "the big pack installed", func(all []api.Event) bool { return count(all, api.EventPackInstalled) > 0 })
		close(installed)
	}()
	tick := time.NewTicker(2 * time.Millisecond) // 500/s
	defer tick.Stop()
	os.Rename(part, filepath.Join(g.drop, "big.zip"))
	start := time.Now()
	syncing := 0
loop:
	for {
		select {
		case <-installed:
			break loop
		case <-tick.C:
		}
		t0 := time.Now()
		st, err := c.Status(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		if st.State == "syncing" {
			syncing++
		}
	}
	t.Logf("GET /v1/status at 500/s from the drop of a 256 MiB archive to its install (%v, settle included): %d requests (%d answered \"syncing\"), p50 %v, p99 %v, max %v",
		time.Since(start).Round(time.Millisecond), len(lat), syncing, percentile(lat, 0.5), percentile(lat, 0.99), slices.Max(lat))
}
