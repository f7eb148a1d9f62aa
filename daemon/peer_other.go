//go:build !linux

package daemon

import (
	"log/slog"
	"net"
)

// defaultAllowUID admits everyone: outside Linux the socket has no peer-uid
// check, and relies on its file mode and folder (or, on Windows, the
// folder's ACL).
func defaultAllowUID(uint32) bool { return true }

// checkPeers returns ln as is: SO_PEERCRED is Linux's.
func checkPeers(ln net.Listener, _ func(uint32) bool, _ *slog.Logger) net.Listener { return ln }

// peerUID returns false: peer credentials are read on Linux only.
func peerUID(net.Conn) (uint32, bool) { return 0, false }

// peerPID returns 0: peer credentials are read on Linux only.
func peerPID(net.Conn) int { return 0 }
