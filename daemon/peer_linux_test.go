package daemon

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestPeerCheckAllowUID checks the wrapping listener without changing
// users: a policy that refuses every uid closes the connection unanswered
// and logs it; the default policy serves the daemon's own user.
func TestPeerCheckAllowUID(t *testing.T) {
	refuse := startServer(t, newFakeBackend(), nil, ServerOptions{AllowUID: func(uint32) bool { return false }})
	if _, err := refuse.client.Status(waitCtx(t)); err == nil {
		t.Fatal("Status() from a refused uid = nil error; want the connection closed")
	}
	if want := fmt.Sprintf("uid=%d", os.Geteuid()); !strings.Contains(refuse.logs.String(), "refused a peer of another user") || !strings.Contains(refuse.logs.String(), want) {
		t.Errorf("logs = %s; want the refusal with %s", refuse.logs.String(), want)
	}
	allow := startServer(t, newFakeBackend(), nil, ServerOptions{})
	if _, err := allow.client.Status(waitCtx(t)); err != nil {
		t.Fatalf("Status() from the daemon's own uid = %v", err)
	}
}

const peerHelperEnv = "FORGESYNC_PEER_HELPER_SOCKET"

// TestPeerHelper is not a test of its own: TestPeerUIDRefused runs the test
// binary as another user with this test selected, and reads its line.
func TestPeerHelper(t *testing.T) {
	path := os.Getenv(peerHelperEnv)
	if path == "" {
		t.Skip("helper for TestPeerUIDRefused")
	}
	fmt.Println("peer-helper:", peerRequest(path))
}

// peerRequest dials the socket and sends GET /v1/status, and says how far it
// got: "dial failed", "refused" (connected, but no answer) or "answered".
func peerRequest(path string) string {
	conn, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		return "dial failed: " + err.Error()
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, "GET /v1/status HTTP/1.1\r\nHost: forgesync\r\n\r\n"); err != nil {
		return "refused: write: " + err.Error()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return "refused: " + err.Error()
	}
	resp.Body.Close()
	return fmt.Sprintf("answered %d", resp.StatusCode)
}

// TestPeerUIDRefused runs a client as uid 65534 (nobody) against a socket
// whose file modes let anyone connect, so that only the peer-uid check can
// refuse it. Root is needed to switch users.
func TestPeerUIDRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		if toolcheck.InCI() {
			t.Fatal("CI runs the tests as root; this one needs root to run a client as another user")
		}
		t.Skip("needs root to run a client as another user")
	}
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	dir := filepath.Dir(s.path)
	// Open the folder and the socket so file permissions let nobody in.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.path, 0o666); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(dir, "peer-helper.test")
	copyExecutable(t, exe, helper)

	run := func(cred *syscall.Credential) string {
		cmd := exec.CommandContext(waitCtx(t), helper, "-test.run=^TestPeerHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), peerHelperEnv+"="+s.path)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("peer helper: %v\n%s", err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if r, ok := strings.CutPrefix(line, "peer-helper: "); ok {
				return r
			}
		}
		t.Fatalf("peer helper printed no result:\n%s", out)
		return ""
	}
	// The harness works: the daemon's own user is answered.
	if got := run(nil); got != "answered 200" {
		t.Fatalf("helper as root: %s; want answered 200", got)
	}
	got := run(&syscall.Credential{Uid: 65534, Gid: 65534})
	if !strings.HasPrefix(got, "refused") {
		t.Fatalf("helper as uid 65534: %s; want it connected and refused", got)
	}
	if logs := s.logs.String(); !strings.Contains(logs, "refused a peer of another user") || !strings.Contains(logs, "uid=65534") {
		t.Errorf("logs = %s; want the refusal of uid 65534 logged", logs)
	}
	if _, err := s.client.Status(waitCtx(t)); err != nil {
		t.Fatalf("Status() after refusing a peer = %v", err)
	}
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
