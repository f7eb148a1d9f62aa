package watch

import "github.com/fsnotify/fsnotify"

// EventSource is a feed of file-system events on one folder: the part of an
// *fsnotify.Watcher that a [Watcher] uses. [newFSNotifySource] makes the real
// one; tests make fakes that push events and errors such as
// fsnotify.ErrEventOverflow.
type EventSource interface {
	// Add starts watching the folder at path, not recursively.
	Add(path string) error
	// Events returns the channel events arrive on. It is closed when the
	// source stops.
	Events() <-chan fsnotify.Event
	// Errors returns the channel errors arrive on, among them
	// fsnotify.ErrEventOverflow when events were lost. It is closed when the
	// source stops.
	Errors() <-chan error
	// Close stops the source and releases what it holds. After it returns,
	// the source's goroutines have ended.
	Close() error
}

// newFSNotifySource returns an [EventSource] backed by
// github.com/fsnotify/fsnotify (inotify on Linux, ReadDirectoryChangesW on
// Windows, kqueue on macOS and the BSDs).
func newFSNotifySource() (EventSource, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsnotifySource{w}, nil
}

type fsnotifySource struct{ w *fsnotify.Watcher }

func (s fsnotifySource) Add(path string) error         { return s.w.Add(sourcePath(path)) }
func (s fsnotifySource) Events() <-chan fsnotify.Event { return s.w.Events }
func (s fsnotifySource) Errors() <-chan error          { return s.w.Errors }
func (s fsnotifySource) Close() error                  { return s.w.Close() }
