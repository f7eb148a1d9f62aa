package verdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// badPack writes a copy of the lockout-gates example whose first door
// travels 17 m, plus a file packs may not carry, and returns its folder
// and the line and column of the travel value.
func badPack(t *testing.T) (dir string, line, col int) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "my pack")
	if err := os.MkdirAll(filepath.Join(dir, "content"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../cmd/forgesync/examples/lockout-gates/forgepack.json")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"travel_m": 4`))
	if i < 0 {
		t.Fatal(`the lockout-gates example has no "travel_m": 4`)
	}
	data = bytes.Replace(data, []byte(`"travel_m": 4`), []byte(`"travel_m": 17`), 1)
	line = bytes.Count(data[:i], []byte("\n")) + 1
	col = i - bytes.LastIndexByte(data[:i], '\n') + len(`"travel_m": `)
	for name, body := range map[string][]byte{"forgepack.json": data, "content/run.dll": []byte("MZ")} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, line, col
}

func scanned(t *testing.T, dir string) *Report {
	t.Helper()
	rep, err := checkDir(dir, intake.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Valid || len(rep.Problems) < 2 {
		t.Fatalf("Dir(%s) = %+v; want the bad door and the dll", dir, rep.Problems)
	}
	return rep
}

func TestWriteGitHub(t *testing.T) {
	dir, line, col := badPack(t)
	rep := scanned(t, dir)
	var out bytes.Buffer
	if err := writeGitHub(&out, []*Report{rep}); err != nil {
		t.Fatal(err)
	}
	want := "::error file=" + filepath.ToSlash(dir) + "/forgepack.json,line=" + strconv.Itoa(line) + ",col=" + strconv.Itoa(col) +
		",title=forgesync range::pieces[0].door.travel_m: must be > 0 and ≤ 16, got 17\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("WriteGitHub =\n%s\nwant a line\n%s", out.String(), want)
	}
	if !strings.Contains(out.String(), "::error file="+filepath.ToSlash(dir)+"/content/run.dll,title=forgesync not-allowed-in-a-pack::") {
		t.Errorf("WriteGitHub =\n%s\nwant the dll named without a line", out.String())
	}
	if n := strings.Count(out.String(), "::error "); n != len(rep.Problems) {
		t.Errorf("WriteGitHub wrote %d commands for %d problems", n, len(rep.Problems))
	}
}

func TestGitHubEscaping(t *testing.T) {
	rep := &Report{Source: "a,b:c.zip", Problems: []rejection.Reason{{
		File: "forgepack.json", Path: "name", Line: 2, Column: 3, Rule: "format",
		Message: "100% wrong\nsecond line", Value: `"x"`,
	}}}
	var out bytes.Buffer
	if err := writeGitHub(&out, []*Report{rep}); err != nil {
		t.Fatal(err)
	}
	want := "::error file=a%2Cb%3Ac.zip,line=2,col=3,title=forgesync format::name: 100%25 wrong%0Asecond line, got \"x\"\n"
	if out.String() != want {
		t.Fatalf("WriteGitHub = %q; want %q", out.String(), want)
	}
}

// sarifSchema compiles the published SARIF 2.1.0 schema, which CI takes
// from the npm package @microsoft/jest-sarif (see .ci/run) and names in
// FORGESYNC_SARIF_SCHEMA.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := os.Getenv("FORGESYNC_SARIF_SCHEMA")
	if path == "" {
		path = "/opt/forgesync-ci/package/lib/schemas/sarif-2.1.0-rtm.5.json"
	}
	f, err := os.Open(path)
	if err != nil {
		toolcheck.Missing(t, "the SARIF 2.1.0 schema (npm pack @microsoft/jest-sarif; set FORGESYNC_SARIF_SCHEMA): %v", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return sch
}

func TestWriteSARIF(t *testing.T) {
	sch := sarifSchema(t)
	dir, line, col := badPack(t)
	rep := scanned(t, dir)
	var out bytes.Buffer
	if err := writeSARIF(&out, []*Report{rep}, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the SARIF log does not match the SARIF 2.1.0 schema: %v\n%s", err, out.String())
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version string `json:"version"`
					Rules   []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region *struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Version != "1.2.3" || len(run.Results) != len(rep.Problems) {
		t.Fatalf("driver version %q, %d results; want 1.2.3 and %d", run.Tool.Driver.Version, len(run.Results), len(rep.Problems))
	}
	found := false
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s points at rule %d, which is %s", r.RuleID, r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
		loc := r.Locations[0].PhysicalLocation
		if r.RuleID == "range" {
			found = true
			if !strings.HasSuffix(loc.ArtifactLocation.URI, "/my%20pack/forgepack.json") || loc.Region == nil ||
				loc.Region.StartLine != line || loc.Region.StartColumn != col ||
				r.Message.Text != "pieces[0].door.travel_m: must be > 0 and ≤ 16, got 17" {
				t.Errorf("range result = %+v at %+v; want forgepack.json:%d:%d", r, loc, line, col)
			}
		}
	}
	if !found {
		t.Fatalf("no result for the door's travel:\n%s", out.String())
	}
}

func TestPackWritesOnlyAValidPack(t *testing.T) {
	dir, _, _ := badPack(t)
	out := filepath.Join(t.TempDir(), "p.zip")
	rep, err := Pack(dir, out, intake.DefaultLimits())
	if err != nil || rep.Valid {
		t.Fatalf("Pack(invalid) = %+v, %v; want an invalid report", rep, err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Pack(invalid) wrote %s (%v)", out, err)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := Pack(missing, out, intake.DefaultLimits()); err == nil || err.Error() != missing+": no such folder" {
		t.Errorf("Pack(missing) = %v; want the path named once", err)
	}
}

// hostileReport is an archive whose names and messages carry a newline, a
// forged workflow command, terminal escapes and a bidi override.
func hostileReport() *Report {
	return &Report{Source: "evil\x1b[2J\u202egpj.zip", Pack: PackRef{ID: "x\x1b]0;owned\x07"}, Problems: []rejection.Reason{{
		File: "content/a\n::error file=x::forged\x1b[31m.dll", Path: "content/a\n::error file=x::forged\x1b[31m.dll",
		Rule: "not allowed in a pack", Message: "not allowed in a pack",
	}, {
		File: "content/b.dll", Path: "content/b\n::warning::x\x9b31m", Rule: "not allowed in a pack",
		Message: "not\ballowed\u2066", Value: "\x00\x7f",
	}}}
}

func TestFormatsEscapeControls(t *testing.T) {
	for _, format := range []string{formatText, formatGitHub, formatSARIF} {
		var out bytes.Buffer
		if err := write(&out, format, []*Report{hostileReport()}, "1.0.0"); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		for _, bad := range []string{"\x1b", "\u202e", "\u2066", "\x9b", "\u009b", "\b", "\x07", "\x7f", "\x00"} {
			if strings.Contains(s, bad) {
				t.Errorf("Write(%s) holds %q raw:\n%s", format, bad, s)
			}
		}
		switch format {
		case formatText:
			if n := strings.Count(s, "\n"); n != 3 {
				t.Errorf("Write(text) wrote %d lines; want 3 (two problems and the verdict):\n%s", n, s)
			}
		case formatGitHub:
			lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
			if len(lines) != 2 {
				t.Errorf("Write(github) wrote %d lines; want 2:\n%s", len(lines), s)
			}
			for _, l := range lines {
				if strings.Count(l, "::error") != 1 || strings.Contains(l, "::warning") && !strings.Contains(l, "%0A::warning") {
					t.Errorf("Write(github) line %q forges a command", l)
				}
			}
		}
	}
}

// TestFileRuleIDAndWords: a file rule reaches every output by its id, and
// its words stay the message and the SARIF rule's description.
func TestFileRuleIDAndWords(t *testing.T) {
	r := fromInstaller(intake.Problem{Entry: `content\a.pak`, Rule: intake.RuleBackslash})
	if want := (rejection.Reason{File: `content\a.pak`, Path: `content\a.pak`, Rule: "backslash", Message: "backslash in name (use / between folders)"}); r != want {
		t.Fatalf("fromInstaller = %+v; want %+v", r, want)
	}
	rep := &Report{Source: "p.zip", Problems: []rejection.Reason{r}}
	var text, gh, sarif bytes.Buffer
	if err := WriteText(&text, rep); err != nil {
		t.Fatal(err)
	}
	if want := `p.zip: content\a.pak: backslash in name (use / between folders) [backslash]` + "\n"; !strings.HasPrefix(text.String(), want) {
		t.Errorf("WriteText =\n%s\nwant it to start\n%s", text.String(), want)
	}
	if err := writeGitHub(&gh, []*Report{rep}); err != nil {
		t.Fatal(err)
	}
	if want := "::error file=p.zip,title=forgesync backslash::backslash in name (use / between folders)\n"; gh.String() != want {
		t.Errorf("WriteGitHub = %q; want %q", gh.String(), want)
	}
	if err := writeSARIF(&sarif, []*Report{rep}, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id": "backslash"`, `"text": "backslash in name (use / between folders)"`, `"ruleId": "backslash"`} {
		if !strings.Contains(sarif.String(), want) {
			t.Errorf("WriteSARIF =\n%s\nwant %s", sarif.String(), want)
		}
	}
}

// TestWriteGitHubNotice: a valid pack gets one notice on its manifest with
// its verdict, where a run that passes would otherwise print nothing; a
// pack whose root is a folder inside the one scanned is named there, and an
// invalid pack beside it keeps its errors and gets no notice.
func TestWriteGitHubNotice(t *testing.T) {
	good, err := checkDir("../../cmd/forgesync/examples/foundry-wide", intake.DefaultLimits())
	if err != nil || !good.Valid {
		t.Fatalf("Dir(foundry-wide) = %+v, %v; want valid", good, err)
	}
	outer := filepath.Join(t.TempDir(), "repo")
	inner := filepath.Join(outer, "foundry-wide")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../cmd/forgesync/examples/foundry-wide/forgepack.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inner, "forgepack.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	nested, err := checkDir(outer, intake.DefaultLimits())
	if err != nil || !nested.Valid {
		t.Fatalf("Dir(%s) = %+v, %v; want valid", outer, nested, err)
	}
	bad, _, _ := badPack(t)
	var out bytes.Buffer
	if err := writeGitHub(&out, []*Report{good, nested, scanned(t, bad)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	verdict := "foundry-wide " + good.Pack.Version + ": valid (3 pieces, 2 lifts, 0 doors, 0 surface packages)"
	want := []string{
		"::notice file=../../cmd/forgesync/examples/foundry-wide/forgepack.json,title=forgesync::" + verdict,
		"::notice file=" + filepath.ToSlash(inner) + "/forgepack.json,title=forgesync::" + verdict,
	}
	if len(lines) < 4 || lines[0] != want[0] || lines[1] != want[1] || strings.Count(out.String(), "::notice") != 2 {
		t.Fatalf("WriteGitHub =\n%s\nwant it to start\n%s\nand the bad pack's errors after, no notice", out.String(), strings.Join(want, "\n"))
	}
}

// TestSARIFRuleHelp: every rule id a reason can name (the golden list
// inventory/rejection keeps equal to the rule constants of the module) has
// a short description in words, not its id, and help in a SARIF log, and
// the log of all of them still matches the SARIF 2.1.0 schema.
func TestSARIFRuleHelp(t *testing.T) {
	golden, err := os.ReadFile("../../inventory/rejection/testdata/rule-ids.txt")
	if err != nil {
		t.Fatal(err)
	}
	ids := strings.Fields(string(golden))
	if len(ids) < 60 {
		t.Fatalf("rule-ids.txt lists %d rules; want them all", len(ids))
	}
	rep := &Report{Source: "p.zip"}
	for i, id := range ids {
		rep.Problems = append(rep.Problems, rejection.Reason{File: "forgepack.json", Line: i + 1, Column: 1, Rule: id, Message: "m"})
	}
	var out bytes.Buffer
	if err := writeSARIF(&out, []*Report{rep}, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
						Help *struct {
							Text string `json:"text"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != len(ids) {
		t.Fatalf("%d rules in the log for %d ids", len(rules), len(ids))
	}
	for _, r := range rules {
		if r.ShortDescription.Text == "" || r.ShortDescription.Text == r.ID || r.Help == nil || len(r.Help.Text) < 20 {
			t.Errorf("rule %s: shortDescription %q, help %+v; want words and help", r.ID, r.ShortDescription.Text, r.Help)
		}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifSchema(t).Validate(inst); err != nil {
		t.Fatalf("the SARIF log of every rule does not match the SARIF 2.1.0 schema: %v", err)
	}
}
