//go:build !linux && !darwin && !windows

package atomicfile

// moveNoReplace renames oldpath to newpath through a folder of its own at
// newpath (see [moveIntoMadeFolder]): these systems have no rename that
// refuses to replace.
func moveNoReplace(oldpath, newpath string) error { return moveIntoMadeFolder(oldpath, newpath) }
