package preview

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// SVG geometry, in user units.
const (
	svgW, svgH                         = 720.0, 440.0
	padLeft, padRight, padTop, padBott = 64.0, 24.0, 48.0, 48.0
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

// WriteSVG draws the ride's height over time: the trajectory, the trigger
// (shaded below the column top, with the top marked), the exit and the
// apex. The output is deterministic for a given result.
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
	plotW, plotH := svgW-padLeft-padRight, svgH-padTop-padBott
	x := func(t float64) float64 { return padLeft + t/tMax*plotW }
	y := func(z float64) float64 { return padTop + (zMax-z)/(zMax-zMin)*plotH }
	f := func(v float64) string { return fmt.Sprintf("%.2f", v) }

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12">`+"\n", f(svgW), f(svgH), f(svgW), f(svgH))
	fmt.Fprintf(bw, `<rect width="%s" height="%s" fill="white"/>`+"\n", f(svgW), f(svgH))
	l := r.Lift
	title := fmt.Sprintf("lift %s m/s² to %s m/s, %s, box %s×%s×%s m at z %s m; %s Hz; %s",
		format(l.AccelerationMS2), format(l.MaxSpeedMS), map[bool]string{true: "negates gravity", false: "with gravity"}[l.NegatesGravity],
		format(l.SizeM[0]), format(l.SizeM[1]), format(l.SizeM[2]), format(l.OffsetM[2]), format(r.TickHz), r.End)
	fmt.Fprintf(bw, `<text x="%s" y="20" font-size="14">%s</text>`+"\n", f(padLeft), html.EscapeString(title))

	// The trigger's height span, shaded.
	fmt.Fprintf(bw, `<rect class="trigger" x="%s" y="%s" width="%s" height="%s" fill="#dbeafe"/>`+"\n",
		f(padLeft), f(y(r.ColumnTopM)), f(plotW), f(y(l.OffsetM[2])-y(r.ColumnTopM)))

	// Axes and ticks.
	fmt.Fprintf(bw, `<g stroke="#444" stroke-width="1"><line x1="%s" y1="%s" x2="%s" y2="%s"/><line x1="%s" y1="%s" x2="%s" y2="%s"/></g>`+"\n",
		f(padLeft), f(padTop), f(padLeft), f(svgH-padBott), f(padLeft), f(svgH-padBott), f(svgW-padRight), f(svgH-padBott))
	ts := niceStep(tMax, 10)
	for t := 0.0; t <= tMax+1e-9; t += ts {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ccc"/><text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n",
			f(x(t)), f(padTop), f(x(t)), f(svgH-padBott), f(x(t)), f(svgH-padBott+16), format(math.Round(t*1000)/1000))
	}
	zs := niceStep(zMax-zMin, 8)
	for z := math.Ceil(zMin/zs) * zs; z <= zMax+1e-9; z += zs {
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ccc"/><text x="%s" y="%s" text-anchor="end">%s</text>`+"\n",
			f(padLeft), f(y(z)), f(svgW-padRight), f(y(z)), f(padLeft-6), f(y(z)+4), format(math.Round(z*1000)/1000))
	}
	fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="middle">time (s)</text>`+"\n", f(padLeft+plotW/2), f(svgH-10))
	fmt.Fprintf(bw, `<text x="16" y="%s" transform="rotate(-90 16 %s)" text-anchor="middle">height (m)</text>`+"\n", f(padTop+plotH/2), f(padTop+plotH/2))

	// Column top.
	fmt.Fprintf(bw, `<line class="column-top" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#2563eb" stroke-dasharray="6 4"/>`+"\n",
		f(padLeft), f(y(r.ColumnTopM)), f(svgW-padRight), f(y(r.ColumnTopM)))
	fmt.Fprintf(bw, `<text x="%s" y="%s" text-anchor="end" fill="#2563eb">column top %s m</text>`+"\n",
		f(svgW-padRight-4), f(y(r.ColumnTopM)-4), fmt.Sprintf("%.2f", r.ColumnTopM))

	// Trajectory.
	var pts strings.Builder
	for i, s := range r.Samples {
		if i > 0 {
			pts.WriteByte(' ')
		}
		pts.WriteString(f(x(s.TimeS)) + "," + f(y(s.PosM[2])))
	}
	fmt.Fprintf(bw, `<polyline class="height" fill="none" stroke="#111" stroke-width="2" points="%s"/>`+"\n", pts.String())

	if r.Exited {
		fmt.Fprintf(bw, `<line class="exit" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#16a34a" stroke-dasharray="2 3"/>`+"\n",
			f(x(r.ExitTimeS)), f(padTop), f(x(r.ExitTimeS)), f(svgH-padBott))
		fmt.Fprintf(bw, `<text x="%s" y="%s" fill="#16a34a">exit %s s at %s m, %s m/s</text>`+"\n",
			f(x(r.ExitTimeS)+4), f(svgH-padBott-8), fmt.Sprintf("%.2f", r.ExitTimeS), fmt.Sprintf("%.2f", r.ExitHeightM), fmt.Sprintf("%.2f", r.ExitSpeedMS))
	}
	fmt.Fprintf(bw, `<circle class="apex" cx="%s" cy="%s" r="4" fill="#dc2626"/>`+"\n", f(x(r.ApexTimeS)), f(y(r.ApexHeightM)))
	fmt.Fprintf(bw, `<text x="%s" y="%s" fill="#dc2626">apex %s m at %s s</text>`+"\n",
		f(x(r.ApexTimeS)+6), f(y(r.ApexHeightM)-8), fmt.Sprintf("%.2f", r.ApexHeightM), fmt.Sprintf("%.2f", r.ApexTimeS))
	fmt.Fprintln(bw, `</svg>`)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("preview svg: %w", err)
	}
	return nil
}
