package follow

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/registrytest"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// checkedSignal signals each check a Syncer reports.
type checkedSignal struct {
	NopObserver
	ch chan Check
}

func (c checkedSignal) Checked(ck Check) { c.ch <- ck }

// TestManualSetPinsFollower: a machine follows a tag; a set applied by
// hand by digest pauses following: several intervals pass and the set
// stays, a check asked for is refused saying how to resume, the pause
// survives a restart (a new Syncer on the state), and resuming applies the
// tag again.
func TestManualSetPinsFollower(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	r := oci.New(oci.Options{Getenv: func(k string) string { return map[string]string{"DOCKER_CONFIG": t.TempDir()}[k] }})
	tag, err := oci.ParseReference("oci://" + reg.Ref("league/packs", "live"))
	if err != nil {
		t.Fatal(err)
	}
	push := func(archive []byte) (lock.Entry, string) {
		t.Helper()
		text, e := lockOf(archive, "packs/x.zip")
		f := ociFile("", oci.MediaTypeArchive, archive)
		f.Title = oci.Title(f.SHA256, ".zip")
		p, err := r.Push(t.Context(), tag, []oci.File{ociFile(oci.LockTitle, oci.MediaTypeLock, []byte(text)), f}, oci.Annotations{Created: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		return e, p.Reference.String()
	}
	old, pinned := push([]byte(strings.Repeat("the old set's archive ", 500)))
	live, _ := push([]byte(strings.Repeat("the live set's archive ", 500)))

	state, w := t.TempDir(), &fakeWriter{}
	ticks := make(chan time.Time)
	checked := checkedSignal{ch: make(chan Check, 16)}
	opts := Options{State: state, Follow: tag.String(), Fetcher: fetch.Fetcher{Registry: r}, Observer: checked,
		Ticks: func(time.Duration) (<-chan time.Time, func()) { return ticks, func() {} }}
	s, err := New(w, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context(), time.Minute) }()
	t.Cleanup(func() { <-done })
	select {
	case c := <-checked.ch:
		if c.Result != CheckApplied && c.Result != CheckEqual || len(w.installed) != 1 || w.installed[0].SHA256 != live.SHA256 {
			t.Fatalf("the first check = %+v; installed %+v; want the tag's set applied", c, w.installed)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the follower made no check")
	}

	// Applied by hand, by digest: following pauses.
	if _, err := s.SyncSet(t.Context(), Request{Source: pinned}); err != nil {
		t.Fatalf("SyncSet(%s) = %v", pinned, err)
	}
	<-checked.ch
	p := s.Paused()
	if p == nil || p.Source != pinned || p.Following != tag.String() || p.Fingerprint != lock.Fingerprint([]lock.Entry{old}) {
		t.Fatalf("Paused() = %+v; want paused by %s, following %s", p, pinned, tag)
	}
	// Several intervals: each tick is taken only once the check before it
	// is done, so the last send follows three checks.
	for range 4 {
		select {
		case ticks <- time.Now():
		case <-time.After(30 * time.Second):
			t.Fatal("the follower took no tick")
		}
	}
	if len(w.installed) != 1 || w.installed[0].SHA256 != old.SHA256 || len(checked.ch) != 0 {
		t.Fatalf("after 3 intervals installed %+v, %d checks; want the set applied by hand, no check", w.installed, len(checked.ch))
	}
	_, err = s.Check(t.Context())
	if !errors.Is(err, errPaused) || errkind.Of(err) != errkind.Conflict || !strings.Contains(err.Error(), "sync --set --follow") {
		t.Fatalf("Check while paused = %v; want ErrPaused naming how to resume", err)
	}
	if st := s.Status(w.installed); st == nil || st.Paused == nil || !st.Following {
		t.Fatalf("Status = %+v; want following, paused", st)
	}

	// A restart keeps the pause.
	again, err := New(w, opts)
	if err != nil {
		t.Fatal(err)
	}
	if p := again.Paused(); p == nil || p.Source != pinned {
		t.Fatalf("after a restart Paused() = %+v; want the pause kept", p)
	}
	res, err := again.Resume(t.Context())
	if err != nil || res.Check.Result != CheckApplied && res.Check.Result != CheckEqual || len(w.installed) != 1 || w.installed[0].SHA256 != live.SHA256 || again.Paused() != nil {
		t.Fatalf("Resume = %+v, %v; installed %+v; want the tag's set applied again, not paused", res, err, w.installed)
	}
}
