package intake

import (
	"fmt"
	"slices"
	"strings"
)

// OSAdded are the files and folders a Mac's or Windows's own archiver or
// file browser adds beside a pack's files: Finder's resource forks
// (__MACOSX/) and folder settings (.DS_Store), Explorer's thumbnail cache
// (Thumbs.db) and folder settings (desktop.ini). They are never part of a
// pack: an archive's are read (they count toward its limits) but neither
// extracted nor judged, and a folder scan leaves them out. Written as
// gitignore patterns, a folder with a trailing slash.
var OSAdded = []string{"__MACOSX/", ".DS_Store", "Thumbs.db", "desktop.ini"}

// osAdded reports whether the slash path name is one of [OSAdded] or lies
// in one of its folders, in any case (an archive made on Windows may say
// Desktop.ini).
func osAdded(name string, dir bool) bool {
	for rest := name; ; {
		part, after, more := strings.Cut(rest, "/")
		for _, a := range OSAdded {
			folder := strings.HasSuffix(a, "/")
			a = strings.TrimSuffix(a, "/")
			if !strings.EqualFold(part, a) {
				continue
			}
			if !folder || more || dir {
				return true
			}
		}
		if !more {
			return false
		}
		rest = after
	}
}

// IgnoredNote says which files of [OSAdded] were ignored, for a
// verdict's notes: "ignored 5 files a Mac or Windows adds: __MACOSX/…,
// .DS_Store, content/Thumbs.db". A __MACOSX folder's files are named by
// the folder; the first three names in byte order are given. It returns "" for none.
func IgnoredNote(names []string) string {
	if len(names) == 0 {
		return ""
	}
	var shown []string
	for _, n := range slices.Sorted(slices.Values(names)) {
		if i := strings.Index(strings.ToLower(n+"/"), "__macosx/"); i >= 0 {
			n = n[:min(len(n), i+len("__MACOSX/"))] + "…"
		}
		if !slices.Contains(shown, n) {
			shown = append(shown, n)
		}
	}
	if len(shown) > 3 {
		shown = append(shown[:3], "…")
	}
	noun := "files"
	if len(names) == 1 {
		noun = "file"
	}
	return fmt.Sprintf("ignored %d %s a Mac or Windows adds: %s", len(names), noun, strings.Join(shown, ", "))
}
