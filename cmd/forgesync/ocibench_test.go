package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/registrytest"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// The OCI figures of issue 26, run by scripts/bench-oci.sh. They are
// benchmarks: they report figures as metrics and assert nothing about
// time.

// ociBenchEnv is the environment of the processes a benchmark runs: no
// Docker config of the user's.
func ociBenchEnv(b *testing.B) []string {
	return append(os.Environ(), "DOCKER_CONFIG="+b.TempDir(), "HOME="+b.TempDir())
}

// runTimed runs a process and returns its output, wall time and
// CPU-seconds (user + system); it fails the benchmark when the process
// does.
func runTimed(b *testing.B, env []string, dir, name string, args ...string) (string, time.Duration, time.Duration) {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = env, dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out), wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// benchLock returns the lock of the packs enabled on a machine.
func benchLock(b *testing.B, env []string, config string) *lock.Lock {
	b.Helper()
	out, _, _ := runTimed(b, env, "", binary, "lock", "--config", config)
	l, err := lock.Decode("lock", []byte(out), lock.DecodeOptions{Have: lock.HaveAll})
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// benchHost lays out a host with packs packs of mib MiB in all of
// incompressible content, installed.
func benchHost(b *testing.B, env []string, root string, packs, mib int) *game {
	b.Helper()
	host := newGameIn(b, root)
	for i := range packs {
		id := fmt.Sprintf("fleet-pack-%02d", i)
		if err := os.WriteFile(filepath.Join(host.drop, id+".zip"), packZip(b, id, "1.0.0", mib<<20/packs), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	runTimed(b, env, "", binary, "sync", "--config", host.config)
	return host
}

func medianDur(d []time.Duration) time.Duration { return percentile(d, 0.5) }

// BenchmarkOCIFleetSync: HOSTS simulated hosts (a state folder each,
// concurrent processes of the real binary) run `sync --set oci://…:live`
// of a 10-pack set of MIB MiB from one local registry (distribution,
// anonymous, behind the recording proxy); then all re-check with nothing
// changed; then one pack changes and all sync again. It reports the bytes
// served per host against the set's size (1 means each archive exactly
// once), the re-check's requests per host and their latency at the
// registry, each re-checking process's wall time, and what the update
// fetched per host against the changed pack's size.
// FORGESYNC_FLEET_HOSTS (default 50) and FORGESYNC_FLEET_MIB (default 200)
// shrink it for a busy machine.
func BenchmarkOCIFleetSync(b *testing.B) {
	hosts := envInt("FORGESYNC_FLEET_HOSTS", 50)
	mib := envInt("FORGESYNC_FLEET_MIB", 200)
	const packs = 10
	work := b.TempDir()
	env := ociBenchEnv(b)
	reg := registrytest.Start(b, registrytest.Options{})
	proxy := registrytest.NewProxy(b, reg)
	live := "oci://" + proxy.Ref("forge/set", "live")

	host := benchHost(b, env, filepath.Join(work, "host"), packs, mib)
	runTimed(b, env, "", binary, "export", "oci://"+reg.Ref("forge/set", "live"), "--config", host.config)
	pinned := benchLock(b, env, host.config)
	var setBytes int64
	for _, p := range pinned.Packs {
		setBytes += p.Size
	}

	machines := make([]*game, hosts)
	for i := range machines {
		machines[i] = newGameIn(b, filepath.Join(work, fmt.Sprintf("h%03d", i)))
	}
	fleet := func() (time.Duration, []time.Duration, time.Duration) {
		var wg sync.WaitGroup
		each := make([]time.Duration, hosts)
		cpu := make([]time.Duration, hosts)
		errs := make([]error, hosts)
		start := time.Now()
		for i, m := range machines {
			wg.Go(func() {
				cmd := exec.Command(binary, "sync", "--set", live, "--config", m.config)
				cmd.Env = env
				t0 := time.Now()
				out, err := cmd.CombinedOutput()
				each[i] = time.Since(t0)
				if err != nil {
					errs[i] = fmt.Errorf("host %d: %v\n%s", i, err, out)
					return
				}
				cpu[i] = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			})
		}
		wg.Wait()
		wall := time.Since(start)
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		var total time.Duration
		for _, c := range cpu {
			total += c
		}
		return wall, each, total
	}
	// archiveBytes sums the archive bytes the registry served, and counts
	// the archive blobs fetched.
	archiveBytes := func(rs []registrytest.Request, l *lock.Lock) (int64, int) {
		archives := map[string]bool{}
		for _, p := range l.Packs {
			archives["sha256:"+p.SHA256] = true
		}
		var n int64
		gets := 0
		for _, r := range rs {
			i := strings.LastIndex(r.Path, "/blobs/")
			if r.Method == "GET" && i >= 0 && archives[r.Path[i+len("/blobs/"):]] {
				n += r.Bytes
				gets++
			}
		}
		return n, gets
	}

	b.ResetTimer()
	proxy.ResetRequests()
	syncWall, _, syncCPU := fleet()
	first := proxy.Requests()
	served, _ := archiveBytes(first, pinned)

	proxy.ResetRequests()
	recheckWall, each, recheckCPU := fleet()
	recheck := proxy.Requests()
	var lat []time.Duration
	var recheckServed int64
	for _, r := range recheck {
		lat = append(lat, r.Duration)
		recheckServed += r.Bytes
	}

	// One pack changes on the host, which pushes to the same tag.
	id := "fleet-pack-00"
	if err := os.WriteFile(filepath.Join(host.drop, id+".zip"), packZip(b, id, "1.0.1", mib<<20/packs), 0o644); err != nil {
		b.Fatal(err)
	}
	runTimed(b, env, "", binary, "sync", "--config", host.config)
	runTimed(b, env, "", binary, "export", "oci://"+reg.Ref("forge/set", "live"), "--config", host.config)
	lock2 := benchLock(b, env, host.config)
	var changed int64
	for _, p := range lock2.Packs {
		if p.ID == id {
			changed = p.Size
		}
	}
	proxy.ResetRequests()
	updateWall, _, updateCPU := fleet()
	update := proxy.Requests()
	updServed, updGets := archiveBytes(update, lock2)
	b.StopTimer()

	b.ReportMetric(float64(hosts), "hosts")
	b.ReportMetric(float64(setBytes)/(1<<20), "set-MiB")
	b.ReportMetric(syncWall.Seconds(), "sync-wall-s")
	b.ReportMetric(syncCPU.Seconds(), "sync-client-cpu-s")
	b.ReportMetric(float64(served)/float64(int64(hosts)*setBytes), "served/(hosts×set)")
	b.ReportMetric(float64(len(first))/float64(hosts), "sync-requests/host")
	b.ReportMetric(float64(len(recheck))/float64(hosts), "recheck-requests/host")
	b.ReportMetric(float64(recheckServed), "recheck-bytes-served")
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "recheck-request-p50-ms")
	b.ReportMetric(float64(slices.Max(lat).Microseconds())/1000, "recheck-request-max-ms")
	b.ReportMetric(recheckWall.Seconds(), "recheck-wall-s")
	b.ReportMetric(recheckCPU.Seconds(), "recheck-client-cpu-s")
	b.ReportMetric(float64(medianDur(each).Microseconds())/1000, "recheck-process-p50-ms")
	b.ReportMetric(float64(slices.Max(each).Microseconds())/1000, "recheck-process-max-ms")
	b.ReportMetric(updateWall.Seconds(), "update-wall-s")
	b.ReportMetric(updateCPU.Seconds(), "update-client-cpu-s")
	b.ReportMetric(float64(updServed)/float64(int64(hosts)*changed), "update-served/(hosts×pack)")
	b.ReportMetric(float64(updGets)/float64(hosts), "update-archive-blobs/host")
}

// BenchmarkOCIPush: `forgesync export oci://` of a 10-pack set of MIB MiB
// beside `oras push` of the same files (the folder export's) to fresh
// repositories of one local registry, REPS times each, alternating which
// goes first; then an unchanged re-push. It reports the medians of wall
// time and client CPU-seconds, their ratio, and the blob bytes the re-push
// uploaded. FORGESYNC_PUSH_MIB (default 200) and FORGESYNC_PUSH_REPS
// (default 3) shrink it.
func BenchmarkOCIPush(b *testing.B) {
	mib := envInt("FORGESYNC_PUSH_MIB", 200)
	reps := envInt("FORGESYNC_PUSH_REPS", 3)
	oras := registrytest.Oras(b)
	work := b.TempDir()
	env := ociBenchEnv(b)
	reg := registrytest.Start(b, registrytest.Options{})
	proxy := registrytest.NewProxy(b, reg)

	host := benchHost(b, env, filepath.Join(work, "host"), 10, mib)
	folder := filepath.Join(work, "export")
	runTimed(b, env, "", binary, "export", folder, "--config", host.config)
	files := []string{lock.LockName}
	entries, err := os.ReadDir(filepath.Join(folder, "packs"))
	if err != nil {
		b.Fatal(err)
	}
	var setBytes int64
	for _, e := range entries {
		files = append(files, "packs/"+e.Name())
		if fi, err := e.Info(); err == nil {
			setBytes += fi.Size()
		}
	}

	uploadedBytes := func() int64 {
		var n int64
		for _, r := range proxy.Requests() {
			if strings.Contains(r.Path, "/blobs/uploads/") {
				n += r.Uploaded
			}
		}
		return n
	}
	var fsWall, fsCPU, orasWall, orasCPU []time.Duration
	var fsUp, orasUp int64
	forgesync := func(i int) {
		proxy.ResetRequests()
		_, w, c := runTimed(b, env, "", binary, "export", "oci://"+proxy.Ref(fmt.Sprintf("push/fs%d", i), "live"), "--config", host.config)
		fsWall, fsCPU = append(fsWall, w), append(fsCPU, c)
		fsUp += uploadedBytes()
	}
	orasPush := func(i int) {
		proxy.ResetRequests()
		args := append([]string{"push", proxy.Ref(fmt.Sprintf("push/oras%d", i), "live"), "--plain-http", "--artifact-type", oci.ArtifactType}, files...)
		_, w, c := runTimed(b, env, folder, oras, args...)
		orasWall, orasCPU = append(orasWall, w), append(orasCPU, c)
		orasUp += uploadedBytes()
	}
	b.ResetTimer()
	for i := range reps {
		if i%2 == 0 {
			forgesync(i)
			orasPush(i)
		} else {
			orasPush(i)
			forgesync(i)
		}
	}
	proxy.ResetRequests()
	out, repushWall, _ := runTimed(b, env, "", binary, "export", "oci://"+proxy.Ref("push/fs0", "live"), "--config", host.config)
	uploaded := uploadedBytes()
	b.StopTimer()
	if !strings.Contains(out, "uploaded 0 blobs (0 bytes)") {
		b.Logf("the unchanged re-push said:\n%s", out)
	}

	b.ReportMetric(float64(setBytes)/(1<<20), "set-MiB")
	b.ReportMetric(float64(reps), "reps")
	// Each push sends the whole set once: the lock and signature are the
	// bytes over 1.
	b.ReportMetric(float64(fsUp)/float64(int64(reps)*setBytes), "forgesync-uploaded/set")
	b.ReportMetric(float64(orasUp)/float64(int64(reps)*setBytes), "oras-uploaded/set")
	b.ReportMetric(medianDur(fsWall).Seconds(), "forgesync-wall-s")
	b.ReportMetric(medianDur(orasWall).Seconds(), "oras-wall-s")
	b.ReportMetric(float64(medianDur(fsWall))/float64(medianDur(orasWall)), "wall-ratio")
	b.ReportMetric(medianDur(fsCPU).Seconds(), "forgesync-cpu-s")
	b.ReportMetric(medianDur(orasCPU).Seconds(), "oras-cpu-s")
	b.ReportMetric(float64(medianDur(fsCPU))/float64(medianDur(orasCPU)), "cpu-ratio")
	b.ReportMetric(repushWall.Seconds(), "repush-wall-s")
	b.ReportMetric(float64(uploaded), "repush-uploaded-bytes")
}
