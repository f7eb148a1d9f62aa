package intake

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// linkCount returns how many names the file at p has: NTFS hard links
// count too.
func linkCount(p string, _ fs.FileInfo) (uint64, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var fi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &fi); err != nil {
		return 0, &fs.PathError{Op: "GetFileInformationByHandle", Path: p, Err: err}
	}
	return uint64(fi.NumberOfLinks), nil
}
