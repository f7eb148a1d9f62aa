package atomicfile

import (
	"os"

	"github.com/mjolnir-forge/forgesync/internal/longpath"
	"golang.org/x/sys/windows"
)

// moveNoReplace renames oldpath to newpath with MoveFileEx without
// MOVEFILE_REPLACE_EXISTING (nor MOVEFILE_COPY_ALLOWED: across volumes it
// fails with ERROR_NOT_SAME_DEVICE rather than copy): anything at newpath
// fails it (ERROR_ALREADY_EXISTS). A file in the folder that another
// program holds without delete sharing fails it too (a sharing violation
// or access denied: busy).
func moveNoReplace(oldpath, newpath string) error {
	from, err := windows.UTF16PtrFromString(longpath.Extend(oldpath))
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	to, err := windows.UTF16PtrFromString(longpath.Extend(newpath))
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	if err := windows.MoveFileEx(from, to, 0); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}
