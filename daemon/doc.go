// Package daemon owns the running side of forgesync that faces the outside:
// the OS service (github.com/kardianos/service) and its lifecycle, the status
// socket (HTTP/1.1 with JSON bodies over AF_UNIX, SPEC §8), the event stream
// it serves, and the Go client the CLI uses to talk to a running daemon.
//
// It knows nothing of validation or files: what the socket serves comes from
// a [Backend], which the pipeline implements. Reads are snapshots that never
// wait for a running sync; mutations go through the pipeline's single writer
// and block until it is done or the caller's context ends.
//
// Caveats: the peer-uid check of the socket (SO_PEERCRED) exists on Linux
// only; elsewhere the socket relies on its file mode and its folder's. On
// Windows the folder and file modes are not enforced by the OS the way they
// are on Unix (AF_UNIX sockets there follow the folder's ACL). Two daemons
// that start at the same instant on one stale socket file can race between
// the dead-socket check and the listen; the pipeline's state lock is what
// keeps a second writer out.
package daemon
