//go:build !unix

package daemon

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
