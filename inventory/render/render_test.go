package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/render/rendertest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// load decodes the forgepack.json files and returns them installed and
// enabled, with archive hashes derived from their ids.
func load(t testing.TB, paths ...string) []inventory.InstalledPack {
	t.Helper()
	var packs []inventory.InstalledPack
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := inventory.Decode(p, data)
		if err != nil {
			t.Fatalf("Decode(%s) = %v", p, err)
		}
		packs = append(packs, inventory.InstalledPack{Manifest: m, Enabled: true, ArchiveSHA256: sha[:len(sha)-len(m.ID)] + hexOf(m.ID)})
	}
	return packs
}

// hexOf maps s onto hex digits, to give each pack its own hash.
func hexOf(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = "0123456789abcdef"[c%16]
	}
	return string(b)
}

func files(t testing.TB, packs []inventory.InstalledPack) map[string][]byte {
	t.Helper()
	fs, err := Files(packs)
	if err != nil {
		t.Fatalf("Files = %v", err)
	}
	if len(fs) != 4 {
		t.Fatalf("Files returned %d files; want 4", len(fs))
	}
	out := map[string][]byte{}
	for i, f := range fs {
		if f.Name != Names()[i] {
			t.Fatalf("Files()[%d].Name = %q; want %q (publication order)", i, f.Name, Names()[i])
		}
		out[f.Name] = f.Data
	}
	return out
}

// diff describes the first line where got and want differ.
func diff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %q\n want %q", i+1, gl, wl)
		}
	}
	return "same lines"
}

// TestCompanions holds the text files to the bytes an independent
// implementation rendered from the same two manifests.
func TestCompanions(t *testing.T) {
	packs := load(t, "testdata/companions/foundry-wide/forgepack.json", "testdata/companions/lockout-gates/forgepack.json")
	got := files(t, packs)
	for _, name := range []string{liftsName, DoorsName, InstalledName} {
		want, err := os.ReadFile(filepath.Join("testdata/companions", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[name], want) {
			t.Errorf("%s differs from the independent rendering: %s", name, diff(got[name], want))
		}
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden: %s", path, diff(got, want))
	}
}

func examples(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob("../../cmd/forgesync/examples/*/forgepack.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example packs under ../../examples: %v", err)
	}
	return paths
}

// TestGolden pins all four files for the repository's example packs and
// for the companion packs, all enabled and with lockout-gates disabled.
func TestGolden(t *testing.T) {
	sets := map[string][]inventory.InstalledPack{
		"examples":   load(t, examples(t)...),
		"companions": load(t, "testdata/companions/foundry-wide/forgepack.json", "testdata/companions/lockout-gates/forgepack.json"),
	}
	disabled := load(t, examples(t)...)
	for i := range disabled {
		if disabled[i].Manifest.ID == "lockout-gates" {
			disabled[i].Enabled = false
		}
	}
	sets["examples-lockout-disabled"] = disabled
	for name, packs := range sets {
		t.Run(name, func(t *testing.T) {
			for fname, data := range files(t, packs) {
				golden(t, filepath.Join("testdata/golden", name, fname), data)
			}
		})
	}
}

func TestDisableDropsRows(t *testing.T) {
	packs := load(t, examples(t)...)
	before := files(t, packs)
	const off, kept = "lockout-gates", "glass-works" // both have doors
	for i := range packs {
		if packs[i].Manifest.ID == off {
			packs[i].Enabled = false
		}
	}
	after := files(t, packs)
	rows := func(data []byte, id string) int { return bytes.Count(data, []byte(`\`+id+`\`)) }
	for _, name := range []string{liftsName, DoorsName, InstalledName} {
		if n := rows(after[name], off); n != 0 {
			t.Errorf("%s still holds %d rows of disabled pack %s:\n%s", name, n, off, after[name])
		}
		if rows(after[name], kept) != rows(before[name], kept) {
			t.Errorf("%s lost rows of %s, which stays enabled", name, kept)
		}
	}
	for _, name := range []string{DoorsName, InstalledName} {
		if rows(before[name], off) == 0 {
			t.Fatalf("test bug: %s held no row of %s before disabling", name, off)
		}
	}
	got := readInstalled(t, after[installedJSONName])
	if len(got) != len(packs) {
		t.Fatalf("installed.json lists %d packs after disabling; want all %d", len(got), len(packs))
	}
	for _, p := range got {
		if want := p.Manifest.ID != off; p.Enabled != want {
			t.Errorf("installed.json lists %s enabled = %v; want %v", p.Manifest.ID, p.Enabled, want)
		}
	}
}

func TestNoDoorsHeaderOnly(t *testing.T) {
	for name, packs := range map[string][]inventory.InstalledPack{
		"none installed": nil,
		"door pack disabled": func() []inventory.InstalledPack {
			p := load(t, "testdata/companions/lockout-gates/forgepack.json", "testdata/companions/foundry-wide/forgepack.json")
			p[0].Enabled = false
			return p
		}(),
	} {
		got := files(t, packs)
		if string(got[DoorsName]) != doorsHeader+"\n" {
			t.Errorf("%s: doors.txt = %q; want the header only", name, got[DoorsName])
		}
	}
	got := files(t, nil)
	want := map[string]string{
		installedJSONName: "{\n  \"format\": \"forge-installed\",\n  \"version\": 1,\n  \"packs\": []\n}\n",
		liftsName:         "forge-lifts 1\n",
		InstalledName:     "forge-installed 1\n",
	}
	for name, w := range want {
		if string(got[name]) != w {
			t.Errorf("empty set: %s = %q; want %q", name, got[name], w)
		}
	}
}

// mixed returns a set with every shape: example packs, synthetic packs, some
// disabled, strings that JSON must escape.
func mixed(t testing.TB) []inventory.InstalledPack {
	packs := append(load(t, examples(t)...), rendertest.Packs(40)...)
	for i := range packs {
		if i%3 == 1 {
			packs[i].Enabled = false
		}
	}
	packs[0].Manifest.Name = "Quotes \" and \\ and ünïcödé \u2028 <&>"
	packs[0].Manifest.Description = "Line one\nline two"
	return packs
}

// installedDoc is installed.json as encoding/json reads it: a reader
// independent of the writer under test.
type installedDoc struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Packs   []installedPack `json:"packs"`
}

type installedPack struct {
	ID            string            `json:"id"`
	Version       string            `json:"version"`
	Name          string            `json:"name"`
	Authors       []string          `json:"authors"`
	Description   string            `json:"description,omitempty"`
	Enabled       bool              `json:"enabled"`
	ArchiveSHA256 string            `json:"archive_sha256"`
	Pieces        []inventory.Piece `json:"pieces"`
}

// readInstalled reads installed.json back with encoding/json, strictly.
func readInstalled(t testing.TB, data []byte) []inventory.InstalledPack {
	t.Helper()
	var d installedDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil || d.Format != format || d.Version != formatVersion {
		t.Fatalf("installed.json does not read back: %v (format %q version %d)", err, d.Format, d.Version)
	}
	out := []inventory.InstalledPack{}
	for _, p := range d.Packs {
		m := &inventory.Manifest{Schema: 1, ID: p.ID, Version: p.Version, Name: p.Name, Authors: p.Authors, Description: p.Description, Pieces: p.Pieces}
		out = append(out, inventory.InstalledPack{Manifest: m, Enabled: p.Enabled, ArchiveSHA256: p.ArchiveSHA256})
	}
	return out
}

// TestRoundTrip holds SPEC §6: reading installed.json back and writing
// again gives the same bytes.
func TestRoundTrip(t *testing.T) {
	packs := mixed(t)
	first := files(t, packs)
	parsed := readInstalled(t, first[installedJSONName])
	if len(parsed) != len(packs) {
		t.Fatalf("installed.json holds %d packs; want %d", len(parsed), len(packs))
	}
	byID := map[string]inventory.InstalledPack{}
	for _, p := range packs {
		byID[p.Manifest.ID] = p
	}
	for _, p := range parsed {
		if want := byID[p.Manifest.ID]; !reflect.DeepEqual(p, want) {
			t.Errorf("pack %s read back as %+v; want %+v", p.Manifest.ID, p, want)
		}
	}
	second := files(t, parsed)
	for name, data := range first {
		if !bytes.Equal(second[name], data) {
			t.Errorf("%s after reading installed.json back differs: %s", name, diff(second[name], data))
		}
	}
}

// TestDeterministic renders the same set given in another order.
func TestDeterministic(t *testing.T) {
	packs := mixed(t)
	first := files(t, packs)
	rev := make([]inventory.InstalledPack, len(packs))
	for i, p := range packs {
		rev[len(packs)-1-i] = p
	}
	second := files(t, rev)
	for name := range first {
		if !bytes.Equal(first[name], second[name]) {
			t.Errorf("%s depends on the order packs are given in: %s", name, diff(second[name], first[name]))
		}
	}
}

// TestMatchesEncodingJSON holds installed.json to the bytes encoding/json
// gives for the same document of inventory's own types, where the number
// rules agree.
func TestMatchesEncodingJSON(t *testing.T) {
	packs := mixed(t)
	got := files(t, packs)[installedJSONName]
	// The expected document is built from the packs given, not from what
	// the writer wrote.
	sorted := slices.Clone(packs)
	slices.SortFunc(sorted, func(a, b inventory.InstalledPack) int { return strings.Compare(a.Manifest.ID, b.Manifest.ID) })
	d := installedDoc{Format: format, Version: formatVersion, Packs: []installedPack{}}
	for _, p := range sorted {
		m := p.Manifest
		d.Packs = append(d.Packs, installedPack{m.ID, m.Version, m.Name, m.Authors, m.Description, p.Enabled, p.ArchiveSHA256, m.Pieces})
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("installed.json differs from encoding/json: %s", diff(got, want.Bytes()))
	}
}

// TestStringsAsEncodingJSON: the files write strings as encoding/json does
// with HTML escaping off: quote, backslash and control characters escaped,
// U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD, and <, >, &
// as they are.
func TestStringsAsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `mjolnir\forge\a\b`, `"quoted"`, "tab\there", "nl\ncr\r", "\x00\x01\x1f\x7f",
		"\b\f", "<html>&", "ünïcödé ☃ 😀", "\u2028\u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80",
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		m := &inventory.Manifest{Schema: 1, ID: "strings-pack", Version: "1.0.0", Name: s}
		got, err := Manifest(m)
		if err != nil {
			t.Fatal(err)
		}
		line := "  \"name\": " + strings.TrimSuffix(want.String(), "\n") + ",\n"
		if !strings.Contains(string(got), line) {
			t.Errorf("Manifest(name %q) = %s; want the line %s", s, got, line)
		}
	}
}

func TestAppendNum(t *testing.T) {
	tenth := 0.1 // a variable: constant arithmetic would be exact
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{0.45, "0.45"},
		{-0.5, "-0.5"},
		{4, "4"},
		{256, "256"},
		{1e-7, "0.0000001"},
		{-1.25, "-1.25"},
		{tenth + 2*tenth, "0.30000000000000004"},
		{12.5, "12.5"},
		{100, "100"},
		{1e21, "1000000000000000000000"},
	} {
		if got := string(appendNum(nil, tc.v)); got != tc.want {
			t.Errorf("appendNum(%v) = %q; want %q", tc.v, got, tc.want)
		}
	}
}

// piece builds a valid manifest piece in pack id.
func piece(id, pid string, kind inventory.Kind, asset string) inventory.Piece {
	folder := "Blocks"
	if kind == inventory.KindPanel {
		folder = "Panels"
	}
	return inventory.Piece{
		ID: pid, Kind: kind,
		Tag:        `mjolnir\forge\` + id + `\` + pid,
		Class:      "/Game/MJOLNIR/Forge/" + id + "/" + folder + "/" + asset + "." + asset + "_C",
		Dimensions: inventory.Vec3{4, 0.5, 4},
	}
}

// pack returns an enabled pack, checking that its manifest is valid.
func pack(t testing.TB, id string, pieces ...inventory.Piece) inventory.InstalledPack {
	t.Helper()
	m := &inventory.Manifest{Schema: 1, ID: id, Version: "1.0.0", Name: id, Authors: []string{"T"}, Pieces: pieces}
	norm, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inventory.Decode(id, norm); err != nil {
		t.Fatalf("test pack %s is invalid: %v", id, err)
	}
	return inventory.InstalledPack{Manifest: m, Enabled: true, ArchiveSHA256: sha}
}

var (
	testLift = &inventory.Lift{OffsetM: inventory.Vec3{0, 0, 0.45}, SizeM: inventory.Vec3{4, 4, 3.5}, Direction: inventory.Vec3{0, 0, 1}, AccelerationMS2: 20, MaxSpeedMS: 4.5, NegatesGravity: true}
	testDoor = &inventory.Door{TravelM: 4, SpeedMS: 4, TriggerSizeM: inventory.Vec3{8, 16, 6}, HoldOpenS: 2}
)

func withLift(p inventory.Piece) inventory.Piece { p.Lift = testLift; return p }
func withDoor(p inventory.Piece) inventory.Piece { p.Door = testDoor; return p }

// TestByteOrder checks rows are sorted by the bytes of their key, not by
// pack, by locale or case-insensitively: '-' < '.' < digits < upper case <
// '\' < '_' < lower case.
func TestByteOrder(t *testing.T) {
	packs := []inventory.InstalledPack{
		pack(t, "abc",
			withDoor(piece("abc", "zz", inventory.KindPanel, "BP_zz")),
			withLift(piece("abc", "b_lower", inventory.KindBlock, "BP_b")),
			withLift(piece("abc", "b_upper", inventory.KindBlock, "BP_B")),
			withLift(piece("abc", "b_under", inventory.KindBlock, "BP__")),
		),
		pack(t, "abc-d",
			withDoor(piece("abc-d", "aa", inventory.KindPanel, "BP_aa")),
			withLift(piece("abc-d", "dash", inventory.KindBlock, "BP_-")),
		),
		pack(t, "abc0",
			withDoor(piece("abc0", "aa", inventory.KindPanel, "BP_aa")),
		),
	}
	got := files(t, packs)
	firstFields := func(data []byte) []string {
		var out []string
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")[1:] {
			out = append(out, strings.SplitN(line, "\t", 2)[0])
		}
		return out
	}
	want := map[string][]string{
		DoorsName: {`mjolnir\forge\abc-d\aa`, `mjolnir\forge\abc0\aa`, `mjolnir\forge\abc\zz`},
		InstalledName: {`mjolnir\forge\abc-d\aa`, `mjolnir\forge\abc-d\dash`, `mjolnir\forge\abc0\aa`,
			`mjolnir\forge\abc\b_lower`, `mjolnir\forge\abc\b_under`, `mjolnir\forge\abc\b_upper`, `mjolnir\forge\abc\zz`},
		liftsName: {"/Game/MJOLNIR/Forge/abc-d/Blocks/BP_-.BP_-_C", "/Game/MJOLNIR/Forge/abc/Blocks/BP_B.BP_B_C",
			"/Game/MJOLNIR/Forge/abc/Blocks/BP__.BP___C", "/Game/MJOLNIR/Forge/abc/Blocks/BP_b.BP_b_C"},
	}
	for name, w := range want {
		if g := firstFields(got[name]); !reflect.DeepEqual(g, w) {
			t.Errorf("%s sort keys = %q; want %q", name, g, w)
		}
	}
}

func TestRowFields(t *testing.T) {
	got := files(t, load(t, examples(t)...))
	// SPEC §6 says "15 tab-separated fields" for lifts.txt but lists 14;
	// the list, the independent rendering and the Lua reader all have 14.
	for name, n := range map[string]int{liftsName: 14, DoorsName: 10, InstalledName: 6} {
		lines := strings.Split(string(got[name]), "\n")
		if lines[len(lines)-1] != "" {
			t.Errorf("%s has no final newline", name)
		}
		if len(lines) < 3 {
			t.Errorf("%s has no rows for the example packs", name)
		}
		for i, l := range lines[1 : len(lines)-1] {
			if f := strings.Count(l, "\t") + 1; f != n {
				t.Errorf("%s row %d has %d fields; want %d: %q", name, i+1, f, n, l)
			}
		}
	}
}

func TestDoorLimit(t *testing.T) {
	all := rendertest.Packs(200) // carries exactly 256 doors
	n := 0
	for _, p := range all {
		n += p.Manifest.Doors()
	}
	if n != inventory.MaxDoorsInstalled {
		t.Fatalf("rendertest.Packs(200) carries %d doors; want %d", n, inventory.MaxDoorsInstalled)
	}
	got := files(t, all)
	if rows := bytes.Count(got[DoorsName], []byte("\n")) - 1; rows != 256 {
		t.Errorf("doors.txt has %d rows; want 256", rows)
	}
	extra := pack(t, "one-more", withDoor(piece("one-more", "gate", inventory.KindPanel, "BP_Gate")))
	extra.Enabled = false
	if _, err := Files(append(all, extra)); err != nil {
		t.Errorf("Files with a disabled 257th door = %v; want success", err)
	}
	extra.Enabled = true
	_, err := Files(append(all, extra))
	if !errors.Is(err, errTooManyDoors) || !strings.Contains(err.Error(), "one-more (1)") || !strings.Contains(err.Error(), "257") {
		t.Errorf("Files with 257 doors = %v; want ErrTooManyDoors naming one-more and 257", err)
	}
}

func TestRejectedSets(t *testing.T) {
	a := pack(t, "pack-a", withDoor(piece("pack-a", "gate", inventory.KindPanel, "BP_Gate")))
	b := pack(t, "pack-b", piece("pack-b", "wall", inventory.KindPanel, "BP_Wall"))
	clone := func(p inventory.InstalledPack) inventory.InstalledPack {
		m := *p.Manifest
		m.Pieces = append([]inventory.Piece(nil), m.Pieces...)
		p.Manifest = &m
		return p
	}
	sameTag := clone(b)
	sameTag.Manifest.Pieces[0].Tag = a.Manifest.Pieces[0].Tag
	sameClass := clone(b)
	sameClass.Manifest.Pieces[0].Class = a.Manifest.Pieces[0].Class
	nan := clone(b)
	nan.Manifest.Pieces[0].Dimensions[1] = math.NaN()
	tab := clone(b)
	tab.Manifest.Version = "1.0.0\t"
	noHash := clone(b)
	noHash.ArchiveSHA256 = ""
	liftPanel := clone(b)
	liftPanel.Manifest.Pieces[0].Lift = testLift
	for _, tc := range []struct {
		name  string
		packs []inventory.InstalledPack
		want  error
		says  string
	}{
		{"same id twice", []inventory.InstalledPack{a, clone(a)}, errConflict, `"pack-a"`},
		{"same tag", []inventory.InstalledPack{a, sameTag}, errConflict, "pack-a/gate and pack-b/wall"},
		{"same class", []inventory.InstalledPack{a, sameClass}, errConflict, "pack-a/gate and pack-b/wall"},
		{"no manifest", []inventory.InstalledPack{a, {}}, errUnrenderable, "packs[1]"},
		{"NaN", []inventory.InstalledPack{a, nan}, errUnrenderable, "pack-b piece wall"},
		{"tab in version", []inventory.InstalledPack{a, tab}, errUnrenderable, "version"},
		{"lift on a panel", []inventory.InstalledPack{a, liftPanel}, errUnrenderable, "lift on a panel"},
		{"no archive hash", []inventory.InstalledPack{a, noHash}, errUnrenderable, "pack-b: archive SHA-256"},
	} {
		_, err := Files(tc.packs)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: Files = %v; want %v saying %q", tc.name, err, tc.want, tc.says)
		}
	}
}

// TestHasControl checks the eight-bytes-at-a-time test against the plain
// one, for every byte value at every position, among ASCII and high bytes.
func TestHasControl(t *testing.T) {
	naive := func(s string) bool {
		for i := range len(s) {
			if s[i] < 0x20 {
				return true
			}
		}
		return false
	}
	for _, fill := range []byte{'a', 0x80, 0xff, ' ', '!'} {
		for n := 1; n <= 19; n++ {
			for p := range n {
				for c := range 256 {
					b := bytes.Repeat([]byte{fill}, n)
					b[p] = byte(c)
					if got, want := hasControl(string(b)), naive(string(b)); got != want {
						t.Fatalf("hasControl(%q) = %v; want %v", b, got, want)
					}
				}
			}
		}
	}
}
