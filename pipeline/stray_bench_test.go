package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// envStrayLimit, when set (a duration: "300s"), ends a pass of
// BenchmarkStrayPass after that long: the rest stays in processing, and
// the figures say how many files the pass judged meanwhile.
const envStrayLimit = "FORGESYNC_BENCH_STRAY_LIMIT"

// BenchmarkStrayPass measures one pass over n stray files in drop (text
// files, not archives, each rejected as not an archive) as the daemon runs
// it: open with recovery, then a sync through the Runner with events on
// (claim, judge, record the rejections, move every file to drop/rejected/
// with its note), while a reader asks for the status over and over. It
// reports the wall and CPU seconds of the pass, the state files replaced,
// the tries appended and the bytes written into them, the flushes, how
// many files the pass judged, and how many status answers came and the
// longest one took (issue 35, item 18).
// Run: go test -run XXX -bench StrayPass -benchtime 1x ./pipeline
func BenchmarkStrayPass(b *testing.B) {
	for _, n := range []int{3000, 50000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				e := strayEnv(b, n)
				ctx := b.Context()
				if d, err := time.ParseDuration(os.Getenv(envStrayLimit)); err == nil {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, d)
					defer cancel()
				}
				events := &recorder{}
				opts := e.options()
				opts.Observer = events
				cpu, flushes, start := cpuTime(), atomicfile.Fsyncs(), time.Now()
				b.StartTimer()
				p, _, err := Open(ctx, opts)
				if err != nil {
					b.Fatal(err)
				}
				r := NewRunner(p, RunnerOptions{})
				rctx, stop := context.WithCancel(ctx)
				ran := make(chan error, 1)
				go func() { ran <- r.Run(rctx) }()
				answers, slowest := pollStatus(r, func() (*Summary, error) { return r.SyncDrop(ctx) }, b)
				b.StopTimer()
				stop()
				if err := <-ran; err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(start).Seconds(), "wall-s")
				b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s")
				b.ReportMetric(float64(p.writes.total()), "state-writes")
				b.ReportMetric(float64(p.writes.appends), "state-appends")
				b.ReportMetric(float64(p.writes.bytes), "state-bytes")
				b.ReportMetric(float64(atomicfile.Fsyncs()-flushes), "flushes")
				b.ReportMetric(float64(answers), "status-answers")
				b.ReportMetric(float64(slowest.Microseconds())/1000, "status-max-ms")
				b.ReportMetric(float64(len(events.events())), "events")
				p.Close()
				b.StartTimer()
			}
		})
	}
}

// strayEnv returns an env whose drop folder holds n stray text files.
func strayEnv(b *testing.B, n int) *env {
	e := newEnv(b)
	if err := os.MkdirAll(e.drop, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(e.drop, fmt.Sprintf("stray-%06d.txt", i)), fmt.Appendf(nil, "not a pack %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

// pollStatus runs pass and asks r for its status over and over until
// the pass returns; it returns how many answers came and the longest one
// took, and fails b when the pass judged no file.
func pollStatus(r *Runner, pass func() (*Summary, error), b *testing.B) (int, time.Duration) {
	done := make(chan struct{})
	var answers int
	var slowest time.Duration
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for {
			select {
			case <-done:
				return
			default:
			}
			t := time.Now()
			r.Status()
			slowest = max(slowest, time.Since(t))
			answers++
		}
	}()
	sum, err := pass()
	close(done)
	<-polled
	if err != nil || len(sum.Outcomes) == 0 {
		b.Fatalf("pass = %v outcomes, %v", sum, err)
	}
	b.ReportMetric(float64(len(sum.Outcomes)), "judged")
	return answers, slowest
}
