package preview

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// angled is the angled lift of TestOtherLifts: it pushes 0.6 sideways
// for 0.8 up, so the rider leaves its 2 m wide box through the side long
// before reaching the column top.
var angled = Lift{OffsetM: [3]float64{0.5, -1.25, 0.45}, SizeM: [3]float64{2, 2, 6.75}, Direction: [3]float64{0, 0.6, 0.8},
	AccelerationMS2: 12.5, MaxSpeedMS: 4.5, BlockM: [3]float64{4, 4, 0.5}}

// elem is an SVG element as the tests read it.
type elem struct {
	name  string
	attr  map[string]string
	text  string
	group string // class of the enclosing <g>, if any
}

func parseSVG(t *testing.T, b []byte) []elem {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var out []elem
	var groups []string
	open := -1
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := elem{name: tok.Name.Local, attr: map[string]string{}}
			for _, a := range tok.Attr {
				e.attr[a.Name.Local] = a.Value
			}
			for i := len(groups) - 1; i >= 0; i-- {
				if groups[i] != "" {
					e.group = groups[i]
					break
				}
			}
			if e.name == "g" {
				groups = append(groups, e.attr["class"])
			}
			out = append(out, e)
			open = len(out) - 1
		case xml.CharData:
			if open >= 0 {
				out[open].text += string(tok)
			}
		case xml.EndElement:
			if tok.Name.Local == "g" {
				groups = groups[:len(groups)-1]
			}
			open = -1
		}
	}
	return out
}

func num(t *testing.T, e elem, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attr[name], 64)
	if err != nil {
		t.Fatalf("<%s class=%q> %s=%q: %v", e.name, e.attr["class"], name, e.attr[name], err)
	}
	return v
}

func find(t *testing.T, es []elem, group, name, class string) elem {
	t.Helper()
	for _, e := range es {
		if e.group == group && e.name == name && e.attr["class"] == class {
			return e
		}
	}
	t.Fatalf("no <%s class=%q> in <g class=%q>", name, class, group)
	return elem{}
}

// TestSideView: an angled lift's SVG has a side view, height against the
// distance along the lift's horizontal direction, with a horizontal axis
// and the trigger box; the rider's exit point there lies beside the box,
// below its top, where the time chart alone shows it inside the band.
func TestSideView(t *testing.T) {
	r, err := Run(angled, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Exited || r.ExitHeightM >= r.ColumnTopM || r.ExitTimeS > 0.5 {
		t.Fatalf("angled ride: exit %v at %.2f s, %.2f m (column top %.2f m); want a sideways exit by 0.5 s", r.Exited, r.ExitTimeS, r.ExitHeightM, r.ColumnTopM)
	}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, r); err != nil {
		t.Fatal(err)
	}
	es := parseSVG(t, buf.Bytes())

	axis := find(t, es, "side-view", "line", "s-axis")
	if num(t, axis, "y1") != num(t, axis, "y2") || num(t, axis, "x2")-num(t, axis, "x1") < 300 {
		t.Fatalf("side view axis %v: want a long horizontal line", axis.attr)
	}
	var label bool
	var ticks []float64
	for _, e := range es {
		if e.group == "side-view" && e.name == "text" && e.text == "distance along the lift's direction (m)" {
			label = true
		}
		if e.group == "side-view" && e.name == "text" && e.attr["class"] == "s-tick" {
			v, err := strconv.ParseFloat(e.text, 64)
			if err != nil {
				t.Fatalf("tick %q: %v", e.text, err)
			}
			if len(ticks) > 0 && v <= ticks[len(ticks)-1] {
				t.Fatalf("side view ticks not increasing: %v then %v", ticks, v)
			}
			ticks = append(ticks, v)
		}
	}
	if !label || len(ticks) < 3 {
		t.Fatalf("side view: axis label %v, ticks %v; want the label and at least 3 ticks", label, ticks)
	}

	box := find(t, es, "side-view", "rect", "trigger-box")
	bx, by, bw, bh := num(t, box, "x"), num(t, box, "y"), num(t, box, "width"), num(t, box, "height")
	// The box is 2 m wide along the direction (0, 1) and 6.75 m high.
	if ratio := bh / bw; ratio < 3.3 || ratio > 3.45 {
		t.Errorf("trigger box %v×%v px: want 6.75 m by 2 m at one scale", bw, bh)
	}
	exit := find(t, es, "side-view", "circle", "side-exit")
	ex, ey := num(t, exit, "cx"), num(t, exit, "cy")
	if ex <= bx+bw || ey <= by || ey >= by+bh {
		t.Errorf("exit point (%v, %v) vs box x %v–%v, y %v–%v: want it beside the box, below its top", ex, ey, bx, bx+bw, by, by+bh)
	}
	start := find(t, es, "side-view", "circle", "side-start")
	if sx := num(t, start, "cx"); sx <= bx || sx >= bx+bw {
		t.Errorf("start point x %v outside the box %v–%v", sx, bx, bx+bw)
	}
	find(t, es, "side-view", "polyline", "side")
}

// TestLegendExplainsEnds: the legend says what each way a ride ends means.
func TestLegendExplainsEnds(t *testing.T) {
	r, err := Run(foundryWide, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, r); err != nil {
		t.Fatal(err)
	}
	var legend []string
	for _, e := range parseSVG(t, buf.Bytes()) {
		if e.group == "legend" && e.name == "text" {
			legend = append(legend, e.text)
		}
	}
	all := strings.Join(legend, "\n")
	for _, want := range []string{
		"ride ends: re-entered = fell back into the trigger after leaving it;\nlanded = came down to the block top outside the trigger;\n",
		"never entered = the lift did not push the biped within the first second;\ntime limit = the preview stopped before any of these\n",
		"blue band: the trigger's height span; the biped is in the trigger only when also inside\nthe box sideways (see the side view)\n",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("legend lacks %q:\n%s", want, all)
		}
	}
}

// TestLabelsOffTheCurve: no label's box (12 px text, 0.6 em a character)
// crosses a trajectory, in either view, for the lifts of the tests.
func TestLabelsOffTheCurve(t *testing.T) {
	for name, l := range map[string]Lift{"foundry wide": foundryWide, "angled": angled} {
		r, err := Run(l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteSVG(&buf, r); err != nil {
			t.Fatal(err)
		}
		es := parseSVG(t, buf.Bytes())
		var curves [][][2]float64
		for _, e := range es {
			if e.name != "polyline" {
				continue
			}
			var pts [][2]float64
			for _, p := range strings.Fields(e.attr["points"]) {
				xy := strings.Split(p, ",")
				x, _ := strconv.ParseFloat(xy[0], 64)
				y, _ := strconv.ParseFloat(xy[1], 64)
				pts = append(pts, [2]float64{x, y})
			}
			curves = append(curves, pts)
		}
		labels := 0
		var boxes [][4]float64
		for _, e := range es {
			if e.name != "text" || e.attr["class"] != "label" {
				continue
			}
			labels++
			w := 7.2 * float64(utf8.RuneCountInString(e.text))
			x0 := num(t, e, "x")
			switch e.attr["text-anchor"] {
			case "end":
				x0 -= w
			case "middle":
				x0 -= w / 2
			}
			y1 := num(t, e, "y") + 3
			x1, y0 := x0+w, y1-15
			for _, b := range boxes {
				if x1 >= b[0] && x0 <= b[2] && y1 >= b[1] && y0 <= b[3] {
					t.Errorf("%s: label %q overlaps another label", name, e.text)
				}
			}
			boxes = append(boxes, [4]float64{x0, y0, x1, y1})
			for _, c := range curves {
				for i := 1; i < len(c); i++ {
					if segmentHitsBox(c[i-1], c[i], x0, y0, x1, y1) {
						t.Errorf("%s: label %q (%.0f,%.0f)–(%.0f,%.0f) crosses the curve at %v–%v", name, e.text, x0, y0, x1, y1, c[i-1], c[i])
						break
					}
				}
			}
		}
		if labels < 4 {
			t.Errorf("%s: %d labels; want the column top, exit and apex ones", name, labels)
		}
	}
}

// segmentHitsBox reports whether the segment a–b meets the box, by
// clipping it (Liang–Barsky).
func segmentHitsBox(a, b [2]float64, x0, y0, x1, y1 float64) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := b[0]-a[0], b[1]-a[1]
	for _, c := range [][2]float64{{-dx, a[0] - x0}, {dx, x1 - a[0]}, {-dy, a[1] - y0}, {dy, y1 - a[1]}} {
		p, q := c[0], c[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		r := q / p
		if p < 0 {
			t0 = max(t0, r)
		} else {
			t1 = min(t1, r)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// TestJSONSnakeCase: --json writes snake_case keys, as every other JSON
// output does.
func TestJSONSnakeCase(t *testing.T) {
	r, err := Run(angled, Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	keys := regexp.MustCompile(`"([^"]+)":`).FindAllStringSubmatch(string(data), -1)
	seen := map[string]bool{}
	for _, k := range keys {
		if !regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`).MatchString(k[1]) {
			t.Errorf("JSON key %q is not snake_case", k[1])
		}
		seen[k[1]] = true
	}
	for _, want := range []string{"lift", "offset_m", "acceleration_m_s2", "max_speed_m_s", "negates_gravity", "block_m", "tick_hz", "column_top_m",
		"exit_time_s", "exit_height_m", "apex_height_m", "predicted_apex_m", "end", "samples", "time_s", "pos_m", "vel_m_s", "inside", "pushed"} {
		if !seen[want] {
			t.Errorf("JSON lacks %q: %.300s", want, data)
		}
	}
}

// TestSummarySaysWhere: the text says where the rider leaves the column,
// as the side view draws it: the angled lift through the side it pushes
// towards, below the column top; the straight one through its top.
func TestSummarySaysWhere(t *testing.T) {
	r, err := Run(angled, Options{})
	if err != nil {
		t.Fatal(err)
	}
	below := r.ColumnTopM - r.ExitHeightM
	want := "leaves the column through its +y side, " + strconv.FormatFloat(below, 'f', 2, 64) + " m below its top, at "
	if r.ExitThrough != "+y" || below < 1 || !strings.Contains(r.Summary(), want) {
		t.Fatalf("angled ride: through %q, %.2f m below the top; Summary() =\n%s\nwant %q", r.ExitThrough, below, r.Summary(), want)
	}
	down := angled
	down.Direction = [3]float64{0, -0.6, 0.8}
	if r, err := Run(down, Options{}); err != nil || r.ExitThrough != "-y" || !strings.Contains(r.Summary(), "through its -y side") {
		t.Fatalf("angled the other way: %v, through %q\n%s", err, r.ExitThrough, r.Summary())
	}
	r, err = Run(foundryWide, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitThrough != "top" || !strings.Contains(r.Summary(), "leaves the column through its top, at ") {
		t.Fatalf("straight ride: through %q; Summary() =\n%s", r.ExitThrough, r.Summary())
	}
}
