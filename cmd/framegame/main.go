// Command framegame is the stand-in game of scripts/bench-frames.sh: a
// 60 Hz loop on one locked thread that does a fixed amount of processor
// work per frame (as much as takes 8 ms on an idle core) and records how
// long each frame's work took. Run with -calibrate it prints the amount of
// work that takes -work on this machine; run with -iters it plays until
// interrupted (SIGINT or SIGTERM) or for -for, then prints the frame
// times: p50, p99, max, and the frames whose work overran the frame.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"syscall"
	"time"
)

// sink keeps the work from being optimised away.
var sink uint64

// spin does n rounds of xorshift: processor work with no memory traffic.
func spin(n int) {
	x := uint64(88172645463325252) + sink
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	sink = x
}

// calibrate returns the rounds of spin that take work, from the fastest
// of many short runs: the speed of an idle core.
func calibrate(work time.Duration) int {
	const n = 1 << 20
	best := time.Duration(1 << 62)
	for range 60 {
		t := time.Now()
		spin(n)
		best = min(best, time.Since(t))
	}
	return int(float64(n) * float64(work) / float64(best))
}

func main() {
	work := flag.Duration("work", 8*time.Millisecond, "processor work per frame, on an idle core")
	hz := flag.Float64("hz", 60, "frames per second")
	iters := flag.Int("iters", 0, "rounds of work per frame (from -calibrate); 0 calibrates now")
	cal := flag.Bool("calibrate", false, "print the rounds of work that take -work, and exit")
	run := flag.Duration("for", 0, "play this long (0: until interrupted)")
	flag.Parse()
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()
	if *cal {
		fmt.Println(calibrate(*work))
		return
	}
	n := *iters
	if n <= 0 {
		n = calibrate(*work)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	var end <-chan time.Time
	if *run > 0 {
		end = time.After(*run)
	}
	period := time.Duration(float64(time.Second) / *hz)
	frames := make([]time.Duration, 0, 1<<16)
	next := time.Now()
	for {
		select {
		case <-stop:
			report(frames, period)
			return
		case <-end:
			report(frames, period)
			return
		default:
		}
		start := time.Now()
		spin(n)
		frames = append(frames, time.Since(start))
		next = next.Add(period)
		if wait := time.Until(next); wait > 0 {
			time.Sleep(wait)
		} else {
			next = time.Now() // a late frame: the next one starts now
		}
	}
}

// report prints the frame times: count, p50, p99, max in milliseconds,
// and the frames whose work took longer than a frame.
func report(frames []time.Duration, period time.Duration) {
	if len(frames) == 0 {
		fmt.Println("frames=0")
		return
	}
	slices.Sort(frames)
	at := func(q float64) time.Duration { return frames[min(len(frames)-1, int(q*float64(len(frames))))] }
	late := 0
	for _, f := range frames {
		if f > period {
			late++
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	fmt.Printf("frames=%d p50=%.2f p99=%.2f max=%.2f late=%d\n", len(frames), ms(at(0.50)), ms(at(0.99)), ms(frames[len(frames)-1]), late)
}
