package pipeline

import (
	"errors"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// Rules of the reasons an archive waits (ResultWaiting): the machine's
// condition stopped it, not its bytes. It is not rejected, its try is not
// counted toward MaxAttempts, and the next pass tries it again.
const (
	// RuleHeld: a file is held open by another program (the game).
	RuleHeld = "held"
	// RuleReadOnly: a file in the way is read-only and not forgesync's.
	RuleReadOnly = "read-only"
	// RuleInTheWay: a file or link forgesync did not place stands where a
	// pack's file or folder goes (place.ErrForeign).
	RuleInTheWay = "in-the-way"
	// RuleDiskFull: the disk (staging, paks or state) is full.
	RuleDiskFull = "disk-full"
	// RuleFault: another condition of the machine (an I/O error, a
	// permission, a process that could not start).
	RuleFault = "fault"
)

// faultRetry is how long an archive that waits for the machine's condition
// is not claimed again by [Pipeline.Claim] (the watcher's batches, which
// see it back in drop at once): while a game holds a file, each try would
// cost the writer a wait. [Pipeline.SyncDrop], an explicit request, tries it
// at once.
const faultRetry = 30 * time.Second

// faulted is an archive put back in drop by a fault: not claimed again
// before retry, and its reason, said again meanwhile.
type faulted struct {
	retry  time.Time
	reason rejection.Reason
}

// faultErrnos are the errors that say the machine, not the archive, failed.
var faultErrnos = []error{
	syscall.ENOSPC, syscall.EDQUOT, syscall.EIO, syscall.EROFS, syscall.EACCES, syscall.EPERM,
	syscall.ENOMEM, syscall.EAGAIN, syscall.EMFILE, syscall.ENFILE, exec.ErrNotFound,
}

// isFault reports whether err is the machine's condition rather than the
// archive's: a held or read-only file, a file of someone else's at a
// target (place.ErrForeign), a full disk, an I/O or permission
// error, a child process that could not start or that ran out of time
// without getting the processor (intake.ErrStarved).
func isFault(err error) bool {
	if errors.Is(err, atomicfile.ErrBusy) || errors.Is(err, atomicfile.ErrReadOnly) || errors.Is(err, place.ErrForeign) ||
		diskFull(err) || errors.Is(err, intake.ErrStarved) {
		return true
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "fork/exec" {
		return true // os.StartProcess, on every OS
	}
	for _, e := range faultErrnos {
		if errors.Is(err, e) {
			return true
		}
	}
	return platformFault(err) || childFault(err)
}

// childFaultWords end the failure of an isolated unpacker when the
// machine failed it: the child sends its error as words, without the
// errno, so they are matched at the end, where Go's errors put the errno's
// words (on Linux, then on Windows).
var childFaultWords = []string{
	"no space left on device", "disk quota exceeded", "input/output error", "read-only file system",
	"permission denied", "cannot allocate memory", "too many open files",
	"There is not enough space on the disk.", "The disk is full.", "Access is denied.",
	"The media is write protected.", "Not enough memory resources are available to process this command.",
}

// childFault reports whether err's words end with those of a condition of
// the machine (see childFaultWords).
func childFault(err error) bool {
	s := err.Error()
	for _, w := range childFaultWords {
		if strings.HasSuffix(s, w) {
			return true
		}
	}
	return false
}

// diskFull reports whether err says a disk or a quota is full.
func diskFull(err error) bool { return DiskFull(err) }

// DiskFull reports whether err says a disk is full or a quota is reached,
// on any OS: the machine's condition, which passes.
func DiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || platformDiskFull(err)
}

// placedFile returns the file of paks a placement error is about, or "".
func placedFile(err error, paks string) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "place content" {
		return filepath.Join(paks, filepath.FromSlash(pe.Path))
	}
	return ""
}

// faultReason says what stopped an archive, where (file, when known), and
// what to do; retry says what becomes of the archive ("the archive waits in
// drop and is retried at the next pass").
func faultReason(err error, file, retry string) rejection.Reason {
	r := rejection.Reason{Rule: RuleFault, Value: err.Error()}
	what := "a file"
	if file != "" {
		what = file
	}
	switch {
	case errors.Is(err, atomicfile.ErrReadOnly):
		r.Rule, r.Message = RuleReadOnly, what+" is read-only (attrib +r) and forgesync did not place it; clear the attribute (attrib -r) or move it away"
	case errors.Is(err, place.ErrForeign):
		r.Rule, r.Message = RuleInTheWay, what+" is in the pack's way and forgesync did not place it; move it away"
	case errors.Is(err, atomicfile.ErrBusy):
		r.Rule, r.Message = RuleHeld, what+" is held by another program (the game?); close it"
	case diskFull(err), strings.HasSuffix(err.Error(), "no space left on device"),
		strings.HasSuffix(err.Error(), "There is not enough space on the disk."), strings.HasSuffix(err.Error(), "The disk is full."):
		r.Rule, r.Message = RuleDiskFull, "the disk is full; free some space"
	case errors.Is(err, intake.ErrStarved):
		r.Message = "the unpacker ran out of time without getting the processor (the game or other programs took it, or the disk is slow); nothing needs fixing"
	default:
		r.Message = "the machine failed, not the archive; fix the cause"
	}
	r.File = file
	r.Message += " — " + retry + " (" + err.Error() + ")"
	return r
}

// waitError is a change the machine's condition stopped (a file the game
// holds, a full disk) before anything of it was changed: a fault, not a
// refusal. Reason says what stops it and what to do; nothing finishes the
// change later behind the user's back. Its kind is errkind.Internal, as
// every fault's: the request may succeed as sent once the cause is gone.
type waitError struct {
	Reason rejection.Reason
	err    error
}

func (e *waitError) Error() string { return e.Reason.Message }

// Unwrap gives the kind first, so that it wins over one the cause carries
// (a damaged kept archive is ErrArchiveMismatch's conflict).
func (e *waitError) Unwrap() []error { return []error{errkind.Internal, e.err} }

// changeWaits returns the WaitError of a set apply or a rollback (cause)
// that err stopped with nothing changed.
func (p *Pipeline) changeWaits(cause store.Cause, err error) error {
	what, again := "the set was not applied", "apply it again"
	if cause == CauseRollback {
		what, again = "the rollback was not done", "roll back again"
	}
	r := faultReason(err, placedFile(err, p.opts.Paks), "nothing changed; "+again+" once that is done")
	r.Message = what + ": " + r.Message
	return &waitError{Reason: r, err: err}
}
