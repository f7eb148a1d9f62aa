package iostore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/text"
)

// Missing is a required package that no container under the content folder
// carries as an export bundle.
type Missing struct {
	Name string  `json:"name"` // the long package name
	ID   ChunkID `json:"id"`   // PackageID(Name), the chunk id looked for
}

// Require reports which of the long package names are not present in the
// IoStore containers under contentDir in fsys (SPEC §5).
//
// It reads every regular file named *.utoc (lower case, as SPEC §2 allows
// them in an archive) under contentDir, at any depth and without following
// symbolic links, whose sibling .ucas (same name, ".ucas" instead of
// ".utoc") is also a regular file; a TOC without its .ucas, or anywhere
// outside contentDir, satisfies nothing. A name is present when some such TOC has a chunk with
// id PackageID(name), index 0 and type ExportBundleData under that TOC's
// layout; a BulkData or other chunk with the same id does not count.
//
// Missing lists the absent names in the order given, each once. A
// contentDir that does not exist holds no containers, so every name is
// missing. With no names Require reads nothing and returns nil, nil.
//
// Every TOC considered is read in full (header and chunk ids, never the
// .ucas), so a truncated or malformed one is always an error, a *TOCError
// naming it by its path in fsys, even when the names are found elsewhere.
func Require(fsys fs.FS, contentDir string, names []string) (missing []Missing, err error) {
	if len(names) == 0 {
		return nil, nil
	}
	if !fs.ValidPath(contentDir) {
		return nil, &fs.PathError{Op: "require", Path: contentDir, Err: fs.ErrInvalid}
	}
	w := newWanted(names)
	err = fs.WalkDir(fsys, contentDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == contentDir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(p, ".utoc") {
			return nil
		}
		ok, err := hasCas(fsys, p)
		if err != nil || !ok {
			return err
		}
		return w.scanFile(fsys, p)
	})
	if err != nil {
		return nil, err
	}
	for i, n := range w.names {
		if j := w.slot[i]; !w.found[j] {
			missing = append(missing, Missing{Name: n, ID: ChunkID(w.ids[j])})
		}
	}
	return missing, nil
}

// hasCas reports whether the .ucas beside the .utoc at p is a regular file.
func hasCas(fsys fs.FS, p string) (bool, error) {
	cas := strings.TrimSuffix(p, ".utoc") + ".ucas"
	fi, err := fs.Stat(fsys, cas)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	}
	return fi.Mode().IsRegular(), nil
}

// wanted is the set of package ids Require looks for. Names that differ
// only in ASCII case share an id, so ids are kept once each.
type wanted struct {
	names []string       // distinct names, in the order given
	slot  []int          // names[i]'s id is ids[slot[i]]
	ids   []uint64       // distinct ids
	found []bool         // found[j]: ids[j] is present
	index map[uint64]int // id → position in ids; nil while ids is short
	// Per TOC: which wanted ids have an index-0 chunk of raw type 1 (UE5
	// ExportBundleData) or 2 (UE 4.27 ExportBundleData).
	seen1, seen2 []bool
}

// linearMax is the number of ids up to which a linear search beats a map.
const linearMax = 8

func newWanted(names []string) *wanted {
	w := &wanted{}
	dup := make(map[string]bool, len(names))
	slots := make(map[uint64]int, len(names))
	for _, n := range names {
		if dup[n] {
			continue
		}
		dup[n] = true
		id := PackageID(n)
		j, ok := slots[id]
		if !ok {
			j = len(w.ids)
			slots[id] = j
			w.ids = append(w.ids, id)
		}
		w.names = append(w.names, n)
		w.slot = append(w.slot, j)
	}
	w.init()
	return w
}

// init sizes the per-id state once ids is set.
func (w *wanted) init() {
	w.found = make([]bool, len(w.ids))
	w.seen1 = make([]bool, len(w.ids))
	w.seen2 = make([]bool, len(w.ids))
	w.index = nil
	if len(w.ids) > linearMax {
		w.index = make(map[uint64]int, len(w.ids))
		for j, id := range w.ids {
			w.index[id] = j
		}
	}
}

func (w *wanted) lookup(id uint64) int {
	if w.index != nil {
		if i, ok := w.index[id]; ok {
			return i
		}
		return -1
	}
	for i, x := range w.ids {
		if x == id {
			return i
		}
	}
	return -1
}

var (
	ue4Export, _ = LayoutUE4.TypeOf(KindExportBundleData)
	ue5Export, _ = LayoutUE5.TypeOf(KindExportBundleData)
)

// scanFile reads one TOC and marks the wanted ids it carries as exports.
func (w *wanted) scanFile(fsys fs.FS, p string) error {
	f, err := fsys.Open(p)
	if err != nil {
		return &TOCError{Path: p, What: "open", Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return &TOCError{Path: p, What: "stat", Err: err}
	}
	clear(w.seen1)
	clear(w.seen2)
	var h Header
	var layout layoutFinder
	err = scan(f, fi.Size(), p, &h, func(ids []byte) {
		for i := 0; i+chunkIDSize <= len(ids); i += chunkIDSize {
			e := ids[i : i+chunkIDSize : i+chunkIDSize]
			id := binary.LittleEndian.Uint64(e)
			if id == uint64(h.ContainerID) {
				layout.see(h.ContainerID, e)
			}
			// Cheap filters first: index bytes both zero, and a type
			// that is ExportBundleData under one of the two layouts.
			tail := binary.LittleEndian.Uint32(e[8:]) // index, padding, type
			t := uint8(tail >> 24)
			if tail&0xFFFF != 0 || (t != ue4Export && t != ue5Export) {
				continue
			}
			j := w.lookup(id)
			if j < 0 {
				continue
			}
			if t == ue5Export {
				w.seen1[j] = true
			} else {
				w.seen2[j] = true
			}
		}
	})
	if err != nil {
		return err
	}
	seen := w.seen1
	if layout.decide(h.Version) == LayoutUE4 {
		seen = w.seen2
	}
	for i, ok := range seen {
		if ok {
			w.found[i] = true
		}
	}
	return nil
}

// Held is what the containers under a content folder carry: the package
// ids [Require] can find there (every ExportBundleData chunk of index 0),
// each once, in the order met, for a message saying what was found
// instead of a missing package.
type Held struct {
	Containers int       // .utoc/.ucas pairs read
	Packages   []ChunkID // their package exports' ids
}

// Holds reads the containers under contentDir in fsys that [Require]
// reads, and returns their package exports. Like Require, a contentDir
// that does not exist holds nothing, and a TOC that cannot be read is a
// *TOCError.
func Holds(fsys fs.FS, contentDir string) (*Held, error) {
	if !fs.ValidPath(contentDir) {
		return nil, &fs.PathError{Op: "holds", Path: contentDir, Err: fs.ErrInvalid}
	}
	h := &Held{}
	seen := map[ChunkID]bool{}
	err := fs.WalkDir(fsys, contentDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == contentDir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(p, ".utoc") {
			return nil
		}
		if ok, err := hasCas(fsys, p); err != nil || !ok {
			return err
		}
		toc, err := ReadFS(fsys, p)
		if err != nil {
			return err
		}
		h.Containers++
		for _, c := range toc.Chunks {
			if c.IsPackageExport() && !seen[c.ID] {
				seen[c.ID] = true
				h.Packages = append(h.Packages, c.ID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// String lists what h holds for a message, at most the first 10 package
// ids: "2 containers with package ids 0x…, 0x… and 3 more".
func (h *Held) String() string {
	switch {
	case h.Containers == 0:
		return "no .utoc/.ucas pair"
	case len(h.Packages) == 0:
		return text.Count(h.Containers, "container") + " with no package exports"
	}
	const shown = 10
	ids := make([]string, 0, shown)
	for _, id := range h.Packages[:min(shown, len(h.Packages))] {
		ids = append(ids, "0x"+id.String())
	}
	list := strings.Join(ids, ", ")
	if n := len(h.Packages) - shown; n > 0 {
		list += fmt.Sprintf(" and %d more", n)
	}
	word := "package ids"
	if len(h.Packages) == 1 {
		word = "package id"
	}
	return fmt.Sprintf("%s with %s %s", text.Count(h.Containers, "container"), word, list)
}
