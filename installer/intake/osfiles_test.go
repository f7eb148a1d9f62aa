package intake

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// macWinJunk are the files a Mac's or Windows's archiver adds to a pack.
func macWinJunk(prefix string) []entry {
	return []entry{
		dir("__MACOSX/"),
		dir("__MACOSX/" + prefix + "content/"),
		file("__MACOSX/"+prefix+"._forgepack.json", "\x00\x05\x16\x07"),
		file("__MACOSX/"+prefix+"content/._foundry.utoc", "\x00\x05\x16\x07"),
		file(prefix+".DS_Store", "Bud1"),
		file(prefix+"content/Thumbs.db", "thumbs"),
		file(prefix+"content/Desktop.ini", "[.ShellClassInfo]"),
	}
}

// TestMacWindowsFilesIgnored: an archive zipped on a Mac or Windows, with
// __MACOSX/, .DS_Store, Thumbs.db and desktop.ini, installs as the pack it
// holds: they are neither extracted nor rejected, and Staged.Ignored names
// them.
func TestMacWindowsFilesIgnored(t *testing.T) {
	wantIgnored := []string{"__MACOSX/foundry-wide/._forgepack.json", "__MACOSX/foundry-wide/content/._foundry.utoc", "foundry-wide/.DS_Store", "foundry-wide/content/Thumbs.db", "foundry-wide/content/Desktop.ini"}
	for _, f := range []struct {
		name  string
		build func(*testing.T) []byte
	}{
		{"mac.zip", zipOf(append(goodPack("foundry-wide/"), macWinJunk("foundry-wide/")...)...)},
		{"mac.tar.gz", tgzOf(append(goodPack("foundry-wide/"), macWinJunk("foundry-wide/")...)...)},
	} {
		t.Run(f.name, func(t *testing.T) {
			st := mustExtract(t, writeArchive(t, f.name, f.build(t)), goodFiles())
			defer st.Remove()
			if !slices.Equal(st.Ignored, wantIgnored) {
				t.Errorf("Ignored = %q\nwant %q", st.Ignored, wantIgnored)
			}
			if filepath.Base(st.Root) != "foundry-wide" {
				t.Errorf("Root = %s; want the one pack folder beside __MACOSX/", st.Root)
			}
			for _, n := range []string{"__MACOSX", "foundry-wide/.DS_Store", "foundry-wide/content/Thumbs.db"} {
				if _, err := os.Lstat(filepath.Join(st.Dir, filepath.FromSlash(n))); err == nil {
					t.Errorf("%s was extracted", n)
				}
			}
		})
	}
}

// TestMacWindowsFilesCountTowardLimits: the ignored files are still read,
// so they count toward the limits on entries and bytes.
func TestMacWindowsFilesCountTowardLimits(t *testing.T) {
	big := entry{name: "__MACOSX/._big", body: randomish(600 << 10)}
	arch := writeArchive(t, "big.tar.gz", tgzOf(append(with(entry{name: "content/big.pak", body: randomish(600 << 10)}), big)...)(t))
	lim := DefaultLimits()
	lim.MaxTotalBytes = 1 << 20
	mustReject(t, arch, lim, w("__MACOSX/._big", RuleTotalTooLarge))

	lim = DefaultLimits()
	lim.MaxEntries = len(goodPack("")) + 1
	arch = writeArchive(t, "many.zip", zipOf(append(goodPack(""), file(".DS_Store", "x"), file("Thumbs.db", "x"))...)(t))
	mustReject(t, arch, lim, w("Thumbs.db", RuleTooManyEntries))

	lim = DefaultLimits()
	lim.MaxEntryBytes = 1 << 20
	arch = writeArchive(t, "large.zip", zipOf(append(goodPack(""), entry{name: ".DS_Store", body: randomish(2 << 20)})...)(t))
	mustReject(t, arch, lim, w(".DS_Store", RuleEntryTooLarge))
}

// TestTwoTopLevelFolders: an archive holding a pack folder beside another
// folder says so, instead of "forgepack.json is missing" and a rejection
// of every file of the pack.
func TestTwoTopLevelFolders(t *testing.T) {
	arch := writeArchive(t, "two.zip", zipOf(append(goodPack("a/"), file("b/README.md", "x"))...)(t))
	re := mustReject(t, arch, DefaultLimits())
	want := []Problem{{Rule: RuleTopFolders, Value: "the archive holds two top-level folders, a/ and b/: a pack is at the root or under one single folder"}}
	if !slices.Equal(re.Problems, want) {
		t.Errorf("problems = %q\nwant %q", re.Problems, want)
	}
	// Three, the pack's among them, and the ignored files are no folder.
	arch = writeArchive(t, "three.tar", tarOf(append(append(goodPack("pack/"), file("extras/notes.txt", "x"), file("old/forgepack.json", "{}")), macWinJunk("pack/")...)...)(t))
	re = mustReject(t, arch, DefaultLimits())
	want = []Problem{{Entry: "extras/notes.txt", Rule: RuleNotAllowed, Value: "a pack holds forgepack.json, content/ containers (.utoc .ucas .pak .sig) and README, LICENSE, CHANGELOG or preview files at its root"}, {Rule: RuleTopFolders, Value: "the archive holds 3 top-level folders, extras/, old/ and pack/: a pack is at the root or under one single folder"}}
	if !slices.Equal(re.Problems, want) {
		t.Errorf("problems = %q\nwant %q", re.Problems, want)
	}
	if !strings.Contains(re.Error(), "top-level folders") {
		t.Errorf("Error() = %s", re.Error())
	}
}

// TestTwoTopLevelFoldersInAFolder: a pack folder scanned with another
// folder beside its pack folder says "folder", not "archive".
func TestTwoTopLevelFoldersInAFolder(t *testing.T) {
	dir := t.TempDir()
	for _, e := range append(goodPack("a/"), file("b/README.md", "x")) {
		p := filepath.Join(dir, filepath.FromSlash(e.name))
		if e.typ == '5' { // tar.TypeDir
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, e.body, 0o644)
	}
	l, err := ListPack(dir, DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{{Rule: RuleTopFolders, Value: "the folder holds two top-level folders, a/ and b/: a pack is at the root or under one single folder"}}
	if !slices.Equal(l.Problems, want) {
		t.Errorf("problems = %q\nwant %q", l.Problems, want)
	}
}
