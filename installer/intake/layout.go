package intake

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// File is one regular file of a pack.
type File struct {
	Path string // slash path relative to the pack root
	Size int64  // bytes
}

// entryType is the kind of an archive entry or folder item.
type entryType int

const (
	typeFile entryType = iota
	typeDir
	typeSymlink
	typeHardLink
	typeDevice
	typeFIFO
	typeSocket
	typeOther
)

// typeRule is the rule an entry type breaks, or "" for files and folders.
func (t entryType) rule() string {
	switch t {
	case typeSymlink:
		return RuleSymlink
	case typeHardLink:
		return RuleHardLink
	case typeDevice:
		return RuleDevice
	case typeFIFO:
		return RuleFIFO
	case typeSocket:
		return RuleSocket
	case typeOther:
		return RuleEntryType
	}
	return ""
}

// fileKind is what an allowed file is, judged by its base name.
type fileKind int

const (
	kindNone fileKind = iota
	kindManifest
	kindDoc
	kindContainer
)

// rootDocs are the optional files allowed at the pack root.
var rootDocs = map[string]bool{
	"README.md": true, "README.txt": true, "LICENSE": true, "LICENSE.md": true,
	"LICENSE.txt": true, "CHANGELOG.md": true, "preview.png": true, "preview.jpg": true,
}

// containerExts are the Unreal containers allowed under content/.
var containerExts = map[string]bool{".utoc": true, ".ucas": true, ".pak": true, ".sig": true}

// codeExts mark files that carry code; packs never do.
var codeExts = map[string]bool{
	".dll": true, ".exe": true, ".so": true, ".dylib": true, ".sys": true, ".drv": true, ".ocx": true,
	".cpl": true, ".scr": true, ".com": true, ".msi": true, ".msp": true, ".lnk": true, ".reg": true,
	".lua": true, ".luac": true, ".ps1": true, ".psm1": true, ".psd1": true, ".bat": true, ".cmd": true,
	".vbs": true, ".vbe": true, ".js": true, ".mjs": true, ".cjs": true, ".jse": true, ".wsf": true,
	".wsh": true, ".hta": true, ".py": true, ".pyc": true, ".pyw": true, ".sh": true, ".bash": true,
	".zsh": true, ".pl": true, ".rb": true, ".php": true, ".jar": true, ".class": true, ".asi": true,
	".bin": true, ".elf": true, ".o": true, ".a": true, ".lib": true, ".c": true, ".h": true, ".cpp": true,
}

// archiveExts mark nested archives, which are never opened.
var archiveExts = map[string]bool{
	".zip": true, ".7z": true, ".rar": true, ".tar": true, ".gz": true, ".tgz": true, ".xz": true,
	".txz": true, ".zst": true, ".tzst": true, ".bz2": true, ".tbz2": true, ".lz4": true, ".lz": true,
	".lzma": true, ".br": true, ".sz": true, ".cab": true, ".iso": true, ".apk": true, ".pk3": true,
}

// classify says what a file is by its base name, the most bytes it may
// hold, and, for a file that is allowed nowhere, why not.
func classify(name string, lim Limits) (kind fileKind, max int64, why string) {
	base := path.Base(name)
	ext := strings.ToLower(path.Ext(base))
	switch {
	case base == "forgepack.json":
		return kindManifest, min(maxManifestBytes, lim.MaxEntryBytes), ""
	case rootDocs[base]:
		return kindDoc, min(maxDocBytes, lim.MaxEntryBytes), ""
	case containerExts[ext]:
		return kindContainer, lim.MaxEntryBytes, ""
	case codeExts[ext]:
		return kindNone, lim.MaxEntryBytes, "packs carry data, never code"
	case archiveExts[ext]:
		return kindNone, lim.MaxEntryBytes, "nested archives are never opened"
	}
	return kindNone, lim.MaxEntryBytes, "a pack holds forgepack.json, content/ containers (.utoc .ucas .pak .sig) and README, LICENSE, CHANGELOG or preview files at its root"
}

// action is what the caller of packCheck.admit does with an entry.
type action int

const (
	actSkip  action = iota // nothing to read or write
	actMkdir               // create the folder
	actWrite               // stream the bytes to disk, through packCheck.grow
	actDrain               // read the bytes through packCheck.grow but write nothing
)

// keyInfo remembers the first name seen for a fold key.
type keyInfo struct {
	name string
	dir  bool
}

// admitted is one entry that passed the name and type rules.
type admitted struct {
	name string
	dir  bool
	kind fileKind
	size int64
}

// packCheck applies the rules of SPEC §2 to a sequence of entries, from an
// archive as it streams or from a folder as it is walked. It is the one
// implementation of the rules: admit decides about each entry before any of
// its bytes are read, grow accounts for bytes as they stream, and finish
// applies the layout rules that need every name. It collects every problem.
type packCheck struct {
	lim      Limits
	problems []Problem
	entries  int
	total    int64
	stopped  bool // a size or count limit was crossed; the rest is unknown
	keys     map[string]keyInfo
	items    []admitted
	finished *finishResult // set by the first finish call
	// ignored are the files of OSAdded met, in order: read and counted,
	// never extracted nor judged.
	ignored []string
	// folder is set when the entries are a folder's, not an archive's:
	// what the problems call it.
	folder bool
}

// finishResult is what finish returned the first time.
type finishResult struct {
	root  string
	files []File
}

func newPackCheck(lim Limits) *packCheck {
	return &packCheck{lim: lim, keys: map[string]keyInfo{}}
}

func (c *packCheck) add(entry, rule, value string) {
	c.problems = append(c.problems, Problem{Entry: entry, Rule: rule, Value: value})
}

// admit checks one entry's name and type, and for a file its declared
// size (0 when unknown), before any byte is read. It returns the cleaned
// name, what to do with the entry, the most bytes the entry may hold and
// the index for grow. A false ok means a count limit was crossed and the
// caller must stop.
func (c *packCheck) admit(raw string, typ entryType, declared int64) (name string, act action, max int64, idx int, ok bool) {
	name, slashDir := cleanName(raw)
	c.entries++
	if c.entries > c.lim.MaxEntries {
		c.add(name, RuleTooManyEntries, fmt.Sprintf("more than %d", c.lim.MaxEntries))
		c.stopped = true
		return name, actSkip, 0, -1, false
	}
	if name == "" && (slashDir || raw == "." || raw == "./") {
		return name, actSkip, 0, -1, true // the archive root itself
	}
	if slashDir && typ == typeFile {
		typ = typeDir
	}
	if (typ == typeFile || typ == typeDir) && osAdded(name, typ == typeDir) {
		if typ == typeDir {
			return name, actSkip, 0, -1, true
		}
		if declared > c.lim.MaxEntryBytes {
			c.add(name, RuleEntryTooLarge, fmt.Sprintf("%s declared, limit %s", sizeText(declared), sizeText(c.lim.MaxEntryBytes)))
			c.stopped = true
			return name, actSkip, 0, -1, false
		}
		c.ignored = append(c.ignored, name)
		return name, actDrain, c.lim.MaxEntryBytes, -1, true
	}
	act = actDrain
	if typ != typeFile && typ != typeDir {
		c.add(name, typ.rule(), "")
		act = actSkip
	}
	nameProblems := CheckName(name, c.lim)
	c.problems = append(c.problems, nameProblems...)
	if len(nameProblems) > 0 {
		act = actSkip
	} else if !c.register(name, typ == typeDir) {
		act = actSkip
	}
	if typ == typeDir {
		if act == actDrain {
			c.items = append(c.items, admitted{name: name, dir: true})
			return name, actMkdir, 0, len(c.items) - 1, true
		}
		return name, actSkip, 0, -1, true
	}
	kind, max, why := classify(name, c.lim)
	if kind == kindNone && typ == typeFile {
		c.add(name, RuleNotAllowed, why)
	}
	if declared > c.lim.MaxEntryBytes {
		c.add(name, RuleEntryTooLarge, fmt.Sprintf("%s declared, limit %s", sizeText(declared), sizeText(c.lim.MaxEntryBytes)))
		c.stopped = true
		return name, actSkip, 0, -1, false
	}
	if typ != typeFile {
		return name, actSkip, 0, -1, true
	}
	if declared > max && kind != kindNone {
		c.add(name, RuleEntryTooLarge, fmt.Sprintf("%s declared, limit %s", sizeText(declared), sizeText(max)))
		act = actSkip
	}
	if act == actDrain && kind != kindNone {
		act = actWrite
	}
	c.items = append(c.items, admitted{name: name, kind: kind})
	idx = len(c.items) - 1
	if act != actWrite {
		c.items[idx].kind = kindNone // never listed as a pack file
	}
	return name, act, max, idx, true
}

// register records name (and the folders it implies) under its fold key
// and reports whether it is new or a harmless repeat of a folder. Two
// names that differ but fold to the same key are duplicates even when both
// are folders: on Windows they would merge, on Linux they would not.
func (c *packCheck) register(name string, dir bool) bool {
	// Each folder on the way, then name: substrings of name, not copies.
	for start := 0; ; {
		i := strings.IndexByte(name[start:], '/')
		end := len(name)
		if i >= 0 {
			end = start + i
		}
		n := name[:end]
		isDir := dir || i >= 0
		k := foldKey(n)
		prev, seen := c.keys[k]
		switch {
		case !seen:
			c.keys[k] = keyInfo{name: n, dir: isDir}
		case prev.name != n:
			other := prev.name
			if prev.dir {
				other += "/"
			}
			c.add(name, RuleDuplicate, other)
			return false
		case prev.dir && isDir:
			// the same folder again, named identically
		case prev.dir != isDir:
			c.add(name, RuleFileDirClash, n)
			return false
		default:
			c.add(name, RuleDuplicate, prev.name)
			return false
		}
		if i < 0 {
			return true
		}
		start = end + 1
	}
}

// grow accounts for n more bytes of the entry admitted at idx, which now
// holds done bytes, against its limit max, the total and, when compressed
// is positive, the compression ratio. It returns write == false when the
// entry broke its own size cap (stop writing it, keep reading), and
// ok == false when a size limit of the archive was crossed: stop reading.
func (c *packCheck) grow(name string, idx int, max, done, n, compressed int64) (write, ok bool) {
	c.total += n
	if done > c.lim.MaxEntryBytes {
		c.add(name, RuleEntryTooLarge, "over the limit of "+sizeText(c.lim.MaxEntryBytes))
		c.stopped = true
		return false, false
	}
	if c.total > c.lim.MaxTotalBytes {
		c.add(name, RuleTotalTooLarge, "over the limit of "+sizeText(c.lim.MaxTotalBytes)+" in all")
		c.stopped = true
		return false, false
	}
	if compressed >= 0 && done > ratioFloor && done > c.lim.MaxRatio*max1(compressed) {
		c.add(name, RuleRatio, fmt.Sprintf("%d bytes from %d compressed, limit 1:%d", done, compressed, c.lim.MaxRatio))
		c.stopped = true
		return false, false
	}
	if done > max && idx >= 0 && c.items[idx].kind != kindNone {
		c.add(name, RuleEntryTooLarge, "over the limit of "+sizeText(max))
		c.items[idx].kind = kindNone
		return false, true
	}
	if idx >= 0 {
		c.items[idx].size = done
	}
	return true, true
}

// sizeText writes n bytes the way a person reads them: "4 MiB" when that
// is exact, else the number of bytes.
func sizeText(n int64) string {
	for _, u := range []struct {
		unit  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.unit)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

func max1(n int64) int64 {
	if n < 1 {
		return 1
	}
	return n
}

// finish applies the layout rules that need every name: the pack root,
// the place of each allowed file, the manifest, and .utoc/.ucas pairs.
// It returns the pack root (a slash path, "" for the archive root or the
// folder itself), the pack's files relative to it, and every problem.
// After a crossed limit the list of names is incomplete, so only the
// problems found so far are returned.
func (c *packCheck) finish() (root string, files []File, problems []Problem) {
	if c.stopped {
		return "", nil, c.problems
	}
	if c.finished != nil {
		return c.finished.root, c.finished.files, c.problems
	}
	defer func() { c.finished = &finishResult{root, files} }()
	root = c.root()
	if tops := c.packFolders(); root == "" && tops != nil {
		c.add("", RuleTopFolders, topFoldersText(c.folder, tops))
		return root, nil, c.problems
	}
	files = make([]File, 0, len(c.items))
	for _, it := range c.items {
		if it.dir {
			continue
		}
		rel, under := strings.CutPrefix(it.name, root)
		if !under {
			continue // cannot happen: root is "" or a prefix of every name
		}
		base := path.Base(rel)
		switch it.kind {
		case kindManifest, kindDoc:
			if rel != base {
				c.add(it.name, RuleNotAllowed, base+" belongs at the pack root")
				continue
			}
		case kindContainer:
			if !strings.HasPrefix(rel, "content/") {
				c.add(it.name, RuleNotAllowed, "Unreal containers belong under content/")
				continue
			}
		default:
			continue
		}
		files = append(files, File{Path: rel, Size: it.size})
	}
	if len(files) == 0 {
		files = nil // as before it was sized: none is nil
	}
	have := make(map[string]bool, len(files))
	manifest := false
	for _, f := range files {
		have[strings.ToLower(f.Path)] = true
		if f.Path == "forgepack.json" {
			manifest = true
		}
	}
	if !manifest && !c.reported(root+"forgepack.json") {
		c.add(root+"forgepack.json", RuleMissingManifest, "a pack needs forgepack.json at its root")
	}
	for _, f := range files {
		stem, ext := splitExt(f.Path)
		switch strings.ToLower(ext) {
		case ".utoc":
			if !have[strings.ToLower(stem+".ucas")] {
				c.add(root+f.Path, RuleMissingUcas, path.Base(stem)+".ucas")
			}
		case ".ucas":
			if !have[strings.ToLower(stem+".utoc")] {
				c.add(root+f.Path, RuleMissingUtoc, path.Base(stem)+".utoc")
			}
		}
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return root, files, c.problems
}

// reported reports whether a problem was already recorded for entry.
func (c *packCheck) reported(entry string) bool {
	for _, p := range c.problems {
		if p.Entry == entry {
			return true
		}
	}
	return false
}

// root returns "top/" when every entry lies under the one folder top and
// top holds forgepack.json (what zipping a folder produces), else "": the
// archive root is the pack root.
func (c *packCheck) root() string {
	top := ""
	manifest := false
	for _, it := range c.items {
		first, rest, nested := strings.Cut(it.name, "/")
		if !nested && !it.dir {
			return "" // a file at the top level
		}
		if top == "" {
			top = first
		} else if first != top {
			return ""
		}
		manifest = manifest || (rest == "forgepack.json" && it.kind == kindManifest)
	}
	if top == "" || !manifest {
		return ""
	}
	return top + "/"
}

// packFolders returns the top-level folders, sorted, when there are two
// or more, no file lies at the top level and one of them holds
// forgepack.json: a pack folder archived beside another folder. Otherwise
// it returns nil.
func (c *packCheck) packFolders() []string {
	var tops []string
	manifest := false
	for _, it := range c.items {
		first, rest, nested := strings.Cut(it.name, "/")
		if !nested && !it.dir {
			return nil
		}
		if !slices.Contains(tops, first) {
			tops = append(tops, first)
		}
		manifest = manifest || rest == "forgepack.json" && !it.dir
	}
	if len(tops) < 2 || !manifest {
		return nil
	}
	slices.Sort(tops)
	return tops
}

// topFoldersText says that an archive (or a folder) holds more than one
// top-level folder, naming them: "the archive holds two top-level
// folders, a/ and b/: a pack is at the root or under one single folder".
func topFoldersText(folder bool, tops []string) string {
	what := "archive"
	if folder {
		what = "folder"
	}
	count := strconv.Itoa(len(tops))
	if len(tops) == 2 {
		count = "two"
	}
	names := make([]string, len(tops))
	for i, t := range tops {
		names[i] = t + "/"
	}
	if len(names) > 5 {
		names = append(names[:4], fmt.Sprintf("%d more", len(tops)-4))
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	return "the " + what + " holds " + count + " top-level folders, " + list + ": a pack is at the root or under one single folder"
}

// splitExt splits p into everything before the extension and the extension.
func splitExt(p string) (stem, ext string) {
	ext = path.Ext(p)
	return p[:len(p)-len(ext)], ext
}
