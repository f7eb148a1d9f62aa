//go:build !windows

package daemon

import (
	"os"
	"syscall"
)

// loggedSignals are the signals the daemon logs when it receives them:
// SIGHUP reloads the config, SIGINT and SIGTERM stop it, SIGUSR1 and
// SIGUSR2 are logged and otherwise ignored.
var loggedSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2}

// isReloadSignal reports whether s asks the daemon to reload its config.
func isReloadSignal(s os.Signal) bool { return s == syscall.SIGHUP }
