// Package preview owns the lift preview for authors (forgesync
// lift-preview): it rides a biped up one pack lift by running the real Lua
// scripts (pack_lifts.lua, lifts.lua, the script writer) in gopher-lua
// against the simulated engine, with Halo gravity and a fixed 30 Hz tick,
// reports when and where the biped leaves the column and the apex of its
// ballistic rise, and draws it as SVG: height over time, and a side view
// of height against the distance along the lift's direction with the
// trigger box.
package preview

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	glua "github.com/yuin/gopher-lua"

	"github.com/mjolnir-forge/forgesync/lua/interp"
)

// gravityMS2 is Halo 2's standard gravity in m/s²: 4.1712594 WU/s² at
// 3.048 m per WU.
const gravityMS2 = 4.1712594 * 3.048

// Lift is one block's lift as authored (SPEC §3.1), plus the block's size.
type Lift struct {
	OffsetM         [3]float64 `json:"offset_m"`  // the trigger's bottom centre, block-local metres
	SizeM           [3]float64 `json:"size_m"`    // the trigger's full size, metres
	Direction       [3]float64 `json:"direction"` // unit vector, block-local
	AccelerationMS2 float64    `json:"acceleration_m_s2"`
	MaxSpeedMS      float64    `json:"max_speed_m_s"`
	NegatesGravity  bool       `json:"negates_gravity"`
	// BlockM is the block's dimensions_m; the biped starts standing on
	// its top (z = BlockM[2]) and lands there.
	BlockM [3]float64 `json:"block_m"`
}

// Options tune the simulation; the zero value is the default.
type Options struct {
	// TickHz is the fixed simulation rate; 0 means 30.
	TickHz float64
	// MaxSeconds bounds the ride; 0 means 10.
	MaxSeconds float64
	// StartM is where the biped starts, block-local metres; nil means
	// standing on the block top above the trigger's bottom centre.
	StartM *[3]float64
}

// Sample is the biped's state at one tick.
type Sample struct {
	TimeS  float64    `json:"time_s"`
	PosM   [3]float64 `json:"pos_m"` // block-local metres; PosM[2] is the height
	VelMS  [3]float64 `json:"vel_m_s"`
	Inside bool       `json:"inside"` // in the trigger
	Pushed bool       `json:"pushed"` // the tick that ended here pushed it
}

// End says why a ride ended.
type End string

const (
	landed       End = "landed"        // back on the block top after the rise
	reentered    End = "re-entered"    // fell back into the trigger
	neverEntered End = "never entered" // never pushed within the first second
	timeLimit    End = "time limit"    // MaxSeconds passed
)

// Result is a preview's outcome. Heights are metres above the block's
// origin (its bottom), times seconds from the start.
type Result struct {
	Lift           Lift       `json:"lift"`
	TickHz         float64    `json:"tick_hz"`
	ColumnTopM     float64    `json:"column_top_m"` // top of the trigger box: offset z + size z
	StartM         [3]float64 `json:"start_m"`
	Entered        bool       `json:"entered"` // the lift pushed the biped at least once
	Exited         bool       `json:"exited"`  // the biped left the trigger after riding it
	ExitTimeS      float64    `json:"exit_time_s"`
	ExitHeightM    float64    `json:"exit_height_m"`     // height at the first tick outside the trigger
	ExitSpeedMS    float64    `json:"exit_speed_m_s"`    // speed at that tick
	ExitVerticalMS float64    `json:"exit_vertical_m_s"` // vertical speed at that tick
	// ExitThrough is the face of the trigger box the biped left through,
	// as the side view draws it: "top", "bottom", or a side, "+x", "-x",
	// "+y" or "-y" (block-local axes); empty when it never left.
	ExitThrough string  `json:"exit_through,omitempty"`
	ApexTimeS   float64 `json:"apex_time_s"`
	ApexHeightM float64 `json:"apex_height_m"` // highest point after leaving the column (the ride's highest otherwise)
	// PredictedApexM is exit height + v²/2g from the vertical speed at
	// exit: the continuous-time apex the fixed tick approximates.
	PredictedApexM float64  `json:"predicted_apex_m"`
	End            End      `json:"end"`
	Samples        []Sample `json:"samples"`
	Log            []string `json:"log"` // the runtime's messages
}

// errLift is returned, wrapped with the reason, when the lift's numbers
// are outside SPEC §3.1 (pack_lifts.lua's message says which field).
var errLift = errors.New("preview: invalid lift")

func format(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if s == "-0" {
		return "0"
	}
	return s
}

// Row returns the lifts.txt row (SPEC §6) of the lift, under a placeholder
// class and tag.
func (l Lift) Row() string {
	f := []string{"/Game/MJOLNIR/Forge/lift-preview/Preview.Preview_C", `mjolnir\forge\lift-preview\preview`}
	for _, v := range [][3]float64{l.OffsetM, l.SizeM, l.Direction} {
		for _, x := range v {
			f = append(f, format(x))
		}
	}
	f = append(f, format(l.AccelerationMS2), format(l.MaxSpeedMS))
	if l.NegatesGravity {
		f = append(f, "1")
	} else {
		f = append(f, "0")
	}
	return strings.Join(f, "\t")
}

// Run simulates a biped riding the lift and returns the ride.
func Run(l Lift, o Options) (Result, error) {
	if o.TickHz == 0 {
		o.TickHz = 30
	}
	if o.MaxSeconds == 0 {
		o.MaxSeconds = 10
	}
	if !(o.TickHz >= 1 && o.TickHz <= 1000) || !(o.MaxSeconds > 0 && o.MaxSeconds <= 120) {
		return Result{}, fmt.Errorf("preview: tick %v Hz and limit %v s: want 1-1000 Hz and 0-120 s", o.TickHz, o.MaxSeconds)
	}
	for i, v := range l.BlockM {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 256 {
			return Result{}, fmt.Errorf("%w: block dimension %d = %v: want 0-256 m", errLift, i, v)
		}
	}
	for _, v := range append(append(append(l.OffsetM[:], l.SizeM[:]...), l.Direction[:]...), l.AccelerationMS2, l.MaxSpeedMS) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Result{}, fmt.Errorf("%w: a number is not finite: %v", errLift, v)
		}
	}
	start := [3]float64{l.OffsetM[0], l.OffsetM[1], l.BlockM[2]}
	if o.StartM != nil {
		start = *o.StartM
	}
	res := Result{Lift: l, TickHz: o.TickHz, ColumnTopM: l.OffsetM[2] + l.SizeM[2], StartM: start}

	L, err := interp.New()
	if err != nil {
		return res, err
	}
	defer L.Close()
	mod, err := interp.Require(L, "sim.preview")
	if err != nil {
		return res, err
	}
	opts := L.NewTable()
	opts.RawSetString("floor_m", glua.LNumber(l.BlockM[2]))
	st := L.NewTable()
	for _, v := range start {
		st.Append(glua.LNumber(v))
	}
	opts.RawSetString("start_m", st)
	opts.RawSetString("tick_hz", glua.LNumber(o.TickHz))
	opts.RawSetString("max_s", glua.LNumber(o.MaxSeconds))
	out, err := interp.Call(L, mod, "run", 3, glua.LString("forge-lifts 1\n"+l.Row()+"\n"), opts)
	if err != nil {
		return res, err
	}
	samples, ok := out[0].(*glua.LTable)
	if !ok {
		return res, fmt.Errorf("%w: %s", errLift, out[1].String())
	}
	res.End = End(out[1].String())
	if logs, ok := out[2].(*glua.LTable); ok {
		for i := 1; i <= logs.Len(); i++ {
			res.Log = append(res.Log, logs.RawGetInt(i).String())
		}
	}
	col := func(name string, i int) float64 {
		n, _ := samples.RawGetString(name).(*glua.LTable).RawGetInt(i).(glua.LNumber)
		return float64(n)
	}
	flag := func(name string, i int) bool {
		return samples.RawGetString(name).(*glua.LTable).RawGetInt(i) == glua.LTrue
	}
	n := samples.RawGetString("t").(*glua.LTable).Len()
	res.Samples = make([]Sample, n)
	for i := range n {
		res.Samples[i] = Sample{
			TimeS:  col("t", i+1),
			PosM:   [3]float64{col("x", i+1), col("y", i+1), col("z", i+1)},
			VelMS:  [3]float64{col("vx", i+1), col("vy", i+1), col("vz", i+1)},
			Inside: flag("inside", i+1),
			Pushed: flag("pushed", i+1),
		}
	}
	res.analyse()
	return res, nil
}

// analyse finds the exit and the apex in the samples.
func (r *Result) analyse() {
	exit := -1
	for i, s := range r.Samples {
		if s.Pushed {
			r.Entered = true
		}
		if r.Entered && !s.Inside {
			exit = i
			break
		}
	}
	from := 0
	if exit >= 0 {
		s := r.Samples[exit]
		r.Exited = true
		r.ExitTimeS, r.ExitHeightM = s.TimeS, s.PosM[2]
		r.ExitSpeedMS = math.Sqrt(s.VelMS[0]*s.VelMS[0] + s.VelMS[1]*s.VelMS[1] + s.VelMS[2]*s.VelMS[2])
		r.ExitVerticalMS = s.VelMS[2]
		r.ExitThrough = r.Lift.face(s.PosM)
		r.PredictedApexM = s.PosM[2]
		if s.VelMS[2] > 0 {
			r.PredictedApexM += s.VelMS[2] * s.VelMS[2] / (2 * gravityMS2)
		}
		from = exit
	}
	apex := from
	for i := from; i < len(r.Samples); i++ {
		if r.Samples[i].PosM[2] > r.Samples[apex].PosM[2] {
			apex = i
		}
	}
	if len(r.Samples) > 0 {
		r.ApexTimeS, r.ApexHeightM = r.Samples[apex].TimeS, r.Samples[apex].PosM[2]
	}
}

// face returns the face of the trigger box that the point p, outside it,
// lies beyond the most: "top" or "bottom", or the side "+x", "-x", "+y" or
// "-y". The box is the lift's offset and size in block-local metres, as
// the runtime places it on an unrotated block.
func (l Lift) face(p [3]float64) string {
	best, out := "top", p[2]-(l.OffsetM[2]+l.SizeM[2])
	if below := l.OffsetM[2] - p[2]; below > out {
		best, out = "bottom", below
	}
	for i, axis := range []string{"x", "y"} {
		d := p[i] - l.OffsetM[i]
		sign := "+"
		if d < 0 {
			sign = "-"
		}
		if beyond := math.Abs(d) - l.SizeM[i]/2; beyond > out {
			best, out = sign+axis, beyond
		}
	}
	return best
}

// through says where the biped left the column, in words: "through its
// top", or "through its +y side, 1.20 m below its top".
func (r Result) through() string {
	switch r.ExitThrough {
	case "top", "bottom":
		return "through its " + r.ExitThrough
	}
	return fmt.Sprintf("through its %s side, %.2f m below its top", r.ExitThrough, r.ColumnTopM-r.ExitHeightM)
}

// Summary returns the ride in a few plain lines, for the command line.
func (r Result) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "column top %.2f m (trigger %.2f–%.2f m); biped starts at %.2f m; %g Hz\n",
		r.ColumnTopM, r.Lift.OffsetM[2], r.ColumnTopM, r.StartM[2], r.TickHz)
	switch {
	case !r.Entered:
		b.WriteString("the lift never pushes a biped starting there: its trigger does not reach it\n")
	case !r.Exited:
		fmt.Fprintf(&b, "the biped is still in the column after %.2f s\n", r.Samples[len(r.Samples)-1].TimeS)
	default:
		fmt.Fprintf(&b, "leaves the column %s, at %.2f s, %.2f m up, at %.2f m/s (%.2f m/s upward)\n",
			r.through(), r.ExitTimeS, r.ExitHeightM, r.ExitSpeedMS, r.ExitVerticalMS)
		fmt.Fprintf(&b, "apex %.2f m at %.2f s (%.2f m from the exit speed without the fixed tick)\n",
			r.ApexHeightM, r.ApexTimeS, r.PredictedApexM)
	}
	fmt.Fprintf(&b, "ride ends: %s\n", r.End)
	b.WriteString("a preview, not a landing guarantee: verify the trajectory and landing in your own layout\n")
	return b.String()
}
