// Package daemon owns forgesync running on this machine from its
// configuration. Serving: the OS service (github.com/kardianos/service)
// and its lifecycle, the status socket (HTTP/1.1 with JSON bodies over
// AF_UNIX, SPEC §8) and the TCP API, the event stream they serve, and the
// composition of the daemon (socket, single writer, watcher, periodic
// redeploy and set follower under one errgroup, see [Machine.Serve]). And
// reaching it: the Go client the CLI uses to talk to a running daemon, and
// the one-shot operations of the CLI (sync, install, enable, disable,
// remove, rollback, a set's sync, the installed and the kept packs), each
// done through the running daemon when one answers (it is the single
// writer), or else locally under the state's lock, with the local deploy
// and summary merging a daemon does for itself. An error carries its kind
// (internal/errkind: refused, not found, busy…), the same whether the
// daemon answered or the state was opened locally.
//
// What the socket serves comes from a [Backend] ([NewBackend] serves the
// pipeline's Runner and the set follower): reads are snapshots that never
// wait for a running sync; mutations go through the pipeline's single
// writer and block until it is done or the caller's context ends. The
// domain answers in its own values and reports through the observers it
// owns; this package turns them into api's wire shapes once (wire.go: the
// answers, the local operations' summaries; publish.go: the events).
//
// Caveats: the peer-uid check of the socket (SO_PEERCRED) exists on Linux
// only; elsewhere the socket relies on its file mode and its folder's. On
// Windows the folder and file modes are not enforced by the OS the way they
// are on Unix (AF_UNIX sockets there follow the folder's ACL). Two daemons
// that start at the same instant on one stale socket file can race between
// the dead-socket check and the listen; the pipeline's state lock is what
// keeps a second writer out.
package daemon
