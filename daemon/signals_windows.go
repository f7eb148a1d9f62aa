package daemon

import (
	"os"
	"syscall"
)

// loggedSignals are the signals the daemon logs when it receives them.
// Windows has no SIGHUP: `forgesync reload` (POST /v1/reload) reloads the
// config.
var loggedSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// isReloadSignal reports whether s asks the daemon to reload its config:
// never on Windows.
func isReloadSignal(os.Signal) bool { return false }
