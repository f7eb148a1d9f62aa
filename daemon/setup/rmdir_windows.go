package setup

import "golang.org/x/sys/windows"

// removeDir removes the empty folder dir, and nothing else: never a file
// of the same name.
func removeDir(dir string) error {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return err
	}
	return windows.RemoveDirectory(p)
}
