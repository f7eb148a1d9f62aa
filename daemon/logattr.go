package daemon

import "log/slog"

// Log attribute keys of this package, in one place.
const (
	keyMethod = "method"
	keyPath   = "path"
	keyStatus = "status"
	keyCode   = "code"
	keyErr    = "err"
	keySocket = "socket"
	keyUID    = "uid"
	keyPID    = "pid"
	keyLastID = "last_id"
	keySince  = "since"
)

func attrErr(err error) slog.Attr { return slog.String(keyErr, err.Error()) }
