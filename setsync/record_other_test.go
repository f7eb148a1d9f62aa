//go:build !unix

package setsync

import "errors"

func syscallMkfifo(string) error { return errors.ErrUnsupported }
