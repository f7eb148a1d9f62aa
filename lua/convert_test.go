package lua_test

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	glua "github.com/yuin/gopher-lua"

	"github.com/mjolnir-forge/forgesync/lua/interp"
)

const metresPerWU = 3.048

// goPhantom is the phantom of one lifts.txt row, computed in Go from the
// row's text with strconv, independently of pack_lifts.lua.
type goPhantom struct {
	class, tag           string
	center, half, dir    [3]float64
	acc, maxVel          float64
	negates              bool
	offset, size, rawDir [3]float64
}

func goConvert(t *testing.T, row string) goPhantom {
	t.Helper()
	f := strings.Split(row, "\t")
	if len(f) != 14 {
		t.Fatalf("row %q has %d fields; want 14", row, len(f))
	}
	num := func(i int) float64 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			t.Fatalf("row %q field %d: %v", row, i+1, err)
		}
		return v
	}
	var p goPhantom
	p.class, p.tag = f[0], f[1]
	for i := range 3 {
		p.offset[i] = num(2 + i)
		p.size[i] = num(5 + i)
		p.rawDir[i] = num(8 + i)
	}
	p.center = [3]float64{p.offset[0] / metresPerWU, p.offset[1] / metresPerWU, (p.offset[2] + p.size[2]/2) / metresPerWU}
	for i := range 3 {
		p.half[i] = p.size[i] / 2 / metresPerWU
	}
	l := math.Sqrt(p.rawDir[0]*p.rawDir[0] + p.rawDir[1]*p.rawDir[1] + p.rawDir[2]*p.rawDir[2])
	for i := range 3 {
		p.dir[i] = p.rawDir[i] / l
	}
	p.acc = num(11) / metresPerWU
	p.maxVel = num(12) / metresPerWU
	p.negates = f[13] == "1"
	return p
}

// frotationRows is Unreal's FRotationMatrix (rows = local X, Y, Z in
// Unreal world) for an FRotator in degrees.
func frotationRows(pitch, yaw, roll float64) [3][3]float64 {
	r := math.Pi / 180
	sp, cp := math.Sincos(pitch * r)
	sy, cy := math.Sincos(yaw * r)
	sr, cr := math.Sincos(roll * r)
	return [3][3]float64{
		{cp * cy, cp * sy, sp},
		{sr*sp*cy - cr*sy, sr*sp*sy + cr*cy, -sr * cp},
		{-(cr*sp*cy + sr*sy), cy*sr - cr*sp*sy, cr * cp},
	}
}

// unrealRoute maps an authored local point in metres on an actor at loc
// (cm) with the given rotation to Halo world units: authored metres to
// Unreal local cm (y negated), the FRotationMatrix rows, the location, then
// Unreal cm to Halo WU (y negated).
func unrealRoute(q [3]float64, loc [3]float64, rows [3][3]float64) [3]float64 {
	qu := [3]float64{100 * q[0], -100 * q[1], 100 * q[2]}
	w := loc
	for i := range 3 {
		for k := range 3 {
			w[k] += qu[i] * rows[i][k]
		}
	}
	k := 100 * metresPerWU
	return [3]float64{w[0] / k, -w[1] / k, w[2] / k}
}

func luaVec(t *testing.T, v glua.LValue, what string) [3]float64 {
	t.Helper()
	tbl, ok := v.(*glua.LTable)
	if !ok {
		t.Fatalf("%s = %v; want a table", what, v)
	}
	var out [3]float64
	for i := range 3 {
		n, ok := tbl.RawGetInt(i + 1).(glua.LNumber)
		if !ok {
			t.Fatalf("%s[%d] = %v; want a number", what, i+1, tbl.RawGetInt(i+1))
		}
		out[i] = float64(n)
	}
	return out
}

func num(t *testing.T, v glua.LValue, what string) float64 {
	t.Helper()
	n, ok := v.(glua.LNumber)
	if !ok {
		t.Fatalf("%s = %v; want a number", what, v)
	}
	return float64(n)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func nearVec(a, b [3]float64) bool { return near(a[0], b[0]) && near(a[1], b[1]) && near(a[2], b[2]) }

// conversionRows are the rows of the table test: the published lifts.txt
// (the pad and the angled lift, which the runtime suite also rotates), and
// rows at the limits.
var conversionRows = []string{
	"/Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftPad4x4.BP_LiftPad4x4_C\tmjolnir\\forge\\foundry-wide\\lift_pad_4x4\t0\t0\t0.45\t4\t4\t3.5\t0\t0\t1\t20\t4.5\t1",
	"/Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftAngled.BP_LiftAngled_C\tmjolnir\\forge\\foundry-wide\\lift_angled\t0.5\t-1.25\t0.45\t2\t2\t6.75\t0\t0.6\t0.8\t12.5\t4.5\t0",
	"/Game/MJOLNIR/Forge/edge/A/Min.Min_C\tmjolnir\\forge\\edge\\min\t-100\t-100\t-100\t0.1\t0.1\t0.1\t1\t0\t0\t0.1\t0.1\t0",
	"/Game/MJOLNIR/Forge/edge/A/Max.Max_C\tmjolnir\\forge\\edge\\max\t100\t100\t100\t100\t100\t100\t0\t-1\t0\t100\t30\t1",
	"/Game/MJOLNIR/Forge/edge/A/Loose.Loose_C\tmjolnir\\forge\\edge\\loose\t0.123\t-4.56\t7.89\t1.5\t2.25\t3.125\t0\t0\t1.0004\t9.81\t12.345\t1",
	"/Game/MJOLNIR/Forge/edge/A/Diag.Diag_C\tmjolnir\\forge\\edge\\diag\t-0.5\t0.5\t0\t3\t1\t2\t0.57735\t-0.57735\t0.57735\t50\t7.5\t0",
}

var conversionTransforms = []struct {
	loc              [3]float64
	pitch, yaw, roll float64
}{
	{[3]float64{0, 0, 0}, 0, 0, 0},
	{[3]float64{100, -50, 25}, 0, 90, 0},
	{[3]float64{200, -100, 50}, 30, 0, 0},
	{[3]float64{300, -150, 75}, 0, 0, 45},
	{[3]float64{400, -200, 100}, 20, -135, 70},
	{[3]float64{-3048, 6096, -304.8}, -80, 190, -135},
}

// TestConversionTable checks, for each row, that the phantom pack_lifts.lua
// produces matches the one computed here in Go, and that the trigger it
// places on rotated actors (world_box) matches the Unreal route computed
// here.
func TestConversionTable(t *testing.T) {
	L, err := interp.New()
	if err != nil {
		t.Fatal(err)
	}
	defer L.Close()
	pack, err := interp.Require(L, "pack_lifts")
	if err != nil {
		t.Fatal(err)
	}
	text := "forge-lifts 1\n" + strings.Join(conversionRows, "\n") + "\n"
	out, err := interp.Call(L, pack, "parse", 2, glua.LString(text))
	if err != nil {
		t.Fatal(err)
	}
	phs, errs := out[0].(*glua.LTable), out[1].(*glua.LTable)
	if errs.Len() != 0 {
		t.Fatalf("pack_lifts.parse rejected rows: %v", errs.RawGetInt(1))
	}
	byClass := map[string]*glua.LTable{}
	for i := 1; i <= phs.Len(); i++ {
		ph := phs.RawGetInt(i).(*glua.LTable)
		byClass[ph.RawGetString("class").String()] = ph
	}
	for _, row := range conversionRows {
		want := goConvert(t, row)
		ph := byClass[want.class]
		if ph == nil {
			t.Errorf("pack_lifts.parse: no phantom for %s", want.class)
			continue
		}
		if got := ph.RawGetString("tag").String(); got != want.tag {
			t.Errorf("%s: tag = %q; want %q", want.class, got, want.tag)
		}
		if got := luaVec(t, ph.RawGetString("center"), "center"); !nearVec(got, want.center) {
			t.Errorf("%s: center = %v; want %v", want.class, got, want.center)
		}
		if got := luaVec(t, ph.RawGetString("half_extents"), "half_extents"); !nearVec(got, want.half) {
			t.Errorf("%s: half_extents = %v; want %v", want.class, got, want.half)
		}
		if got := luaVec(t, ph.RawGetString("direction"), "direction"); !nearVec(got, want.dir) {
			t.Errorf("%s: direction = %v; want %v", want.class, got, want.dir)
		}
		if got := num(t, ph.RawGetString("direction_acc"), "direction_acc"); !near(got, want.acc) {
			t.Errorf("%s: direction_acc = %v; want %v", want.class, got, want.acc)
		}
		if got := num(t, ph.RawGetString("direction_max_vel"), "direction_max_vel"); !near(got, want.maxVel) {
			t.Errorf("%s: direction_max_vel = %v; want %v", want.class, got, want.maxVel)
		}
		flags := ph.RawGetString("flags").(*glua.LTable)
		if got := flags.RawGetString("negates_gravity") == glua.LTrue; got != want.negates {
			t.Errorf("%s: flags.negates_gravity = %v; want %v", want.class, got, want.negates)
		}

		for ti, tr := range conversionTransforms {
			tf := L.NewTable()
			loc := L.NewTable()
			for _, v := range tr.loc {
				loc.Append(glua.LNumber(v))
			}
			rot := L.NewTable()
			rot.RawSetString("pitch", glua.LNumber(tr.pitch))
			rot.RawSetString("yaw", glua.LNumber(tr.yaw))
			rot.RawSetString("roll", glua.LNumber(tr.roll))
			tf.RawSetString("location", loc)
			tf.RawSetString("rotation", rot)
			res, err := interp.Call(L, pack, "world_box", 1, ph, tf)
			if err != nil {
				t.Fatal(err)
			}
			box := res[0].(*glua.LTable)
			get := func(k string) float64 { return num(t, box.RawGetString(k), k) }
			rows := frotationRows(tr.pitch, tr.yaw, tr.roll)
			// The centre in metres, block-local, then the Unreal route.
			cm := [3]float64{want.center[0] * metresPerWU, want.center[1] * metresPerWU, want.center[2] * metresPerWU}
			wantC := unrealRoute(cm, tr.loc, rows)
			gotC := [3]float64{get("cx"), get("cy"), get("cz")}
			if !nearVec(gotC, wantC) {
				t.Errorf("%s transform %d: world centre = %v; want %v", want.class, ti, gotC, wantC)
			}
			tip := unrealRoute(want.dir, [3]float64{}, rows)
			wantD := [3]float64{tip[0] * metresPerWU, tip[1] * metresPerWU, tip[2] * metresPerWU}
			gotD := [3]float64{get("dx"), get("dy"), get("dz")}
			if !nearVec(gotD, wantD) {
				t.Errorf("%s transform %d: world direction = %v; want %v", want.class, ti, gotD, wantD)
			}
			// The local X axis of the box in Halo world.
			ax := unrealRoute([3]float64{metresPerWU, 0, 0}, [3]float64{}, rows)
			gotA := [3]float64{get("ax"), get("ay"), get("az")}
			if !nearVec(gotA, ax) {
				t.Errorf("%s transform %d: local X axis = %v; want %v", want.class, ti, gotA, ax)
			}
		}
	}
}

// TestPublishedLiftsFile parses the lifts.txt published for the example
// packs (a copy of the spec's testdata/companions/lifts.txt) and checks
// every row against the Go conversion.
func TestPublishedLiftsFile(t *testing.T) {
	text, err := os.ReadFile("testdata/lifts.txt")
	if err != nil {
		t.Fatal(err)
	}
	L, err := interp.New()
	if err != nil {
		t.Fatal(err)
	}
	defer L.Close()
	pack, err := interp.Require(L, "pack_lifts")
	if err != nil {
		t.Fatal(err)
	}
	out, err := interp.Call(L, pack, "parse", 2, glua.LString(text))
	if err != nil {
		t.Fatal(err)
	}
	phs, errs := out[0].(*glua.LTable), out[1].(*glua.LTable)
	if errs.Len() != 0 {
		t.Fatalf("pack_lifts.parse(testdata/lifts.txt) errors: %v", errs.RawGetInt(1))
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")[1:]
	if phs.Len() != len(lines) {
		t.Fatalf("pack_lifts.parse(testdata/lifts.txt) = %d phantoms; want %d", phs.Len(), len(lines))
	}
	for i, line := range lines {
		want := goConvert(t, line)
		ph := phs.RawGetInt(i + 1).(*glua.LTable)
		if got := luaVec(t, ph.RawGetString("center"), "center"); ph.RawGetString("class").String() != want.class || !nearVec(got, want.center) {
			t.Errorf("row %d: %s center %v; want %s %v", i+2, ph.RawGetString("class"), got, want.class, want.center)
		}
	}
}
