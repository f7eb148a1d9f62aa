package daemon

import (
	"log/slog"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// defaultAllowUID admits the daemon's own effective uid and root.
func defaultAllowUID(uid uint32) bool {
	return uid == 0 || uid == uint32(os.Geteuid())
}

// checkPeers wraps a Unix listener so that Accept closes, and logs, every
// connection whose peer uid allow refuses. Other listeners pass through.
func checkPeers(ln net.Listener, allow func(uint32) bool, log *slog.Logger) net.Listener {
	if _, ok := ln.(*net.UnixListener); !ok {
		return ln
	}
	return &peerListener{Listener: ln, allow: allow, log: log}
}

// peerListener is a Unix listener that refuses peers by uid.
type peerListener struct {
	net.Listener
	allow func(uint32) bool
	log   *slog.Logger
}

// Accept returns the next connection from an allowed peer. It fails closed:
// a connection whose credentials cannot be read is refused too.
func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		cred, err := ucred(c)
		if err != nil {
			l.log.Warn("status socket: refused a connection whose peer credentials cannot be read", attrErr(err))
			c.Close()
			continue
		}
		if !l.allow(cred.Uid) {
			l.log.Warn("status socket: refused a peer of another user", slog.Uint64(keyUID, uint64(cred.Uid)), slog.Int(keyPID, int(cred.Pid)), slog.String(keySocket, l.Addr().String()))
			c.Close()
			continue
		}
		return c, nil
	}
}

// ucred reads SO_PEERCRED of a Unix connection.
func ucred(c net.Conn) (*unix.Ucred, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, &net.OpError{Op: "getsockopt", Net: c.LocalAddr().Network(), Err: unix.ENOTSOCK}
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, credErr
}

// peerUID returns the uid at the other end of a Unix connection; false
// when it cannot be read.
func peerUID(c net.Conn) (uint32, bool) {
	cred, err := ucred(c)
	if err != nil {
		return 0, false
	}
	return cred.Uid, true
}

// peerPID returns the process id at the other end of a Unix connection, 0
// when it cannot be read.
func peerPID(c net.Conn) int {
	cred, err := ucred(c)
	if err != nil {
		return 0
	}
	return int(cred.Pid)
}
