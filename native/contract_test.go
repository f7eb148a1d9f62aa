package native

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// The Go↔C contract: doors.txt and installed.txt as the Go side writes
// them are read back by the C parser (through lobby/contract_driver.c), and
// every row comes back equal, field by field.
//
// renderDoors and renderInstalled below write the files by SPEC §6 from
// rows, so these tests can write what the real renderer refuses (a 257th
// door); contract_render_test.go feeds the C parser the real renderer's
// output. The checked-in example files in
// testdata/companions are the reference rendering of SPEC §6 for the two
// example packs (copied from the shared spec folder).

// doorRow is one doors.txt row as Go holds it.
type doorRow struct {
	Tag                       string
	Travel, Speed             float64
	TriggerX, TriggerY, TrigZ float64
	Hold                      float64
	Width, Depth, Height      float64
}

func (d doorRow) numbers() [9]float64 {
	return [9]float64{d.Travel, d.Speed, d.TriggerX, d.TriggerY, d.TrigZ, d.Hold, d.Width, d.Depth, d.Height}
}

// installedRow is one installed.txt row.
type installedRow struct {
	Tag, Pack, Version, Piece, Kind, Class string
}

// formatNumber writes a number as SPEC §6 says: shortest decimal form that
// reads back as the same float64, no exponent, -0 as 0.
func formatNumber(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// renderDoors writes doors.txt: header, rows sorted by tag. Unlike the
// real renderer it does not stop at 256 rows, so the test can write a 257th.
func renderDoors(rows []doorRow) []byte {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b doorRow) int { return strings.Compare(a.Tag, b.Tag) })
	var b bytes.Buffer
	b.WriteString("forge-doors 1\n")
	for _, r := range rows {
		b.WriteString(r.Tag)
		for _, v := range r.numbers() {
			b.WriteByte('\t')
			b.WriteString(formatNumber(v))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// renderInstalled writes installed.txt: header, rows sorted by tag.
func renderInstalled(rows []installedRow) []byte {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b installedRow) int { return strings.Compare(a.Tag, b.Tag) })
	var b bytes.Buffer
	b.WriteString("forge-installed 1\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Tag, r.Pack, r.Version, r.Piece, r.Kind, r.Class)
	}
	return b.Bytes()
}

// cResult is what the C parser reported.
type cResult struct {
	doorsStatus, installedStatus int
	defs                         map[string]cDef
	rows                         []cRow
	doorRejects, instRejects     []cReject
}

type cDef struct {
	line    int
	nums    [9]float64
	binding int
}

type cRow struct {
	line int
	row  installedRow
}

type cReject struct {
	line, field int
	reason      string
}

// runContract runs the C driver on the two files and parses its output.
func runContract(t *testing.T, driver string, doors, installed []byte) cResult {
	t.Helper()
	dir := t.TempDir()
	dp, ip := filepath.Join(dir, "doors.txt"), filepath.Join(dir, "installed.txt")
	if err := os.WriteFile(dp, doors, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ip, installed, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(driver, dp, ip).Output()
	if err != nil {
		t.Fatalf("contract_driver: %v", err)
	}
	res := cResult{defs: map[string]cDef{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		atoi := func(s string) int {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("contract_driver line %q: %v", sc.Text(), err)
			}
			return n
		}
		switch {
		case f[0] == "doors-status" && len(f) == 2:
			res.doorsStatus = atoi(f[1])
		case f[0] == "installed-status" && len(f) == 2:
			res.installedStatus = atoi(f[1])
		case f[0] == "def" && len(f) == 13:
			d := cDef{line: atoi(f[1]), binding: atoi(f[12])}
			for i := range 9 {
				v, err := strconv.ParseFloat(f[3+i], 64)
				if err != nil {
					t.Fatalf("contract_driver number %q: %v", f[3+i], err)
				}
				d.nums[i] = v
			}
			if _, dup := res.defs[f[2]]; dup {
				t.Fatalf("contract_driver printed tag %q twice", f[2])
			}
			res.defs[f[2]] = d
		case f[0] == "row" && len(f) == 8:
			res.rows = append(res.rows, cRow{atoi(f[1]), installedRow{f[2], f[3], f[4], f[5], f[6], f[7]}})
		case (f[0] == "doors-reject" || f[0] == "installed-reject") && len(f) == 5:
			r := cReject{atoi(f[1]), atoi(f[2]), f[4]}
			if f[0] == "doors-reject" {
				res.doorRejects = append(res.doorRejects, r)
			} else {
				res.instRejects = append(res.instRejects, r)
			}
		default:
			t.Fatalf("contract_driver printed %q", sc.Text())
		}
	}
	return res
}

// parseDoorsGo reads doors.txt the Go way (the reference for the C parser).
func parseDoorsGo(t *testing.T, b []byte) []doorRow {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if lines[0] != "forge-doors 1" {
		t.Fatalf("doors.txt header %q", lines[0])
	}
	var rows []doorRow
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 10 {
			t.Fatalf("doors.txt row %q: %d fields", l, len(f))
		}
		var n [9]float64
		for i := range n {
			v, err := strconv.ParseFloat(f[i+1], 64)
			if err != nil {
				t.Fatalf("doors.txt row %q: %v", l, err)
			}
			n[i] = v
		}
		rows = append(rows, doorRow{f[0], n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8]})
	}
	return rows
}

func parseInstalledGo(t *testing.T, b []byte) []installedRow {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if lines[0] != "forge-installed 1" {
		t.Fatalf("installed.txt header %q", lines[0])
	}
	var rows []installedRow
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 6 {
			t.Fatalf("installed.txt row %q: %d fields", l, len(f))
		}
		rows = append(rows, installedRow{f[0], f[1], f[2], f[3], f[4], f[5]})
	}
	return rows
}

// compareContract checks that C read exactly want (doors in file order
// from line 2, bound when bound[tag]) and the installed rows.
func compareContract(t *testing.T, res cResult, doors []doorRow, bound map[string]bool, installed []installedRow) {
	t.Helper()
	if res.doorsStatus != 0 || res.installedStatus != 0 {
		t.Fatalf("C status doors %d installed %d; want 0 0", res.doorsStatus, res.installedStatus)
	}
	if len(res.defs) != len(doors) {
		t.Errorf("C accepted %d door rows; Go wrote %d", len(res.defs), len(doors))
	}
	for i, d := range doors {
		got, ok := res.defs[d.Tag]
		if !ok {
			t.Errorf("C did not accept door %q", d.Tag)
			continue
		}
		if got.line != i+2 {
			t.Errorf("door %q: C line %d; want %d", d.Tag, got.line, i+2)
		}
		want := d.numbers()
		for k := range want {
			if math.Float64bits(got.nums[k]) != math.Float64bits(want[k]) {
				t.Errorf("door %q field %d: C read %v; Go wrote %v (%s)", d.Tag, k+2, got.nums[k], want[k], formatNumber(want[k]))
			}
		}
		wantBinding := 0
		if bound[d.Tag] {
			wantBinding = 1
		}
		if got.binding != wantBinding {
			t.Errorf("door %q: C binding %d; want %d", d.Tag, got.binding, wantBinding)
		}
	}
	if len(res.rows) != len(installed) {
		t.Errorf("C accepted %d installed rows; Go wrote %d (rejections %v)", len(res.rows), len(installed), res.instRejects)
	}
	for i := range min(len(res.rows), len(installed)) {
		if res.rows[i].row != installed[i] || res.rows[i].line != i+2 {
			t.Errorf("installed row %d: C read %+v at line %d; Go wrote %+v", i, res.rows[i].row, res.rows[i].line, installed[i])
		}
	}
	if len(res.instRejects) != 0 {
		t.Errorf("C rejected installed rows: %+v", res.instRejects)
	}
}

// driver caches the contract driver: built once per test binary.
var driver struct {
	sync.Mutex
	path string
}

func buildDriver(t *testing.T) string {
	cc := toolcheck.Need(t, "cc")[0]
	driver.Lock()
	defer driver.Unlock()
	if driver.path == "" {
		dir, err := os.MkdirTemp("", "forge-contract-")
		if err != nil {
			t.Fatal(err)
		}
		exe := buildC(t, cc, []string{"-O1"}, filepath.Join("lobby", "contract_driver.c"))
		b, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "contract_driver")
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
		driver.path = p
		cleanups = append(cleanups, func() { os.RemoveAll(dir) })
	}
	return driver.path
}

// cleanups run after all tests of the package.
var cleanups []func()

func TestMain(m *testing.M) {
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}

func TestContractExamplePacks(t *testing.T) {
	driver := buildDriver(t)
	doorsText, err := os.ReadFile(filepath.Join("testdata", "companions", "doors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	instText, err := os.ReadFile(filepath.Join("testdata", "companions", "installed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	doors := parseDoorsGo(t, doorsText)
	installed := parseInstalledGo(t, instText)
	if !bytes.Equal(renderDoors(doors), doorsText) || !bytes.Equal(renderInstalled(installed), instText) {
		t.Fatalf("the test's renderer does not reproduce testdata/companions; it misreads SPEC §6")
	}
	bound := map[string]bool{}
	for _, r := range installed {
		if r.Kind == "panel" {
			bound[r.Tag] = true
		}
	}
	res := runContract(t, driver, doorsText, instText)
	compareContract(t, res, doors, bound, installed)
	if len(res.doorRejects) != 0 {
		t.Errorf("C rejected door rows: %+v", res.doorRejects)
	}
}

// generatedSet makes n door panels spread over packs, with values drawn
// from every part of the SPEC §3.2 ranges, boundaries included, and the
// installed.txt rows that bind them (plus blocks that do not).
func generatedSet(n int) ([]doorRow, []installedRow) {
	rng := rand.New(rand.NewPCG(6, 256))
	in := func(lo, hi float64) float64 { // (lo, hi], at any precision
		switch rng.IntN(4) {
		case 0:
			return hi
		case 1: // authored-looking: quarter metres
			return math.Max(math.Round((lo+rng.Float64()*(hi-lo))*4)/4, lo+0.25)
		default: // full precision: 17 significant digits
			v := lo + rng.Float64()*(hi-lo)
			if v <= lo {
				return hi
			}
			return v
		}
	}
	versions := []string{"1.0.0", "0.3.1", "2.10.7-rc.1+build.5", "0.0.1-alpha"}
	var doors []doorRow
	var inst []installedRow
	for i := range n {
		pack := fmt.Sprintf("gen-pack-%02d", i/32)
		piece := fmt.Sprintf("door_%03d", i)
		tag := `mjolnir\forge\` + pack + `\` + piece
		hold := in(0, 10)
		switch i % 7 {
		case 0:
			hold = 0
		case 1:
			hold = 10
		}
		width := in(0.01, 64)
		if i%5 == 0 {
			width = 0.01
		}
		doors = append(doors, doorRow{
			Tag: tag, Travel: in(0, 16), Speed: in(0, 8),
			TriggerX: in(0, 32), TriggerY: in(0, 32), TrigZ: in(0, 32),
			Hold: hold, Width: width, Depth: in(0.01, 64), Height: in(0.01, 64),
		})
		inst = append(inst, installedRow{tag, pack, versions[(i/32)%len(versions)], piece, "panel",
			"/Game/MJOLNIR/Forge/" + pack + "/Panels/BP_" + piece + ".BP_" + piece + "_C"})
		if i%32 == 0 {
			inst = append(inst, installedRow{`mjolnir\forge\` + pack + `\block_a`, pack, versions[(i/32)%len(versions)],
				"block_a", "block", "/Game/MJOLNIR/Forge/" + pack + "/Blocks/BP_A.BP_A_C"})
		}
	}
	slices.SortFunc(doors, func(a, b doorRow) int { return strings.Compare(a.Tag, b.Tag) })
	slices.SortFunc(inst, func(a, b installedRow) int { return strings.Compare(a.Tag, b.Tag) })
	return doors, inst
}

func TestContractAtLimit(t *testing.T) {
	driver := buildDriver(t)
	doors, inst := generatedSet(257) // one more than the 256 allowed
	bound := map[string]bool{}
	for _, d := range doors {
		bound[d.Tag] = true
	}
	res := runContract(t, driver, renderDoors(doors), renderInstalled(inst))
	// The first 256 rows (in tag order) load; the 257th is rejected.
	compareContract(t, res, doors[:256], bound, inst)
	if len(res.doorRejects) != 1 || res.doorRejects[0].line != 258 || !strings.Contains(res.doorRejects[0].reason, "more than 256") {
		t.Errorf("C door rejections %+v; want the 257th row (line 258) rejected for the limit", res.doorRejects)
	}
	if _, ok := res.defs[doors[256].Tag]; ok {
		t.Errorf("C accepted the 257th door %q", doors[256].Tag)
	}
}

// TestContractUnbound: door rows published before their bindings stay
// inert (SPEC §6 publishes installed.txt last).
func TestContractUnbound(t *testing.T) {
	driver := buildDriver(t)
	doors, inst := generatedSet(40)
	inst = slices.DeleteFunc(inst, func(r installedRow) bool { return strings.HasPrefix(r.Tag, `mjolnir\forge\gen-pack-01\`) })
	bound := map[string]bool{}
	for _, r := range inst {
		if r.Kind == "panel" {
			bound[r.Tag] = true
		}
	}
	res := runContract(t, driver, renderDoors(doors), renderInstalled(inst))
	compareContract(t, res, doors, bound, inst)
	if len(bound) != 32 {
		t.Fatalf("generated set: %d bound doors; want 32", len(bound))
	}
}
