//go:build !linux

package daemon

import "errors"

const canLowerThreadPriority = false

func lowerThreadPriority() error { return errors.New("thread priorities are set on Linux only") }
