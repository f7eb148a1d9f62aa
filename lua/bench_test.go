package lua_test

import (
	"testing"

	glua "github.com/yuin/gopher-lua"

	"github.com/mjolnir-forge/forgesync/lua/interp"
)

// benchWorld returns the tick and discover functions of a world with 20
// lift classes (16 used), perClass actors of each, 4 local bipeds in lifts,
// and the clock advancing stepMs per tick.
func benchWorld(b testing.TB, perClass int, stepMs float64) (*glua.LState, glua.LValue) {
	b.Helper()
	L, err := interp.New()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(L.Close)
	mod, err := interp.Require(L, "tests.bench")
	if err != nil {
		b.Fatal(err)
	}
	out, err := interp.Call(L, mod, "world", 1, glua.LNumber(20), glua.LNumber(perClass), glua.LNumber(4), glua.LNumber(stepMs))
	if err != nil {
		b.Fatal(err)
	}
	return L, out[0]
}

func run(b *testing.B, L *glua.LState, w glua.LValue, fn string) {
	f := L.GetField(w, fn)
	// Warm up (the first tick discovers), then check the world is at the
	// limits: 64 active lifts.
	if err := L.CallByParam(glua.P{Fn: f, Protect: true}); err != nil {
		b.Fatal(err)
	}
	out, err := interp.Call(L, w, "state", 4)
	if err != nil {
		b.Fatal(err)
	}
	if n := L.GetField(out[0], "active"); n != glua.LNumber(64) {
		b.Fatalf("active lifts = %v; want 64", n)
	}
	scripts := out[3].(glua.LNumber)
	if fn == "tick" && scripts != 4 {
		b.Fatalf("pushes in the first tick = %v; want 4 (one per biped)", scripts)
	}
	for b.Loop() {
		if err := L.CallByParam(glua.P{Fn: f, Protect: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	out, err = interp.Call(L, w, "state", 4)
	if err != nil {
		b.Fatal(err)
	}
	if fn == "tick" && out[3].(glua.LNumber) != scripts+4*glua.LNumber(b.N) {
		b.Fatalf("pushes = %v after %d ticks; want 4 per tick", out[3], b.N)
	}
	if stale := out[1].(*glua.LTable).Len(); stale != 0 || out[2] != glua.LNumber(0) {
		b.Fatalf("stale wrapper uses %d, global scans %v; want none", stale, out[2])
	}
}

// BenchmarkTick is one runtime tick with 64 active lifts and 4 local
// bipeds inside lifts, each pushed, when no discovery pass is due.
func BenchmarkTick(b *testing.B) {
	L, w := benchWorld(b, 4, 0)
	run(b, L, w, "tick")
}

// BenchmarkTickWithPasses is the same world at 30 Hz: the bipeds are near
// lifts, so a discovery pass falls due every 50 ms (two ticks in three)
// and its cost is included.
func BenchmarkTickWithPasses(b *testing.B) {
	L, w := benchWorld(b, 4, 1000.0/30)
	run(b, L, w, "tick")
}

// BenchmarkDiscovery is one discovery pass at the limits: 20 classes
// defined (16 resolved), 5 actors each (80, of which 64 become active).
func BenchmarkDiscovery(b *testing.B) {
	L, w := benchWorld(b, 5, 0)
	run(b, L, w, "discover")
}

// BenchmarkDiscoveryMoving is a discovery pass at the limits in which every
// actor moved since the last one, so every box is placed again and the
// grid rebuilt (the rotation of 80 actors in the simulated engine is
// included).
func BenchmarkDiscoveryMoving(b *testing.B) {
	L, w := benchWorld(b, 5, 0)
	run(b, L, w, "discover_moving")
}
