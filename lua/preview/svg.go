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
	plotW, plotH := svgW-padLeft-padRight, chartH-padTop-padBott
	x := func(t float64) float64 { return padLeft + t/tMax*plotW }
	y := func(z float64) float64 { return padTop + (zMax-z)/(zMax-zMin)*plotH }
	f := func(v float64) string { return fmt.Sprintf("%.2f", v) }

	// The side view's scale: metres the same both ways, the trigger box,
	// the block and the ride all in view.
	l := r.Lift
	ux, uy, sWhat, sTitle := sideAxis(l.Direction)
	along := func(p [3]float64) float64 { return (p[0]-l.OffsetM[0])*ux + (p[1]-l.OffsetM[1])*uy }
	half := math.Abs(ux)*l.SizeM[0]/2 + math.Abs(uy)*l.SizeM[1]/2
	blockC := along([3]float64{})
	blockHalf := math.Abs(ux)*l.BlockM[0]/2 + math.Abs(uy)*l.BlockM[1]/2
	sMin, sMax := math.Min(-half, blockC-blockHalf), math.Max(half, blockC+blockHalf)
	hMin, hMax := 0.0, r.ColumnTopM
	for _, s := range r.Samples {
		sMin, sMax = math.Min(sMin, along(s.PosM)), math.Max(sMax, along(s.PosM))
		hMin, hMax = math.Min(hMin, s.PosM[2]), math.Max(hMax, s.PosM[2])
	}
	sideTop := chartH + padTop
	sideW, sideHt := plotW, sideH-padTop-padBott
	k := math.Min(sideW/(1.1*(sMax-sMin)+1e-9), sideHt/(1.1*(hMax-hMin)+1e-9))
	sMid, hMid := (sMin+sMax)/2, (hMin+hMax)/2
	sMin, sMax = sMid-sideW/2/k, sMid+sideW/2/k
	hMin, hMax = hMid-sideHt/2/k, hMid+sideHt/2/k
	sx := func(s float64) float64 { return padLeft + (s-sMin)*k }
	sy := func(z float64) float64 { return sideTop + (hMax-z)*k }

	var timePts, sidePts []point
	for _, s := range r.Samples {
		timePts = append(timePts, point{x(s.TimeS), y(s.PosM[2])})
		sidePts = append(sidePts, point{sx(along(s.PosM)), sy(s.PosM[2])})
	}
	chart := &placer{curves: [][]point{timePts}, left: padLeft, top: padTop, right: svgW - padRight, bott: chartH - padBott}
	side := &placer{curves: [][]point{sidePts}, left: padLeft, top: sideTop, right: svgW - padRight, bott: sideTop + sideHt}

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12">`+"\n", f(svgW), f(svgH), f(svgW), f(svgH))
	fmt.Fprintf(bw, `<rect width="%s" height="%s" fill="white"/>`+"\n", f(svgW), f(svgH))
	title := fmt.Sprintf("lift %s m/s² to %s m/s, %s, box %s×%s×%s m at z %s m; %s Hz; %s",
		format(l.AccelerationMS2), format(l.MaxSpeedMS), map[bool]string{true: "negates gravity", false: "with gravity"}[l.NegatesGravity],
		format(l.SizeM[0]), format(l.SizeM[1]), format(l.SizeM[2]), format(l.OffsetM[2]), format(r.TickHz), r.End)
	fmt.Fprintf(bw, `<text x="%s" y="20" font-size="14">%s</text>`+"\n", f(padLeft), html.EscapeString(title))

	// The time chart. The trigger's height span, shaded.
	fmt.Fprintln(bw, `<g class="time-view">`)
	fmt.Fprintf(bw, `<rect class="trigger" x="%s" y="%s" width="%s" height="%s" fill="#dbeafe"/>`+"\n",
		f(padLeft), f(y(r.ColumnTopM)), f(plotW), f(y(l.OffsetM[2])-y(r.ColumnTopM)))

	// Axes and ticks.
	fmt.Fprintf(bw, `<g stroke="#444" stroke-width="1"><line x1="%s" y1="%s" x2="%s" y2="%s"/><line x1="%s" y1="%s" x2="%s" y2="%s"/></g>`+"\n",
		f(padLeft), f(padTop), f(padLeft), f(chartH-padBott), f(padLeft), f(chartH-padBott), f(svgW-padRight), f(chartH-padBott))
	ts := niceStep(tMax, 10)
	for t := 0.0; t <= tMax+1e-9; t += ts {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ccc"/><text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n",
			f(x(t)), f(padTop), f(x(t)), f(chartH-padBott), f(x(t)), f(chartH-padBott+16), format(math.Round(t*1000)/1000))
	}
	zs := niceStep(zMax-zMin, 8)
	for z := math.Ceil(zMin/zs) * zs; z <= zMax+1e-9; z += zs {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ccc"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
			f(padLeft), f(y(z)), f(svgW-padRight), f(y(z)), f(padLeft-6), f(y(z)+4), format(math.Round(z*1000)/1000))
	}
	fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="middle">time (s)</text>`+"\n", f(padLeft+plotW/2), f(chartH-10))
	fmt.Fprintf(bw, `<text x="16" y="%s" transform="rotate(-90 16 %s)" text-anchor="middle">height (m)</text>`+"\n", f(padTop+plotH/2), f(padTop+plotH/2))

	// Column top.
	fmt.Fprintf(bw, `<line class="column-top" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#2563eb" stroke-dasharray="6 4"/>`+"\n",
		f(padLeft), f(y(r.ColumnTopM)), f(svgW-padRight), f(y(r.ColumnTopM)))
	top := fmt.Sprintf("column top %.2f m", r.ColumnTopM)
	label(bw, chart.place(top, spot{svgW - padRight - 4, y(r.ColumnTopM) - 4, "end"}, spot{svgW - padRight - 4, y(r.ColumnTopM) + 16, "end"},
		spot{padLeft + 4, y(r.ColumnTopM) - 4, "start"}, spot{padLeft + 4, y(r.ColumnTopM) + 16, "start"}), "#2563eb", top)

	// Trajectory.
	fmt.Fprintf(bw, `<polyline class="height" fill="none" stroke="#111" stroke-width="2" points="%s"/>`+"\n", points(timePts))

	if r.Exited {
		fmt.Fprintf(bw, `<line class="exit" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#16a34a" stroke-dasharray="2 3"/>`+"\n",
			f(x(r.ExitTimeS)), f(padTop), f(x(r.ExitTimeS)), f(chartH-padBott))
		text := fmt.Sprintf("exit %.2f s at %.2f m, %.2f m/s", r.ExitTimeS, r.ExitHeightM, r.ExitSpeedMS)
		ex := x(r.ExitTimeS)
		label(bw, chart.place(text, spot{ex + 4, chartH - padBott - 8, "start"}, spot{ex - 4, chartH - padBott - 8, "end"},
			spot{ex + 4, padTop + 14, "start"}, spot{ex - 4, padTop + 14, "end"}), "#16a34a", text)
	}
	fmt.Fprintf(bw, `<circle class="apex" cx="%s" cy="%s" r="4" fill="#dc2626"/>`+"\n", f(x(r.ApexTimeS)), f(y(r.ApexHeightM)))
	apex := fmt.Sprintf("apex %.2f m at %.2f s", r.ApexHeightM, r.ApexTimeS)
	label(bw, chart.place(apex, around(x(r.ApexTimeS), y(r.ApexHeightM))...), "#dc2626", apex)
	fmt.Fprintln(bw, `</g>`)

	// The side view.
	fmt.Fprintln(bw, `<g class="side-view">`)
	fmt.Fprintf(bw, `<text x="%s" y="%s" font-size="13">side view: height against %s</text>`+"\n", f(padLeft), f(sideTop-14), html.EscapeString(sWhat))
	fmt.Fprintf(bw, `<rect class="block" x="%s" y="%s" width="%s" height="%s" fill="#e5e7eb" stroke="#9ca3af"/>`+"\n",
		f(sx(blockC-blockHalf)), f(sy(l.BlockM[2])), f(2*blockHalf*k), f(l.BlockM[2]*k))
	fmt.Fprintf(bw, `<rect class="trigger-box" x="%s" y="%s" width="%s" height="%s" fill="#dbeafe" stroke="#2563eb"/>`+"\n",
		f(sx(-half)), f(sy(r.ColumnTopM)), f(2*half*k), f(l.SizeM[2]*k))
	axisY := sideTop + sideHt
	fmt.Fprintf(bw, `<line class="s-axis" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/>`+"\n", f(padLeft), f(axisY), f(svgW-padRight), f(axisY))
	fmt.Fprintf(bw, `<line class="h-axis" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/>`+"\n", f(padLeft), f(sideTop), f(padLeft), f(axisY))
	ss := niceStep(sMax-sMin, 10)
	for s := math.Ceil(sMin/ss) * ss; s <= sMax+1e-9; s += ss {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/><text class="s-tick" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n",
			f(sx(s)), f(axisY), f(sx(s)), f(axisY+4), f(sx(s)), f(axisY+16), format(math.Round(s*1000)/1000))
	}
	hs := niceStep(hMax-hMin, 8)
	for h := math.Ceil(hMin/hs) * hs; h <= hMax+1e-9; h += hs {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
			f(padLeft-4), f(sy(h)), f(padLeft), f(sy(h)), f(padLeft-6), f(sy(h)+4), format(math.Round(h*1000)/1000))
	}
	fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(padLeft+sideW/2), f(axisY+34), html.EscapeString(sTitle))
	fmt.Fprintf(bw, `<text x="16" y="%s" transform="rotate(-90 16 %s)" text-anchor="middle">height (m)</text>`+"\n", f(sideTop+sideHt/2), f(sideTop+sideHt/2))
	fmt.Fprintf(bw, `<polyline class="side" fill="none" stroke="#111" stroke-width="2" points="%s"/>`+"\n", points(sidePts))
	fmt.Fprintf(bw, `<circle class="side-start" cx="%s" cy="%s" r="3" fill="#111"/>`+"\n", f(sidePts[0].x), f(sidePts[0].y))
	if r.Exited {
		i := exitIndex(r)
		p := sidePts[i]
		fmt.Fprintf(bw, `<circle class="side-exit" cx="%s" cy="%s" r="4" fill="#16a34a"/>`+"\n", f(p.x), f(p.y))
		text := fmt.Sprintf("exit %.2f s", r.ExitTimeS)
		label(bw, side.place(text, around(p.x, p.y)...), "#16a34a", text)
	}
	for i, s := range r.Samples {
		if s.TimeS == r.ApexTimeS {
			p := sidePts[i]
			fmt.Fprintf(bw, `<circle class="side-apex" cx="%s" cy="%s" r="4" fill="#dc2626"/>`+"\n", f(p.x), f(p.y))
			text := fmt.Sprintf("apex %.2f m", r.ApexHeightM)
			label(bw, side.place(text, around(p.x, p.y)...), "#dc2626", text)
			break
		}
	}
	fmt.Fprintln(bw, `</g>`)

	// The legend.
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
		fmt.Fprintf(bw, `<text x="%s" y="%s" font-size="11">%s</text>`+"\n", f(padLeft-48), f(chartH+sideH+14+float64(i)*16), html.EscapeString(line))
	}
	fmt.Fprintln(bw, `</g>`)
	fmt.Fprintln(bw, `</svg>`)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("preview svg: %w", err)
	}
	return nil
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
