package pipeline

import (
	"time"

	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/store"
)

// Observer hears what the pipeline does as it does it: the daemon turns
// each call into an event of its stream (SPEC §8), a command may draw
// progress. Its methods are called on the writer's goroutine, in the order
// things happen, with values the observer may keep; they must not block
// for long. Embed [nopObserver] to hear only some.
type Observer interface {
	// PassStarted: a pass over the drop folder that trigger started
	// considers archives (those an earlier pass left in processing, in the
	// order it takes them, then those it is about to claim from drop). It
	// is called before the pass claims anything.
	PassStarted(trigger Trigger, archives []string)
	// ArchiveClaimed: archive, of size bytes, was claimed for processing.
	ArchiveClaimed(archive string, size int64)
	// Extracting: how far the extraction of archive is; total is 0 when
	// not known. At most once every progressEvery per archive, and the
	// last.
	Extracting(archive string, done, total int64)
	// PackChanged: a committed enable, disable or remove changed a pack.
	PackChanged(c PackChange)
	// PackInstalled: a committed archive was installed, replaced another
	// version, was already installed, or joined own (ResultKept).
	PackInstalled(o Outcome)
	// PackRejected: an archive was rejected, with its reasons.
	PackRejected(o Outcome)
	// Published: the inventory files rewritten, in publication order, and
	// the enabled packs of the published set.
	Published(files []string, enabledPacks int)
	// SetApplied: a committed set apply or rollback changed the installed
	// set.
	SetApplied(r SetResult)
	// GenerationRecorded: a committed transaction recorded g.
	GenerationRecorded(g store.Generation)
	// ProfileSwitched: a committed profile switch made s.To current.
	ProfileSwitched(s ProfileSwitch)
	// Warning: something a user should act on, in plain words.
	Warning(message string)
	// PassFinished: a pass over the drop folder ended, committed or
	// failed.
	PassFinished(p Pass)
	// ModuleDeployed: a deploy wrote a file (a Lua script or the native
	// module), or staged it beside one the game holds.
	ModuleDeployed(r deploy.FileReport)
}

// nopObserver hears nothing: the Observer of a pipeline given none, and
// the one to embed in an Observer that hears only some calls.
type nopObserver struct{}

// PassStarted does nothing.
func (nopObserver) PassStarted(Trigger, []string) {}

// ArchiveClaimed does nothing.
func (nopObserver) ArchiveClaimed(string, int64) {}

// Extracting does nothing.
func (nopObserver) Extracting(string, int64, int64) {}

// PackChanged does nothing.
func (nopObserver) PackChanged(PackChange) {}

// PackInstalled does nothing.
func (nopObserver) PackInstalled(Outcome) {}

// PackRejected does nothing.
func (nopObserver) PackRejected(Outcome) {}

// Published does nothing.
func (nopObserver) Published([]string, int) {}

// SetApplied does nothing.
func (nopObserver) SetApplied(SetResult) {}

// GenerationRecorded does nothing.
func (nopObserver) GenerationRecorded(store.Generation) {}

// ProfileSwitched does nothing.
func (nopObserver) ProfileSwitched(ProfileSwitch) {}

// Warning does nothing.
func (nopObserver) Warning(string) {}

// PassFinished does nothing.
func (nopObserver) PassFinished(Pass) {}

// ModuleDeployed does nothing.
func (nopObserver) ModuleDeployed(deploy.FileReport) {}

// Trigger is what started a pass over the drop folder.
type Trigger string

// The triggers of a pass.
const (
	// TriggerStart is the pass at the start, which also finishes what a
	// stop or a crash interrupted.
	TriggerStart Trigger = "start"
	// TriggerWatch is the drop folder's watcher (or its periodic rescan)
	// finding archives that settled.
	TriggerWatch Trigger = "watch"
	// TriggerRequest is a sync request: POST /v1/sync, `forgesync sync`.
	TriggerRequest Trigger = "request"
	// TriggerInstall is `forgesync install FILE`.
	TriggerInstall Trigger = "install"
)

// Pass is how a pass over the drop folder ended: what started it, the
// archives it gave an outcome (in order) and their outcomes counted by
// result, how long it took, the fingerprint of the enabled packs after it
// and the generation it recorded (0 when the installed set did not
// change); or, when it failed, Err, and nothing of it was committed.
type Pass struct {
	Trigger     Trigger
	Archives    []string
	Results     map[Result]int
	Duration    time.Duration
	Fingerprint string
	Generation  int
	Err         error
}

// PackChange is what an enable, disable or remove changed for one pack:
// Kind is ChangeEnabled, ChangeDisabled or ChangeRemoved; Version is the
// installed version (for a removal, the one uninstalled); Generation is
// the generation the change recorded, 0 when none was.
type PackChange struct {
	Kind       ChangeKind
	Pack       string
	Version    string
	Generation int
}
