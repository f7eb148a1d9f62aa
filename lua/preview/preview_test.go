package preview

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.svg")

// foundryWide is SPEC §3.1's "Foundry Wide four-metre rise" on its 4×4×0.5 m
// pad.
var foundryWide = Lift{
	OffsetM: [3]float64{0, 0, 0.45}, SizeM: [3]float64{4, 4, 3.5}, Direction: [3]float64{0, 0, 1},
	AccelerationMS2: 20, MaxSpeedMS: 4.5, NegatesGravity: true, BlockM: [3]float64{4, 4, 0.5},
}

// goRide integrates a vertical ride in Go, independently of the Lua
// scripts, with the push rules of LUA.md and the engine's semi-implicit
// Euler step, and returns the exit tick's time, height and speed and the
// apex after it.
func goRide(l Lift, hz float64) (exitT, exitZ, exitV, apex float64) {
	dt := 1 / hz
	z, v := l.BlockM[2], 0.0
	carried, riding := -1.0, false
	bottom, top := l.OffsetM[2], l.OffsetM[2]+l.SizeM[2]
	exitT = -1
	for i := 1; i <= int(10*hz); i++ {
		if z >= bottom && z <= top {
			along := v
			if carried > along {
				along = carried
			}
			if along < l.MaxSpeedMS {
				along = math.Min(along+l.AccelerationMS2*dt, l.MaxSpeedMS)
			}
			v, carried, riding = along, along, true
			if l.NegatesGravity {
				v += gravityMS2 * dt
			}
		} else {
			carried = -1
		}
		v -= gravityMS2 * dt
		z += v * dt
		if z < l.BlockM[2] {
			z = l.BlockM[2]
			v = math.Max(v, 0)
		}
		if riding && exitT < 0 && z > top {
			exitT, exitZ, exitV, apex = float64(i)*dt, z, v, z
		}
		if exitT >= 0 {
			if z > apex {
				apex = z
			}
			if z < apex {
				return
			}
		}
	}
	return
}

func TestFoundryWideRide(t *testing.T) {
	r, err := Run(foundryWide, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.ColumnTopM != 3.95 {
		t.Errorf("ColumnTopM = %v; want 3.95", r.ColumnTopM)
	}
	if !r.Entered || !r.Exited {
		t.Fatalf("Entered, Exited = %v, %v; want both", r.Entered, r.Exited)
	}
	dt := 1.0 / 30
	if r.ExitHeightM <= 3.95 || r.ExitHeightM > 3.95+4.5*dt+1e-9 {
		t.Errorf("ExitHeightM = %v; want within one tick above 3.95", r.ExitHeightM)
	}
	// The script writer sends six decimals of WU/s, so speeds carry up to
	// 5e-7 WU/s (1.5e-6 m/s) of rounding.
	const textTol = 1e-5
	if math.Abs(r.ExitVerticalMS-4.5) > textTol {
		t.Errorf("ExitVerticalMS = %v; want 4.5 (the maximum speed)", r.ExitVerticalMS)
	}
	wantPred := r.ExitHeightM + 4.5*4.5/(2*gravityMS2)
	if math.Abs(r.PredictedApexM-wantPred) > textTol {
		t.Errorf("PredictedApexM = %v; want %v", r.PredictedApexM, wantPred)
	}
	if r.ApexHeightM > r.PredictedApexM+1e-9 || r.ApexHeightM < r.PredictedApexM-4.5*dt {
		t.Errorf("ApexHeightM = %v; want within one tick's travel below %v", r.ApexHeightM, r.PredictedApexM)
	}
	if r.ApexTimeS <= r.ExitTimeS {
		t.Errorf("ApexTimeS = %v; want after ExitTimeS %v", r.ApexTimeS, r.ExitTimeS)
	}
	if r.End != reentered {
		t.Errorf("End = %q; want %q (a vertical column catches the fall)", r.End, reentered)
	}
	// The same ride integrated in Go, without the text rounding.
	et, ez, ev, apex := goRide(foundryWide, 30)
	if math.Abs(et-r.ExitTimeS) > 1e-9 || math.Abs(ez-r.ExitHeightM) > textTol || math.Abs(ev-r.ExitVerticalMS) > textTol || math.Abs(apex-r.ApexHeightM) > textTol {
		t.Errorf("Lua ride exit %.6f s %.6f m %.6f m/s apex %.6f m; Go ride %.6f s %.6f m %.6f m/s apex %.6f m",
			r.ExitTimeS, r.ExitHeightM, r.ExitVerticalMS, r.ApexHeightM, et, ez, ev, apex)
	}
	if len(r.Log) != 0 {
		t.Errorf("runtime messages: %v", r.Log)
	}
}

func TestOtherLifts(t *testing.T) {
	cases := []struct {
		name    string
		lift    Lift
		opts    Options
		entered bool
		end     End
	}{
		{"slow without compensation", Lift{OffsetM: [3]float64{0, 0, 0.45}, SizeM: [3]float64{2, 2, 3}, Direction: [3]float64{0, 0, 1},
			AccelerationMS2: 30, MaxSpeedMS: 6, BlockM: [3]float64{2, 2, 0.5}}, Options{}, true, reentered},
		{"angled", Lift{OffsetM: [3]float64{0.5, -1.25, 0.45}, SizeM: [3]float64{2, 2, 6.75}, Direction: [3]float64{0, 0.6, 0.8},
			AccelerationMS2: 12.5, MaxSpeedMS: 4.5, BlockM: [3]float64{4, 4, 0.5}}, Options{}, true, ""},
		{"trigger above the deck", Lift{OffsetM: [3]float64{0, 0, 2}, SizeM: [3]float64{4, 4, 3}, Direction: [3]float64{0, 0, 1},
			AccelerationMS2: 20, MaxSpeedMS: 4.5, NegatesGravity: true, BlockM: [3]float64{4, 4, 0.5}}, Options{}, false, neverEntered},
		{"short time limit", foundryWide, Options{MaxSeconds: 0.2}, true, timeLimit},
		{"start inside at 60 Hz", foundryWide, Options{TickHz: 60, StartM: &[3]float64{1, 1, 2}}, true, reentered},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Run(c.lift, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Entered != c.entered {
				t.Errorf("Entered = %v; want %v", r.Entered, c.entered)
			}
			if c.end != "" && r.End != c.end {
				t.Errorf("End = %q; want %q", r.End, c.end)
			}
			if len(r.Samples) < 2 || r.Samples[0].TimeS != 0 {
				t.Fatalf("samples = %d, first at %v; want a ride from 0 s", len(r.Samples), r.Samples[0].TimeS)
			}
			hz := c.opts.TickHz
			if hz == 0 {
				hz = 30
			}
			if got := r.Samples[1].TimeS; math.Abs(got-1/hz) > 1e-12 {
				t.Errorf("second sample at %v s; want %v", got, 1/hz)
			}
			for _, s := range r.Samples {
				if s.PosM[2] < c.lift.BlockM[2]-1e-9 {
					t.Fatalf("sample at %v s below the block top: %v", s.TimeS, s.PosM)
				}
			}
			var buf bytes.Buffer
			if err := WriteSVG(&buf, r); err != nil {
				t.Fatal(err)
			}
			checkXML(t, buf.Bytes())
		})
	}
}

func TestInvalidLift(t *testing.T) {
	bad := foundryWide
	bad.SizeM[0] = 0.05
	_, err := Run(bad, Options{})
	if !errors.Is(err, errLift) || !strings.Contains(err.Error(), "size x") {
		t.Errorf("Run(size x 0.05) error = %v; want ErrLift naming size x", err)
	}
	bad = foundryWide
	bad.Direction = [3]float64{0, 0, 0.5}
	if _, err := Run(bad, Options{}); !errors.Is(err, errLift) || !strings.Contains(err.Error(), "unit vector") {
		t.Errorf("Run(direction 0 0 0.5) error = %v; want ErrLift naming the unit vector", err)
	}
	bad = foundryWide
	bad.MaxSpeedMS = math.NaN()
	if _, err := Run(bad, Options{}); !errors.Is(err, errLift) {
		t.Errorf("Run(NaN speed) error = %v; want ErrLift", err)
	}
	if _, err := Run(foundryWide, Options{TickHz: 0.5}); err == nil {
		t.Error("Run(0.5 Hz): no error")
	}
}

func TestRow(t *testing.T) {
	want := "/Game/MJOLNIR/Forge/lift-preview/Preview.Preview_C\tmjolnir\\forge\\lift-preview\\preview\t0\t0\t0.45\t4\t4\t3.5\t0\t0\t1\t20\t4.5\t1"
	if got := foundryWide.Row(); got != want {
		t.Errorf("Row() = %q; want %q", got, want)
	}
	l := foundryWide
	l.OffsetM[0] = math.Copysign(0, -1)
	l.NegatesGravity = false
	if got := l.Row(); !strings.HasSuffix(got, "\t0") || strings.Contains(got, "-0") {
		t.Errorf("Row() = %q; want -0 as 0 and negates 0", got)
	}
}

func checkXML(t *testing.T, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, b)
		}
	}
}

func TestSVGGolden(t *testing.T) {
	r, err := Run(foundryWide, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, r); err != nil {
		t.Fatal(err)
	}
	checkXML(t, buf.Bytes())
	for _, want := range []string{"column top 3.95 m", `class="apex"`, "apex 4.69 m", `class="column-top"`, `class="exit"`, "exit 0.87 s at 3.97 m"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	const golden = "testdata/foundry-wide.svg"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("WriteSVG differs from %s; run go test ./lua/preview -update and review the diff", golden)
	}
	if err := WriteSVG(io.Discard, Result{}); err == nil {
		t.Error("WriteSVG(no samples): no error")
	}
}

func TestSummary(t *testing.T) {
	r, err := Run(foundryWide, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summary()
	for _, want := range []string{"column top 3.95 m", "leaves the column through its top, at 0.87 s, 3.97 m up", "apex 4.69 m", "ride ends: re-entered", "not a landing guarantee"} {
		if !strings.Contains(s, want) {
			t.Errorf("Summary() lacks %q:\n%s", want, s)
		}
	}
	above := foundryWide
	above.OffsetM[2] = 2
	r, err = Run(above, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Summary(); !strings.Contains(s, "never pushes") {
		t.Errorf("Summary() of an unreachable lift:\n%s", s)
	}
}
