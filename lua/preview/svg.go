package preview

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// SVG geometry, in user units: the time chart on top, the side view
// below it, the legend at the bottom.
const (
	svgW                               = 720.0
	chartH, sideH, legendH             = 440.0, 400.0, 132.0
	svgH                               = chartH + sideH + legendH
	padLeft, padRight, padTop, padBott = 64.0, 24.0, 48.0, 48.0
)

// Label boxes: 12-unit sans-serif text, estimated at 0.6 em a character,
// from 12 units above the baseline to 3 below.
const (
	charW             = 7.2
	labelUp, labelDwn = 12.0, 3.0
)

// niceStep returns a round tick step (1, 2 or 5 times a power of ten) that
// gives at most about n ticks over span.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// point is a position in user units.
type point struct{ x, y float64 }

// spot is where a label may go: its text anchor point and alignment.
type spot struct {
	x, y   float64
	anchor string // start, middle or end
}

// placer puts labels where they cross no trajectory and no label placed
// before, and stay inside a frame, trying each label's spots in turn.
type placer struct {
	curves                 [][]point
	left, top, right, bott float64
	taken                  [][4]float64 // boxes of the labels placed
}

// box is the label's estimated extent at s.
func box(text string, s spot) (x0, y0, x1, y1 float64) {
	w := charW * float64(utf8.RuneCountInString(text))
	x0 = s.x
	switch s.anchor {
	case "end":
		x0 -= w
	case "middle":
		x0 -= w / 2
	}
	return x0, s.y - labelUp, x0 + w, s.y + labelDwn
}

// place returns the first of spots where text fits the frame and crosses
// no curve and no other label, else the first spot.
func (p *placer) place(text string, spots ...spot) spot {
	pick := spots[0]
	for _, s := range spots {
		x0, y0, x1, y1 := box(text, s)
		if x0 < p.left || x1 > p.right || y0 < p.top || y1 > p.bott {
			continue
		}
		clear := true
		for _, c := range p.curves {
			for i := 1; i < len(c) && clear; i++ {
				clear = !crosses(c[i-1], c[i], x0, y0, x1, y1)
			}
		}
		for _, b := range p.taken {
			clear = clear && (x1 < b[0] || x0 > b[2] || y1 < b[1] || y0 > b[3])
		}
		if clear {
			pick = s
			break
		}
	}
	x0, y0, x1, y1 := box(text, pick)
	p.taken = append(p.taken, [4]float64{x0, y0, x1, y1})
	return pick
}

// crosses reports whether the segment a–b meets the box (Liang–Barsky
// clipping).
func crosses(a, b point, x0, y0, x1, y1 float64) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := b.x-a.x, b.y-a.y
	for _, c := range [4][2]float64{{-dx, a.x - x0}, {dx, x1 - a.x}, {-dy, a.y - y0}, {dy, y1 - a.y}} {
		if c[0] == 0 {
			if c[1] < 0 {
				return false
			}
			continue
		}
		r := c[1] / c[0]
		if c[0] < 0 {
			t0 = math.Max(t0, r)
		} else {
			t1 = math.Min(t1, r)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// around lists spots near (x, y) for a point label: right and left of it,
// above then below, moving further away.
func around(x, y float64) []spot {
	var s []spot
	for _, d := range []float64{0, 16, 32, 48} {
		s = append(s, spot{x + 6, y - 8 - d, "start"}, spot{x - 6, y - 8 - d, "end"},
			spot{x + 6, y + 16 + d, "start"}, spot{x - 6, y + 16 + d, "end"})
	}
	return s
}

// label writes a text of class "label" at s.
func label(w io.Writer, s spot, color, text string) {
	fmt.Fprintf(w, `<text class="label" x="%.2f" y="%.2f" text-anchor="%s" fill="%s">%s</text>`+"\n", s.x, s.y, s.anchor, color, html.EscapeString(text))
}

// sideAxis is the horizontal direction of the side view: the lift's
// direction without its vertical part, or x for a lift that pushes
// straight up, with what it is and the axis title.
func sideAxis(d [3]float64) (ux, uy float64, what, title string) {
	if n := math.Hypot(d[0], d[1]); n > 1e-9 {
		return d[0] / n, d[1] / n, "distance along the lift's direction", "distance along the lift's direction (m)"
	}
	return 1, 0, "x (the lift pushes straight up)", "x (m)"
}

// WriteSVG draws the ride in two views: height over time (the trajectory,
// the trigger's height span shaded, the column top, the exit and the apex)
// and a side view, height against the distance along the lift's
// horizontal direction, with the trigger box and the block drawn to scale,
// so a biped that leaves the box through its side is seen doing so. A
// legend explains the shading and the ride's possible ends. Labels are
// placed off the trajectories. The output is deterministic for a given
// result.
func WriteSVG(w io.Writer, r Result) error {
	if len(r.Samples) == 0 {
		return fmt.Errorf("preview svg: no samples")
	}
	bw := bufio.NewWriter(w)
	tv := newTimeView(r)
	sv := newSideView(r, tv.plotW)
	var timePts, sidePts []point
	for _, s := range r.Samples {
		timePts = append(timePts, point{tv.x(s.TimeS), tv.y(s.PosM[2])})
		sidePts = append(sidePts, point{sv.x(sv.along(s.PosM)), sv.y(s.PosM[2])})
	}

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12">`+"\n", coord(svgW), coord(svgH), coord(svgW), coord(svgH))
	fmt.Fprintf(bw, `<rect width="%s" height="%s" fill="white"/>`+"\n", coord(svgW), coord(svgH))
	l := r.Lift
	title := fmt.Sprintf("lift %s m/s² to %s m/s, %s, box %s×%s×%s m at z %s m; %s Hz; %s",
		format(l.AccelerationMS2), format(l.MaxSpeedMS), map[bool]string{true: "negates gravity", false: "with gravity"}[l.NegatesGravity],
		format(l.SizeM[0]), format(l.SizeM[1]), format(l.SizeM[2]), format(l.OffsetM[2]), format(r.TickHz), r.End)
	fmt.Fprintf(bw, `<text x="%s" y="20" font-size="14">%s</text>`+"\n", coord(padLeft), html.EscapeString(title))
	tv.write(bw, r, timePts)
	sv.write(bw, r, sidePts)
	writeLegend(bw)
	fmt.Fprintln(bw, `</svg>`)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("preview svg: %w", err)
	}
	return nil
}

// coord formats a coordinate or a length in user units.
func coord(v float64) string { return fmt.Sprintf("%.2f", v) }

// timeView is the time chart's scale: the ride's times from 0 to tMax
// across plotW units, its heights from zMin to zMax (with a tenth more
// above) down plotH units.
type timeView struct {
	tMax, zMin, zMax float64
	plotW, plotH     float64
}

// newTimeView scales the time chart to the ride, the column top and the
// trigger's bottom.
func newTimeView(r Result) timeView {
	tMax := r.Samples[len(r.Samples)-1].TimeS
	if tMax <= 0 {
		tMax = 1
	}
	zMin, zMax := 0.0, r.ColumnTopM
	for _, s := range r.Samples {
		zMin = math.Min(zMin, s.PosM[2])
		zMax = math.Max(zMax, s.PosM[2])
	}
	zMin = math.Min(zMin, r.Lift.OffsetM[2])
	zMax += 0.1 * (zMax - zMin)
	return timeView{tMax: tMax, zMin: zMin, zMax: zMax, plotW: svgW - padLeft - padRight, plotH: chartH - padTop - padBott}
}

// x is the abscissa of time t.
func (v timeView) x(t float64) float64 { return padLeft + t/v.tMax*v.plotW }

// y is the ordinate of height z.
func (v timeView) y(z float64) float64 { return padTop + (v.zMax-z)/(v.zMax-v.zMin)*v.plotH }

// write draws the time chart of r, whose trajectory is pts: the
// trigger's height span shaded, the axes and their ticks, the column top,
// the trajectory, the exit and the apex.
func (v timeView) write(bw io.Writer, r Result, pts []point) {
	chart := &placer{curves: [][]point{pts}, left: padLeft, top: padTop, right: svgW - padRight, bott: chartH - padBott}
	l := r.Lift
	fmt.Fprintln(bw, `<g class="time-view">`)
	fmt.Fprintf(bw, `<rect class="trigger" x="%s" y="%s" width="%s" height="%s" fill="#dbeafe"/>`+"\n",
		coord(padLeft), coord(v.y(r.ColumnTopM)), coord(v.plotW), coord(v.y(l.OffsetM[2])-v.y(r.ColumnTopM)))
	v.writeAxes(bw)

	// Column top.
	fmt.Fprintf(bw, `<line class="column-top" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#2563eb" stroke-dasharray="6 4"/>`+"\n",
		coord(padLeft), coord(v.y(r.ColumnTopM)), coord(svgW-padRight), coord(v.y(r.ColumnTopM)))
	top := fmt.Sprintf("column top %.2f m", r.ColumnTopM)
	label(bw, chart.place(top, spot{svgW - padRight - 4, v.y(r.ColumnTopM) - 4, "end"}, spot{svgW - padRight - 4, v.y(r.ColumnTopM) + 16, "end"},
		spot{padLeft + 4, v.y(r.ColumnTopM) - 4, "start"}, spot{padLeft + 4, v.y(r.ColumnTopM) + 16, "start"}), "#2563eb", top)

	// Trajectory.
	fmt.Fprintf(bw, `<polyline class="height" fill="none" stroke="#111" stroke-width="2" points="%s"/>`+"\n", points(pts))

	if r.Exited {
		fmt.Fprintf(bw, `<line class="exit" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#16a34a" stroke-dasharray="2 3"/>`+"\n",
			coord(v.x(r.ExitTimeS)), coord(padTop), coord(v.x(r.ExitTimeS)), coord(chartH-padBott))
		text := fmt.Sprintf("exit %.2f s at %.2f m, %.2f m/s", r.ExitTimeS, r.ExitHeightM, r.ExitSpeedMS)
		ex := v.x(r.ExitTimeS)
		label(bw, chart.place(text, spot{ex + 4, chartH - padBott - 8, "start"}, spot{ex - 4, chartH - padBott - 8, "end"},
			spot{ex + 4, padTop + 14, "start"}, spot{ex - 4, padTop + 14, "end"}), "#16a34a", text)
	}
	fmt.Fprintf(bw, `<circle class="apex" cx="%s" cy="%s" r="4" fill="#dc2626"/>`+"\n", coord(v.x(r.ApexTimeS)), coord(v.y(r.ApexHeightM)))
	apex := fmt.Sprintf("apex %.2f m at %.2f s", r.ApexHeightM, r.ApexTimeS)
	label(bw, chart.place(apex, around(v.x(r.ApexTimeS), v.y(r.ApexHeightM))...), "#dc2626", apex)
	fmt.Fprintln(bw, `</g>`)
}

// writeAxes draws the time chart's axes, their grid lines at round ticks
// and their titles.
func (v timeView) writeAxes(bw io.Writer) {
	fmt.Fprintf(bw, `<g stroke="#444" stroke-width="1"><line x1="%s" y1="%s" x2="%s" y2="%s"/><line x1="%s" y1="%s" x2="%s" y2="%s"/></g>`+"\n",
		coord(padLeft), coord(padTop), coord(padLeft), coord(chartH-padBott), coord(padLeft), coord(chartH-padBott), coord(svgW-padRight), coord(chartH-padBott))
	ts := niceStep(v.tMax, 10)
	for t := 0.0; t <= v.tMax+1e-9; t += ts {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ccc"/><text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n",
			coord(v.x(t)), coord(padTop), coord(v.x(t)), coord(chartH-padBott), coord(v.x(t)), coord(chartH-padBott+16), format(math.Round(t*1000)/1000))
	}
	zs := niceStep(v.zMax-v.zMin, 8)
	for z := math.Ceil(v.zMin/zs) * zs; z <= v.zMax+1e-9; z += zs {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ccc"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
			coord(padLeft), coord(v.y(z)), coord(svgW-padRight), coord(v.y(z)), coord(padLeft-6), coord(v.y(z)+4), format(math.Round(z*1000)/1000))
	}
	fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="middle">time (s)</text>`+"\n", coord(padLeft+v.plotW/2), coord(chartH-10))
	fmt.Fprintf(bw, `<text x="16" y="%s" transform="rotate(-90 16 %s)" text-anchor="middle">height (m)</text>`+"\n", coord(padTop+v.plotH/2), coord(padTop+v.plotH/2))
}

// sideView is the side view's scale: distances along the lift's
// horizontal direction (ux, uy) from sMin to sMax across w units,
// heights from hMin to hMax down h units from top, k units a metre both
// ways. The trigger box spans half metres either side of the lift's
// offset, the block blockHalf either side of blockC.
type sideView struct {
	lift                    Lift
	ux, uy                  float64
	what, title             string // the horizontal axis: what it is, its title
	half, blockC, blockHalf float64
	sMin, sMax, hMin, hMax  float64
	k, top, w, h            float64
}

// newSideView scales the side view so that the trigger box, the block and
// the ride are all in view, metres the same both ways, across plotW units.
func newSideView(r Result, plotW float64) sideView {
	l := r.Lift
	v := sideView{lift: l}
	v.ux, v.uy, v.what, v.title = sideAxis(l.Direction)
	v.half = math.Abs(v.ux)*l.SizeM[0]/2 + math.Abs(v.uy)*l.SizeM[1]/2
	v.blockC = v.along([3]float64{})
	v.blockHalf = math.Abs(v.ux)*l.BlockM[0]/2 + math.Abs(v.uy)*l.BlockM[1]/2
	sMin, sMax := math.Min(-v.half, v.blockC-v.blockHalf), math.Max(v.half, v.blockC+v.blockHalf)
	hMin, hMax := 0.0, r.ColumnTopM
	for _, s := range r.Samples {
		sMin, sMax = math.Min(sMin, v.along(s.PosM)), math.Max(sMax, v.along(s.PosM))
		hMin, hMax = math.Min(hMin, s.PosM[2]), math.Max(hMax, s.PosM[2])
	}
	v.top = chartH + padTop
	v.w, v.h = plotW, sideH-padTop-padBott
	v.k = math.Min(v.w/(1.1*(sMax-sMin)+1e-9), v.h/(1.1*(hMax-hMin)+1e-9))
	sMid, hMid := (sMin+sMax)/2, (hMin+hMax)/2
	v.sMin, v.sMax = sMid-v.w/2/v.k, sMid+v.w/2/v.k
	v.hMin, v.hMax = hMid-v.h/2/v.k, hMid+v.h/2/v.k
	return v
}

// along is the distance of p from the lift's offset along the lift's
// horizontal direction.
func (v sideView) along(p [3]float64) float64 {
	return (p[0]-v.lift.OffsetM[0])*v.ux + (p[1]-v.lift.OffsetM[1])*v.uy
}

// x is the abscissa of the distance s.
func (v sideView) x(s float64) float64 { return padLeft + (s-v.sMin)*v.k }

// y is the ordinate of height z.
func (v sideView) y(z float64) float64 { return v.top + (v.hMax-z)*v.k }

// write draws the side view of r, whose trajectory is pts: the block and
// the trigger box to scale, the axes and their ticks, the trajectory, its
// start, the exit and the apex.
func (v sideView) write(bw io.Writer, r Result, pts []point) {
	side := &placer{curves: [][]point{pts}, left: padLeft, top: v.top, right: svgW - padRight, bott: v.top + v.h}
	l := r.Lift
	fmt.Fprintln(bw, `<g class="side-view">`)
	fmt.Fprintf(bw, `<text x="%s" y="%s" font-size="13">side view: height against %s</text>`+"\n", coord(padLeft), coord(v.top-14), html.EscapeString(v.what))
	fmt.Fprintf(bw, `<rect class="block" x="%s" y="%s" width="%s" height="%s" fill="#e5e7eb" stroke="#9ca3af"/>`+"\n",
		coord(v.x(v.blockC-v.blockHalf)), coord(v.y(l.BlockM[2])), coord(2*v.blockHalf*v.k), coord(l.BlockM[2]*v.k))
	fmt.Fprintf(bw, `<rect class="trigger-box" x="%s" y="%s" width="%s" height="%s" fill="#dbeafe" stroke="#2563eb"/>`+"\n",
		coord(v.x(-v.half)), coord(v.y(r.ColumnTopM)), coord(2*v.half*v.k), coord(l.SizeM[2]*v.k))
	v.writeAxes(bw)
	fmt.Fprintf(bw, `<polyline class="side" fill="none" stroke="#111" stroke-width="2" points="%s"/>`+"\n", points(pts))
	fmt.Fprintf(bw, `<circle class="side-start" cx="%s" cy="%s" r="3" fill="#111"/>`+"\n", coord(pts[0].x), coord(pts[0].y))
	if r.Exited {
		i := exitIndex(r)
		p := pts[i]
		fmt.Fprintf(bw, `<circle class="side-exit" cx="%s" cy="%s" r="4" fill="#16a34a"/>`+"\n", coord(p.x), coord(p.y))
		text := fmt.Sprintf("exit %.2f s", r.ExitTimeS)
		label(bw, side.place(text, around(p.x, p.y)...), "#16a34a", text)
	}
	for i, s := range r.Samples {
		if s.TimeS == r.ApexTimeS {
			p := pts[i]
			fmt.Fprintf(bw, `<circle class="side-apex" cx="%s" cy="%s" r="4" fill="#dc2626"/>`+"\n", coord(p.x), coord(p.y))
			text := fmt.Sprintf("apex %.2f m", r.ApexHeightM)
			label(bw, side.place(text, around(p.x, p.y)...), "#dc2626", text)
			break
		}
	}
	fmt.Fprintln(bw, `</g>`)
}

// writeAxes draws the side view's axes, their round ticks and their
// titles.
func (v sideView) writeAxes(bw io.Writer) {
	axisY := v.top + v.h
	fmt.Fprintf(bw, `<line class="s-axis" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/>`+"\n", coord(padLeft), coord(axisY), coord(svgW-padRight), coord(axisY))
	fmt.Fprintf(bw, `<line class="h-axis" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/>`+"\n", coord(padLeft), coord(v.top), coord(padLeft), coord(axisY))
	ss := niceStep(v.sMax-v.sMin, 10)
	for s := math.Ceil(v.sMin/ss) * ss; s <= v.sMax+1e-9; s += ss {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/><text class="s-tick" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n",
			coord(v.x(s)), coord(axisY), coord(v.x(s)), coord(axisY+4), coord(v.x(s)), coord(axisY+16), format(math.Round(s*1000)/1000))
	}
	hs := niceStep(v.hMax-v.hMin, 8)
	for h := math.Ceil(v.hMin/hs) * hs; h <= v.hMax+1e-9; h += hs {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
			coord(padLeft-4), coord(v.y(h)), coord(padLeft), coord(v.y(h)), coord(padLeft-6), coord(v.y(h)+4), format(math.Round(h*1000)/1000))
	}
	fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", coord(padLeft+v.w/2), coord(axisY+34), html.EscapeString(v.title))
	fmt.Fprintf(bw, `<text x="16" y="%s" transform="rotate(-90 16 %s)" text-anchor="middle">height (m)</text>`+"\n", coord(v.top+v.h/2), coord(v.top+v.h/2))
}

// writeLegend draws the legend: the shading and the ride's possible ends.
func writeLegend(bw io.Writer) {
	fmt.Fprintln(bw, `<g class="legend">`)
	for i, line := range []string{
		"blue band: the trigger's height span; the biped is in the trigger only when also inside",
		"the box sideways (see the side view)",
		"ride ends: re-entered = fell back into the trigger after leaving it;",
		"landed = came down to the block top outside the trigger;",
		"never entered = the lift did not push the biped within the first second;",
		"time limit = the preview stopped before any of these",
		"a preview, not a landing guarantee: verify the trajectory and landing in your own layout",
	} {
		fmt.Fprintf(bw, `<text x="%s" y="%s" font-size="11">%s</text>`+"\n", coord(padLeft-48), coord(chartH+sideH+14+float64(i)*16), html.EscapeString(line))
	}
	fmt.Fprintln(bw, `</g>`)
}

// points renders a polyline's points attribute.
func points(ps []point) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.2f,%.2f", p.x, p.y)
	}
	return b.String()
}

// exitIndex is the sample at which the biped left the trigger.
func exitIndex(r Result) int {
	for i, s := range r.Samples {
		if s.TimeS == r.ExitTimeS {
			return i
		}
	}
	return len(r.Samples) - 1
}
