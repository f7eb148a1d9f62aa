package inventory

import (
	"fmt"
	"strings"
	"testing"
)

// pack builds a pack with the given doors and lift blocks.
func pack(t testing.TB, id, version string, doors, lifts int) *Manifest {
	t.Helper()
	var pieces []string
	for i := range doors {
		pieces = append(pieces, fmt.Sprintf(`{"id":"d%d","kind":"panel","tag":"mjolnir\\forge\\%s\\d%d","class":"/Game/MJOLNIR/Forge/%s/D%d.D%d_C","dimensions_m":[4,0.5,4],"door":{"travel_m":4,"speed_m_s":4,"trigger_size_m":[8,16,6],"hold_open_s":2}}`, i, id, i, id, i, i))
	}
	for i := range lifts {
		pieces = append(pieces, fmt.Sprintf(`{"id":"l%d","kind":"block","tag":"mjolnir\\forge\\%s\\l%d","class":"/Game/MJOLNIR/Forge/%s/L%02d.L%02d_C","dimensions_m":[4,4,0.5],"lift":{"offset_m":[0,0,0.45],"size_m":[4,4,3.5],"direction":[0,0,1],"acceleration_m_s2":20,"max_speed_m_s":4.5,"negates_gravity":true}}`, i, id, i, id, i, i))
	}
	if len(pieces) == 0 {
		pieces = append(pieces, fmt.Sprintf(`{"id":"b","kind":"block","tag":"mjolnir\\forge\\%s\\b","class":"/Game/MJOLNIR/Forge/%s/B.B_C","dimensions_m":[1,1,1]}`, id, id))
	}
	data := fmt.Sprintf(`{"schema":1,"id":%q,"version":%q,"name":"N","authors":["A"],"pieces":[%s]}`, id, version, strings.Join(pieces, ","))
	m, err := Decode("test", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCheckInstallVersions(t *testing.T) {
	installed := []InstalledPack{{Manifest: pack(t, "abc", "1.2.0", 0, 0), Enabled: true, ArchiveSHA256: "aaa"}}
	tests := []struct {
		version, sha string
		force        bool
		want         Outcome
	}{
		{"1.3.0", "bbb", false, OutcomeUpgraded},
		{"1.2.0", "aaa", false, OutcomeAlready},
		{"1.2.0", "aaa", true, OutcomeAlready},
		{"1.2.0", "bbb", false, OutcomeRejected},
		{"1.2.0", "bbb", true, OutcomeReinstalled},
		{"1.1.9", "ccc", false, OutcomeRejected},
		{"1.1.9", "ccc", true, OutcomeDowngraded},
		{"1.2.0-rc.1", "ddd", false, OutcomeRejected},
	}
	for _, tt := range tests {
		c := InstalledPack{Manifest: pack(t, "abc", tt.version, 0, 0), Enabled: true, ArchiveSHA256: tt.sha}
		v := CheckInstall(installed, c, tt.force)
		if v.Outcome != tt.want {
			t.Errorf("CheckInstall(%s %s force=%v) = %s %v; want %s", tt.version, tt.sha, tt.force, v.Outcome, v.Reasons, tt.want)
		}
		if v.Outcome == OutcomeRejected && (len(v.Reasons) == 0 || !strings.Contains(v.Reasons[0].Message, "--force") || v.Reasons[0].Path != "version") {
			t.Errorf("rejection without a reason that names --force: %v", v.Reasons)
		}
	}
	if v := CheckInstall(installed, InstalledPack{Manifest: pack(t, "xyz", "0.1.0", 0, 0), Enabled: true}, false); v.Outcome != OutcomeInstalled {
		t.Errorf("new pack = %s", v.Outcome)
	}
}

func TestCheckInstallClash(t *testing.T) {
	a := pack(t, "abc", "1.0.0", 0, 0)
	b := pack(t, "xyz", "1.0.0", 0, 0)
	// Forge a clash the namespace rule would normally prevent.
	b.Pieces[0].Tag = a.Pieces[0].Tag
	v := CheckInstall([]InstalledPack{{Manifest: a, Enabled: true}}, InstalledPack{Manifest: b, Enabled: true}, true)
	if v.Outcome != OutcomeRejected || len(v.Reasons) != 1 || v.Reasons[0].Rule != RuleTagClash || v.Reasons[0].Path != "pieces[0].tag" ||
		!strings.Contains(v.Reasons[0].Message, "owned by installed pack abc") || !strings.Contains(v.Reasons[0].Message, "piece b") {
		t.Fatalf("clash = %s %v; want one reason naming both owners", v.Outcome, v.Reasons)
	}
}

func TestDoorLimit(t *testing.T) {
	installed := []InstalledPack{
		{Manifest: pack(t, "doors-a", "1.0.0", 200, 0), Enabled: true},
		{Manifest: pack(t, "doors-b", "1.0.0", 50, 0), Enabled: false},
	}
	if v := CheckInstall(installed, InstalledPack{Manifest: pack(t, "doors-c", "1.0.0", 56, 0), Enabled: true}, false); v.Outcome != OutcomeInstalled {
		t.Fatalf("256 doors = %s %v; want install", v.Outcome, v.Reasons)
	}
	v := CheckInstall(installed, InstalledPack{Manifest: pack(t, "doors-c", "1.0.0", 57, 0), Enabled: true}, true)
	if v.Outcome != OutcomeRejected || v.Reasons[0].Rule != RuleDoorLimit || !strings.Contains(v.Reasons[0].Message, "doors-a (200)") || !strings.Contains(v.Reasons[0].Message, "257") {
		t.Fatalf("257 doors = %s %v; want reject naming the packs", v.Outcome, v.Reasons)
	}
	if v := CheckEnable(installed, "doors-b"); v.Refused() {
		t.Fatalf("enable to 250 = %v; want ok", v.Reasons)
	}
	installed[1].Manifest = pack(t, "doors-b", "1.0.0", 57, 0)
	if v := CheckEnable(installed, "doors-b"); len(v.Reasons) != 1 || v.Reasons[0].Rule != RuleDoorLimit || !strings.Contains(v.Reasons[0].Message, "257") {
		t.Fatalf("enable to 257 = %v; want one door-limit refusal", v.Reasons)
	}
}

func TestLiftClasses(t *testing.T) {
	packs := []InstalledPack{{Manifest: pack(t, "lifts", "1.0.0", 0, 17), Enabled: true}}
	used, ignored := liftClasses(packs)
	if len(used) != 16 || len(ignored) != 1 || ignored[0] != "/Game/MJOLNIR/Forge/lifts/L16.L16_C" {
		t.Fatalf("LiftClasses = %d used, ignored %v", len(used), ignored)
	}
	want := "17 lift classes are enabled; the runtime uses the first 16 by class path and ignores: /Game/MJOLNIR/Forge/lifts/L16.L16_C"
	if got := LiftClassWarning(packs); got != want {
		t.Fatalf("LiftClassWarning = %q; want %q", got, want)
	}
	packs[0].Enabled = false
	if used, _ := liftClasses(packs); len(used) != 0 {
		t.Fatalf("disabled pack's lifts counted: %v", used)
	}
	if got := LiftClassWarning(packs); got != "" {
		t.Fatalf("LiftClassWarning(disabled) = %q; want none", got)
	}
}

func TestCheckSet(t *testing.T) {
	a := pack(t, "abc", "1.0.0", 0, 0)
	b := pack(t, "xyz", "1.0.0", 0, 0)
	b.Pieces[0].Class = a.Pieces[0].Class // a clash the namespace rule would normally prevent
	set := []InstalledPack{{Manifest: a, Enabled: true}, {Manifest: b, Enabled: true},
		{Manifest: pack(t, "doors-a", "1.0.0", 200, 0), Enabled: true}, {Manifest: pack(t, "doors-b", "1.0.0", 57, 0), Enabled: true}}
	v := CheckSet(set)
	if !v.Refused() || len(v.Reasons) != 2 || v.Outcome != "" {
		t.Fatalf("CheckSet = %q %v; want two reasons and no install outcome", v.Outcome, v.Reasons)
	}
	if r := v.Reasons[0]; r.Rule != RuleClassClash || !strings.Contains(r.Message, "owned by both abc (piece b) and xyz (piece b)") {
		t.Errorf("CheckSet reason %+v; want the class clash naming both owners", r)
	}
	if r := v.Reasons[1]; r.Rule != RuleDoorLimit || !strings.Contains(r.Message, "doors-a (200), doors-b (57) bring 257") {
		t.Errorf("CheckSet reason %+v; want the door limit naming the packs", r)
	}
	set[3].Enabled = false
	if v := CheckSet(set[2:]); v.Refused() {
		t.Errorf("CheckSet(200 enabled doors) = %v; want none", v.Reasons)
	}
}
