//go:build !windows

package intake

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"golang.org/x/text/unicode/norm"
)

// writeTree creates files (slash paths to contents) below root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goodTree writes goodPack("") as a folder.
func goodTree(t *testing.T, root string) {
	t.Helper()
	files := map[string]string{}
	for _, e := range goodPack("") {
		if e.typ == 0 {
			files[e.name] = string(e.body)
		}
	}
	writeTree(t, root, files)
}

// treeWith writes the good pack plus extra files.
func treeWith(extra map[string]string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		goodTree(t, root)
		writeTree(t, root, extra)
	}
}

// treeThen writes the good pack, then runs more setup in it.
func treeThen(more func(t *testing.T, root string)) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		goodTree(t, root)
		more(t, root)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// toolCase is one archive made by a real archiver from a folder tree.
type toolCase struct {
	name  string
	tools []string
	tree  func(t *testing.T, pack string) // fills work/pack
	inDir bool                            // run the command inside work/pack, not work
	cmd   string                          // shell-free argv; OUT is the archive, PACK the folder argument
	sh    string                          // or a shell script, for pipes; $OUT is the archive
	lim   func(*Limits)
	wants []want // none: a good pack
	anyOf bool   // one of wants is enough (which of two links is the link depends on the tool)
}

// runTool builds the case's archive and returns its path.
func (tc toolCase) build(t *testing.T) string {
	t.Helper()
	toolcheck.Need(t, tc.tools...)
	work := t.TempDir()
	pack := filepath.Join(work, "pack")
	must(t, os.Mkdir(pack, 0o755))
	tc.tree(t, pack)
	out := filepath.Join(t.TempDir(), "archive.bin")
	if tc.sh != "" {
		cmd := exec.Command("sh", "-c", tc.sh)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "OUT="+out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", tc.sh, err, b)
		}
		return out
	}
	var args []string
	for _, a := range strings.Fields(tc.cmd) {
		switch a {
		case "OUT":
			a = out
		case "PACK":
			a = "pack"
			if tc.inDir {
				a = "."
			}
		}
		args = append(args, a)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = work
	if tc.inDir {
		cmd.Dir = pack
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tc.cmd, err, b)
	}
	return out
}

func toolCases() []toolCase {
	bomb := func(t *testing.T, root string) {
		goodTree(t, root)
		must(t, os.WriteFile(filepath.Join(root, "content", "bomb.pak"), make([]byte, 64<<20), 0o644))
	}
	return []toolCase{
		// Good packs in every format, both root forms.
		{name: "zip folder", tools: []string{"zip"}, tree: goodTree, cmd: "zip -qr OUT PACK"},
		{name: "zip root", tools: []string{"zip"}, tree: goodTree, inDir: true, cmd: "zip -qr OUT PACK"},
		{name: "7z folder", tools: []string{"7z"}, tree: goodTree, cmd: "7z a -bd -bso0 OUT PACK"},
		{name: "7z root", tools: []string{"7z"}, tree: goodTree, inDir: true, cmd: "7z a -bd -bso0 OUT ."},
		{name: "tar folder", tools: []string{"tar"}, tree: goodTree, cmd: "tar -cf OUT PACK"},
		{name: "tar root dot", tools: []string{"tar"}, tree: goodTree, inDir: true, cmd: "tar -cf OUT PACK"},
		{name: "tgz", tools: []string{"tar"}, tree: goodTree, cmd: "tar -czf OUT PACK"},
		{name: "txz", tools: []string{"tar", "xz"}, tree: goodTree, cmd: "tar -cJf OUT PACK"},
		{name: "tzst", tools: []string{"tar", "zstd"}, tree: goodTree, cmd: "tar --zstd -cf OUT PACK"},
		{name: "bsdtar zip", tools: []string{"bsdtar"}, tree: goodTree, cmd: "bsdtar --format zip -cf OUT PACK"},
		{name: "bsdtar 7z", tools: []string{"bsdtar"}, tree: goodTree, cmd: "bsdtar --format 7zip -cf OUT PACK"},
		{name: "bsdtar pax", tools: []string{"bsdtar"}, tree: goodTree, inDir: true, cmd: "bsdtar --format pax -cf OUT forgepack.json content README.md preview.png"},

		// Hostile archives.
		{name: "zip symlink", tools: []string{"zip"}, tree: treeThen(func(t *testing.T, r string) {
			must(t, os.Symlink("/etc/passwd", filepath.Join(r, "content", "link.pak")))
		}),
			inDir: true, cmd: "zip -qry OUT PACK", wants: []want{w("content/link.pak", RuleSymlink)}},
		{name: "7z symlink", tools: []string{"7z"}, tree: treeThen(func(t *testing.T, r string) { must(t, os.Symlink("../..", filepath.Join(r, "content", "up.pak"))) }),
			inDir: true, cmd: "7z a -snl -bd -bso0 OUT .", wants: []want{w("content/up.pak", RuleSymlink)}},
		{name: "tar symlink", tools: []string{"tar"}, tree: treeThen(func(t *testing.T, r string) { must(t, os.Symlink("/", filepath.Join(r, "content", "root.pak"))) }),
			cmd: "tar -cf OUT PACK", wants: []want{w("pack/content/root.pak", RuleSymlink)}},
		{name: "tar hard link", tools: []string{"tar"}, tree: treeThen(func(t *testing.T, r string) {
			must(t, os.Link(filepath.Join(r, "content", "extra.pak"), filepath.Join(r, "content", "hard.pak")))
		}), inDir: true, cmd: "tar -czf OUT PACK", wants: []want{w("content/hard.pak", RuleHardLink), w("content/extra.pak", RuleHardLink)}, anyOf: true},
		{name: "bsdtar fifo", tools: []string{"bsdtar"}, tree: treeThen(func(t *testing.T, r string) { must(t, syscall.Mkfifo(filepath.Join(r, "content", "pipe.pak"), 0o644)) }),
			inDir: true, cmd: "bsdtar -cf OUT PACK", wants: []want{w("content/pipe.pak", RuleFIFO)}},
		{name: "zip code", tools: []string{"zip"}, tree: treeWith(map[string]string{"content/forge.dll": "MZ", "scripts/lifts.lua": "x"}),
			inDir: true, cmd: "zip -qr OUT PACK", wants: []want{w("content/forge.dll", RuleNotAllowed), w("scripts/lifts.lua", RuleNotAllowed)}},
		{name: "7z exe", tools: []string{"7z"}, tree: treeWith(map[string]string{"content/setup.exe": "MZ"}),
			cmd: "7z a -bd -bso0 OUT PACK", wants: []want{w("pack/content/setup.exe", RuleNotAllowed)}},
		{name: "tgz nested zip", tools: []string{"tar"}, tree: treeWith(map[string]string{"content/more.zip": "PK\x03\x04"}),
			inDir: true, cmd: "tar -czf OUT PACK", wants: []want{w("content/more.zip", RuleNotAllowed)}},
		{name: "zip case duplicates", tools: []string{"zip"}, tree: treeWith(map[string]string{"content/EXTRA.PAK": "x"}),
			inDir: true, cmd: "zip -qr OUT PACK", wants: []want{{rule: RuleDuplicate, anyEntry: true}}},
		{name: "7z NFC duplicates", tools: []string{"7z"}, tree: treeWith(map[string]string{norm.NFC.String("content/é.pak"): "x", norm.NFD.String("content/é.pak"): "y"}),
			inDir: true, cmd: "7z a -bd -bso0 OUT .", wants: []want{{rule: RuleDuplicate, anyEntry: true}}},
		{name: "tar reserved name", tools: []string{"tar"}, tree: treeWith(map[string]string{"content/nul.pak": "x"}),
			inDir: true, cmd: "tar -cf OUT PACK", wants: []want{w("content/nul.pak", RuleReserved)}},
		{name: "zip trailing dot", tools: []string{"zip"}, tree: treeWith(map[string]string{"content/maps./a.pak": "x"}),
			inDir: true, cmd: "zip -qr OUT PACK", wants: []want{w("content/maps./a.pak", RuleTrailingDotSpace)}},
		{name: "txz backslash", tools: []string{"tar", "xz"}, tree: treeWith(map[string]string{`content\a.pak`: "x"}),
			inDir: true, cmd: "tar -cJf OUT PACK", wants: []want{w(`content\a.pak`, RuleBackslash)}},
		{name: "zip control char", tools: []string{"zip"}, tree: treeWith(map[string]string{"content/a\tb.pak": "x"}),
			inDir: true, cmd: "zip -qr OUT PACK", wants: []want{w("content/a\tb.pak", RuleControlChar)}},
		{name: "tzst missing manifest", tools: []string{"tar", "zstd"}, tree: treeThen(func(t *testing.T, r string) { must(t, os.Remove(filepath.Join(r, "forgepack.json"))) }),
			inDir: true, cmd: "tar --zstd -cf OUT PACK", wants: []want{w("forgepack.json", RuleMissingManifest)}},
		{name: "zip utoc alone", tools: []string{"zip"}, tree: treeThen(func(t *testing.T, r string) { must(t, os.Remove(filepath.Join(r, "content", "foundry.ucas"))) }),
			cmd: "zip -qr OUT PACK", wants: []want{w("pack/content/foundry.utoc", RuleMissingUcas)}},
		{name: "bsdtar absolute", tools: []string{"bsdtar"}, tree: goodTree, inDir: true,
			cmd: "bsdtar -cPf OUT -s ,^,/abs/, forgepack.json content", wants: []want{w("/abs/forgepack.json", RuleAbsolute)}},
		{name: "bsdtar zip dotdot", tools: []string{"bsdtar"}, tree: goodTree, inDir: true,
			cmd: "bsdtar --format zip -cPf OUT -s ,^content,../../content, forgepack.json content", wants: []want{w("../../content/extra.pak", RuleDotDot)}},
		{name: "7z too deep", tools: []string{"7z"}, tree: treeWith(map[string]string{"content/1/2/3/4/5/6/7/x.pak": "x"}),
			cmd: "7z a -bd -bso0 OUT PACK", wants: []want{w("pack/content/1/2/3/4/5/6/7/x.pak", RuleTooDeep)}},
		{name: "tar long name", tools: []string{"tar"}, tree: treeWith(map[string]string{"content/" + strings.Repeat("n", 150) + "/" + strings.Repeat("m", 50) + ".pak": "x"}),
			inDir: true, cmd: "tar -cf OUT PACK", wants: []want{{rule: RulePathTooLong, anyEntry: true}}},
		{name: "zip two top folders", tools: []string{"zip"}, tree: treeWith(map[string]string{"other/README.md": "x", "other/x/forgepack.json": "{}"}),
			inDir: true, cmd: "zip -qr OUT content other", wants: []want{w("forgepack.json", RuleMissingManifest), w("other/README.md", RuleNotAllowed), w("other/x/forgepack.json", RuleNotAllowed)}},
		{name: "zip bomb", tools: []string{"zip"}, tree: bomb, inDir: true, cmd: "zip -qr OUT PACK", wants: []want{w("content/bomb.pak", RuleRatio)}},
		{name: "7z bomb", tools: []string{"7z"}, tree: bomb, inDir: true, cmd: "7z a -bd -bso0 OUT .", wants: []want{w("content/bomb.pak", RuleRatio)}},
		{name: "txz bomb", tools: []string{"tar", "xz"}, tree: bomb, inDir: true, cmd: "tar -cJf OUT PACK", wants: []want{w("content/bomb.pak", RuleRatio)}},
		{name: "tzst long window", tools: []string{"tar", "zstd"}, tree: goodTree, sh: `tar -cf - pack | zstd -q --long=25 -o "$OUT"`,
			wants: []want{{rule: RuleDecoderMemory, anyEntry: true}}},
		{name: "txz xz -9 dictionary", tools: []string{"tar", "xz"}, tree: goodTree, sh: `tar -cf - pack | xz -9 > "$OUT"`,
			wants: []want{{rule: RuleDecoderMemory, anyEntry: true}}},
		{name: "txz x86 and delta filters", tools: []string{"tar", "xz"}, tree: goodTree, sh: `tar -cf - pack | xz --delta=dist=4 --x86 --lzma2=preset=6 > "$OUT"`},
		{name: "txz ARM filter", tools: []string{"tar", "xz"}, tree: goodTree, sh: `tar -cf - pack | xz --arm --lzma2=preset=6 > "$OUT"`,
			wants: []want{{rule: RuleMethod, anyEntry: true}}},
		{name: "tar.bz2 is not a pack format", tools: []string{"tar", "bzip2"}, tree: goodTree, cmd: "tar -cjf OUT PACK", wants: []want{{rule: RuleNotArchive}}},
		{name: "zip encrypted", tools: []string{"zip"}, tree: goodTree, inDir: true, cmd: "zip -qr -P secret OUT PACK", wants: []want{{rule: RuleEncrypted, anyEntry: true}}},
		{name: "7z encrypted", tools: []string{"7z"}, tree: goodTree, cmd: "7z a -bd -bso0 -psecret OUT PACK", wants: []want{{rule: RuleEncrypted, anyEntry: true}}},
		{name: "7z encrypted headers", tools: []string{"7z"}, tree: goodTree, cmd: "7z a -bd -bso0 -psecret -mhe=on OUT PACK", wants: []want{{rule: RuleEncrypted, anyEntry: true}}},
		{name: "7z entry count", tools: []string{"7z"}, tree: goodTree, inDir: true, cmd: "7z a -bd -bso0 OUT .",
			lim: func(l *Limits) { l.MaxEntries = 5 }, wants: []want{{rule: RuleTooManyEntries, anyEntry: true}}},
		{name: "tgz total size", tools: []string{"tar"}, tree: treeWith(map[string]string{"content/a.pak": string(randomish(700 << 10)), "content/b.pak": string(randomish(700 << 10))}),
			inDir: true, cmd: "tar -czf OUT PACK", lim: func(l *Limits) { l.MaxTotalBytes = 1 << 20 }, wants: []want{{rule: RuleTotalTooLarge, anyEntry: true}}},
	}
}

func TestExtractToolArchives(t *testing.T) {
	bad := 0
	for _, tc := range toolCases() {
		if len(tc.wants) > 0 {
			bad++
		}
		t.Run(tc.name, func(t *testing.T) {
			archive := tc.build(t)
			if len(tc.wants) == 0 {
				st := mustExtract(t, archive, goodFiles())
				if want := filepath.Join(st.Dir, "pack"); !tc.inDir && st.Root != want {
					t.Errorf("Root = %s; want %s", st.Root, want)
				}
				return
			}
			lim := DefaultLimits()
			if tc.lim != nil {
				tc.lim(&lim)
			}
			if tc.anyOf {
				re := mustReject(t, archive, lim)
				if !hasAny(re.Problems, tc.wants) {
					t.Errorf("problems = %v; want one of %v", re.Problems, tc.wants)
				}
				return
			}
			mustReject(t, archive, lim, tc.wants...)
		})
	}
	if bad < 25 {
		t.Errorf("tool corpus has %d bad archives; want at least 25", bad)
	}
}

// TestArchivesReadFromFile: an archive over inMemoryArchive is read from
// its file, a small one from memory; the damaged zips and the real tools'
// archives get the same verdicts on the file's path as on memory's (every
// other test of this package takes the memory's: its archives are small).
func TestArchivesReadFromFile(t *testing.T) {
	old := inMemoryArchive
	inMemoryArchive = 0
	t.Cleanup(func() { inMemoryArchive = old })
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"zip entry cut short", TestCorruptZipEntryCutShort},
		{"zip CRC", TestCorruptZipCRC},
		{"zip local header", TestCorruptZipLocalHeader},
		{"zip zero CRC", TestCorruptZipZeroCRC},
		{"tools' archives", TestExtractToolArchives},
	} {
		t.Run(tc.name, tc.test)
	}
}
