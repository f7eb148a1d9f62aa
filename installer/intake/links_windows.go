package intake

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// statIn reads name in the folder dirPath: its Lstat, and how many names
// the file has (NTFS hard links count too).
func statIn(_ *os.File, dirPath, name string) (stagedFile, error) {
	p := filepath.Join(dirPath, name)
	fi, err := os.Lstat(p)
	if err != nil {
		return stagedFile{}, err
	}
	s := stagedFile{size: fi.Size(), links: 1, mode: fi.Mode()}
	if !fi.Mode().IsRegular() {
		return s, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return stagedFile{}, err
	}
	defer f.Close()
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return stagedFile{}, &fs.PathError{Op: "GetFileInformationByHandle", Path: p, Err: err}
	}
	s.links = uint64(info.NumberOfLinks)
	return s, nil
}
