package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/installer/store"
)

// What the README says of the commands against what the binary does
// (issue 37, "What the documentation says against what happens").

// commandRow is one row of the README's table of commands.
type commandRow struct {
	key   string   // the command as the row names it: "sync --set", "enable|disable|remove"
	names []string // the sub-commands it covers
	cell  string   // the command cell, without "forgesync "
	exits string   // the exit status cell
}

// readmeCommands returns the rows of the table of "## Commands".
func readmeCommands(t *testing.T) []commandRow {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "\n## Commands\n")
	if i < 0 {
		t.Fatal(`README.md has no "## Commands" section`)
	}
	text = text[i+1:]
	if j := strings.Index(text, "\n#"); j >= 0 {
		text = text[:j]
	}
	var rows []commandRow
	for line := range strings.SplitSeq(text, "\n") {
		if !strings.HasPrefix(line, "| `forgesync ") {
			continue
		}
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
		if len(cells) != 5 {
			t.Fatalf("README row %q has %d cells; want 3", line, len(cells)-2)
		}
		for k := range cells {
			cells[k] = strings.TrimSpace(strings.ReplaceAll(cells[k], "\x00", "|"))
		}
		cell := strings.TrimPrefix(strings.Trim(cells[1], "`"), "forgesync ")
		var key []string
		for _, tok := range strings.Fields(cell) {
			if c := tok[0]; c == '[' || 'A' <= c && c <= 'Z' {
				break
			}
			key = append(key, tok)
		}
		rows = append(rows, commandRow{key: strings.Join(key, " "), names: strings.Split(key[0], "|"), cell: cell, exits: cells[3]})
	}
	if len(rows) == 0 {
		t.Fatal("the README's table of commands has no rows")
	}
	return rows
}

// documentedCodes returns the exit statuses an exit-status cell names.
func documentedCodes(cell string) []int {
	var out []int
	for _, m := range regexp.MustCompile(`\b[0-9]\b`).FindAllString(cell, -1) {
		out = append(out, int(m[0]-'0'))
	}
	return out
}

// exitCase is a run of the binary whose exit status the README must name.
type exitCase struct {
	row   string // commandRow.key
	args  []string
	setup func(t *testing.T, g *game) // before the run; may be nil
}

// damagedState leaves a packs.json the store refuses.
func damagedState(t *testing.T, g *game) {
	if err := os.MkdirAll(g.state, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g.state, store.StateFileName), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// exitCases are the failures (and some successes) of every command.
func exitCases(t *testing.T) []exitCase {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "missing")
	notEmpty := filepath.Join(tmp, "full")
	os.MkdirAll(notEmpty, 0o755)
	os.WriteFile(filepath.Join(notEmpty, "x"), []byte("x"), 0o644)
	junk := filepath.Join(tmp, "junk.zip")
	os.WriteFile(junk, []byte("not an archive"), 0o644)
	keys := filepath.Join(tmp, "keys")
	example := filepath.Join("examples", "foundry-wide")
	dropJunk := func(t *testing.T, g *game) {
		os.WriteFile(filepath.Join(g.drop, "junk.zip"), []byte("not an archive"), 0o644)
	}
	return []exitCase{
		{"daemon", []string{"daemon", "extra"}, nil},
		{"demo", []string{"demo", "--for", "nonsense"}, nil},
		{"status", []string{"status"}, nil},
		{"status", []string{"status", "extra"}, nil},
		{"service install|uninstall|start|stop|status", []string{"service", "bogus"}, nil},
		{"sync", []string{"sync"}, dropJunk},
		{"sync", []string{"sync"}, damagedState},
		{"sync --set", []string{"sync", "--set", missing}, nil},
		{"install", []string{"install", missing}, nil},
		{"install", []string{"install", junk}, nil},
		{"packs", []string{"packs"}, nil},
		{"packs", []string{"packs"}, damagedState},
		{"packs", []string{"packs", "extra"}, nil},
		{"enable|disable|remove", []string{"enable", "nope"}, nil},
		{"enable|disable|remove", []string{"remove"}, nil},
		{"retry", []string{"retry"}, nil},
		{"retry", []string{"retry", "nope.zip"}, nil},
		{"lock", []string{"lock"}, damagedState},
		{"export", []string{"export", "s3://bucket/x"}, nil},
		{"keygen", []string{"keygen", "-o", keys, "--no-password"}, nil},
		{"keygen", []string{"keygen", "-o", keys, "--no-password"}, nil}, // the key files exist now
		{"diff", []string{"diff", missing}, nil},
		{"history", []string{"history"}, damagedState},
		{"rollback", []string{"rollback"}, nil},
		{"rollback", []string{"rollback"}, damagedState},
		{"profile list|save|switch|remove", []string{"profile", "switch", "nowhere"}, nil},
		{"profile list|save|switch|remove", []string{"profile"}, nil},
		{"scan", []string{"scan", missing}, nil},
		{"scan", []string{"scan", junk}, nil},
		{"pack", []string{"pack", missing}, nil},
		{"init", []string{"init", notEmpty}, nil},
		{"schema", []string{"schema", "-o", filepath.Join(missing, "x.json")}, nil},
		{"lift-preview", []string{"lift-preview", missing, "lift_pad_4x4"}, nil},
		{"lift-preview", []string{"lift-preview", example, "nope"}, nil},
		{"utoc", []string{"utoc", junk}, nil},
		{"package-id", []string{"package-id"}, nil},
		{"version", []string{"version", "extra"}, nil},
		{"openapi", []string{"openapi"}, nil},
		{"reload", []string{"reload"}, nil}, // no daemon
		{"reload", []string{"reload", "extra"}, nil},
		{"open", []string{"open", "--print"}, nil}, // no daemon
		{"open-link", []string{"open-link", "forgesync://set?url=file:///etc/passwd"}, nil},
		{"open-link", []string{"open-link", "forgesync://set?url=https://h.example/l"}, nil}, // no daemon
		{"uninstall", []string{"uninstall"}, nil},                                            // no terminal, no --yes
		{"sync --set", []string{"sync", "--set", "--follow"}, nil},
		{"lock", []string{"lock", "--from", missing}, nil},
		{"export", []string{"export", filepath.Join(tmp, "site"), "--from", missing}, nil},
		{"openapi", []string{"openapi", "extra"}, nil},
		{"stage", []string{"stage", missing}, nil},
		{"update", []string{"update", "--check", "--rollback"}, nil},
		{"update", []string{"update"}, nil},            // no terminal, no --yes
		{"update", []string{"update", "--check"}, nil}, // this binary has no release key: 2, asking nothing of the network
	}
}

// TestReadmeExitStatuses runs a failure of every command in the README's
// table (and a few other outcomes) and checks that its exit-status column
// names the code the binary returned: a command that can fail lists 2.
// Every row has a case, and every command has a row.
func TestReadmeExitStatuses(t *testing.T) {
	rows := readmeCommands(t)
	byKey := map[string]commandRow{}
	for _, r := range rows {
		byKey[r.key] = r
	}
	covered := map[string]bool{}
	for _, c := range exitCases(t) {
		row, ok := byKey[c.row]
		if !ok {
			t.Errorf("the README's table has no row %q (for %v)", c.row, c.args)
			continue
		}
		covered[c.row] = true
		g := newGame(t)
		if c.setup != nil {
			c.setup(t, g)
		}
		code, out, errs := g.exe(t, c.args...)
		if !slices.Contains(documentedCodes(row.exits), code) {
			t.Errorf("forgesync %s exits %d, which the README's row %q does not list (%q)\n%s%s",
				strings.Join(c.args, " "), code, row.key, row.exits, out, errs)
		}
	}
	if runtime.GOOS != "windows" { // the player's files are found through HOME here
		row := byKey["setup"]
		covered["setup"] = true
		p := newPlayer(t)
		if code, _, errs := p.run(t, "setup", "--mods", p.mods); !slices.Contains(documentedCodes(row.exits), code) || code == cli.ExitOK {
			t.Errorf("setup without --paks and no terminal exits %d (%s); the README's row says %q", code, errs, row.exits)
		}
	}
	for _, r := range rows {
		if !covered[r.key] && !(runtime.GOOS == "windows" && r.key == "setup") {
			t.Errorf("the README's row %q has no case in exitCases: add a run of its failures", r.key)
		}
	}
	named := map[string]bool{}
	for _, r := range rows {
		for _, n := range r.names {
			named[n] = true
		}
	}
	for _, c := range commands() {
		if !named[c.Name] {
			t.Errorf("forgesync %s has no row in the README's table of commands", c.Name)
		}
	}
}

// forms returns the alternatives an argument form offers (LOCK|DIR|URL|
// oci://REF gives LOCK, DIR, URL and oci://; --password|--no-password
// both), after the first word, the command's name: the placeholders,
// references and flags, not the values of a flag (text|json).
func forms(s string) []string {
	var out []string
	fields := strings.Fields(s)
	for _, f := range fields[min(1, len(fields)):] {
		if !strings.Contains(f, "|") {
			continue
		}
		for a := range strings.SplitSeq(strings.Trim(f, "[]"), "|") {
			a = strings.TrimRight(strings.Trim(a, "[]"), ".…")
			if strings.HasPrefix(a, "oci://") {
				a = "oci://"
			}
			if a != "" && (a == "oci://" || a[0] == '-' || 'A' <= a[0] && a[0] <= 'Z') {
				out = append(out, a) // not a flag's values (text|json)
			}
		}
	}
	return out
}

// TestHelpShowsEveryForm: `forgesync help` names each command with every
// form of argument the README's table gives it (a folder as well as a
// lock, an oci:// reference as well as a URL).
func TestHelpShowsEveryForm(t *testing.T) {
	code, help, errs := runCLI(t, "help")
	if code != cli.ExitOK {
		t.Fatalf("help = %d\n%s", code, errs)
	}
	byName := map[string]*cli.Command{}
	for _, c := range commands() {
		byName[c.Name] = c
	}
	for _, r := range readmeCommands(t) {
		c := byName[r.names[0]]
		if c == nil {
			continue // TestReadmeExitStatuses names it
		}
		line := c.Name
		if c.Args != "" {
			line += " " + c.Args
		}
		if !strings.Contains(help, "  "+line) {
			t.Errorf("help does not show %q", line)
		}
		cell := r.cell
		if len(r.names) > 1 {
			cell = strings.TrimPrefix(cell, r.names[0]+"|") // enable|disable|remove: names, not forms
		}
		have := forms(line)
		for _, f := range forms(cell) {
			if !slices.Contains(have, f) {
				t.Errorf("help shows %q; the README's %q also takes %s", line, r.cell, f)
			}
		}
	}
}

// TestRemoveKeepsTheArchiveAsHelpSays: remove's help says what happens to
// the kept archive, which stays for rollback.
func TestRemoveKeepsTheArchiveAsHelpSays(t *testing.T) {
	config, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	archives := filepath.Join(filepath.Dir(config), "state", store.ArchivesDir)
	kept := dirNames(t, archives)
	if code, out, errs := runCLI(t, "remove", "alpha", "--config", config); code != cli.ExitOK {
		t.Fatalf("remove = %d\n%s%s", code, out, errs)
	}
	if after := dirNames(t, archives); len(kept) != 1 || !slices.Equal(after, kept) {
		t.Fatalf("kept archives after remove = %v; want %v kept for rollback", after, kept)
	}
	_, _, help := runCLI(t, "remove", "-h")
	if !strings.Contains(help, "its archive stays kept") || strings.Contains(help, "archive go") {
		t.Errorf("remove -h says\n%s\nwant it to say the archive stays kept (rollback needs it)", help)
	}
}
