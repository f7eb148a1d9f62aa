package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// errAlreadyRunning is matched (errors.Is) by the [alreadyRunningError]
// that [Listen] returns when another daemon answers on the socket.
var errAlreadyRunning = errors.New("daemon: another daemon is running")

// alreadyRunningError is returned by [Listen] when a live daemon answers on
// the socket path.
type alreadyRunningError struct {
	Path string // the socket
	PID  int    // the running daemon's process id, 0 when it could not be learnt
}

func (e *alreadyRunningError) Error() string {
	who := "another forgesync daemon"
	if e.PID > 0 {
		who = fmt.Sprintf("another forgesync daemon (pid %d)", e.PID)
	}
	return fmt.Sprintf("status socket %s: %s is running and answers on it; stop it first (forgesync service stop, or end that process) or set another [paths] socket", e.Path, who)
}

// Is reports whether target is [errAlreadyRunning].
func (e *alreadyRunningError) Is(target error) bool { return target == errAlreadyRunning }

// maxSocketPath is the longest AF_UNIX path: sun_path holds 108 bytes with
// the final NUL, on Linux and on Windows.
const maxSocketPath = 107

// probeTimeout bounds the dial that tells a live socket from a stale one.
const probeTimeout = 2 * time.Second

// Listen opens the status socket at path the safe way: it creates the
// socket's folder (mode 0700, and sets 0700 on an existing folder only when
// it is empty; a shared folder such as /, /run or /tmp is refused with
// [errSharedFolder], see decideFolder); if
// a file is already at path it dials it, and refuses with an
// [*AlreadyRunningError] when a daemon answers, or removes the file when the
// dial proves it dead (connection refused); then it listens and sets the
// socket's mode to 0600. A file at path that is not a socket is never
// removed. The path is made absolute first, because a service starts in
// another working directory.
//
// On Windows (10 and later, which have AF_UNIX) the same steps run, except
// that file modes are not set: access follows the folder's ACL, which for
// the default %LOCALAPPDATA% folder is the user's own.
func Listen(path string) (net.Listener, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("status socket %s: %w", path, err)
	}
	if len(abs) > maxSocketPath {
		return nil, fmt.Errorf("status socket %s: the path is %d bytes, longer than the %d an AF_UNIX socket allows; set [paths] socket to a shorter path in a folder of its own, such as %s (never a drive root or a shared folder: forgesync makes the socket's folder private)", abs, len(abs), maxSocketPath, socketExample)
	}
	if err := prepareDir(filepath.Dir(abs)); err != nil {
		return nil, err
	}
	if err := clearStale(abs); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", abs)
	if err != nil {
		return nil, fmt.Errorf("listen on status socket %s: %w", abs, err)
	}
	if err := chmodSocket(abs); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// clearStale removes the file at path when it is a socket nobody answers
// on; it refuses when a daemon answers or the file is not a socket.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check status socket %s: %w", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("status socket %s: a %s is in the way, not a socket; remove it or set another [paths] socket", path, describeMode(fi.Mode()))
	}
	conn, err := net.DialTimeout("unix", path, probeTimeout)
	if err == nil {
		pid := runningPID(conn)
		conn.Close()
		return &alreadyRunningError{Path: path, PID: pid}
	}
	if !isStaleDial(err) {
		return fmt.Errorf("status socket %s: cannot tell whether a daemon answers on it: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale status socket %s: %w", path, err)
	}
	return nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "folder"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// runningPID learns the process id of the daemon at the other end of conn:
// from the peer credentials where the OS gives them, else by asking its
// /v1/status. It returns 0 when neither works.
func runningPID(conn net.Conn) int {
	if pid := peerPID(conn); pid > 0 {
		return pid
	}
	return statusPID(conn)
}

// statusPID asks the daemon at the other end of conn for its /v1/status and
// returns the pid in it, 0 when that fails.
func statusPID(conn net.Conn) int {
	_ = conn.SetDeadline(time.Now().Add(probeTimeout)) // fails only on a closed conn, which the request then reports
	req, err := http.NewRequest(http.MethodGet, "http://forgesync/v1/status", nil)
	if err != nil {
		return 0
	}
	req.Close = true
	if err := req.Write(conn); err != nil {
		return 0
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var st struct {
		PID int `json:"pid"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&st) != nil {
		return 0
	}
	return st.PID
}
