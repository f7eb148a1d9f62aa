package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/mjolnir-forge/forgesync/installer/store"
)

// ProfileList is the profiles kept on the machine (SPEC §12): the current
// one's name and every profile, own first, then the most recently used.
type ProfileList struct {
	Current  string
	Profiles []ProfileInfo
}

// ProfileInfo is one profile as `profile list` and GET /v1/profiles show
// it: its record, whether it is current, the packs whose archives are not
// kept (a switch to it needs none), the bytes of its kept archives and the
// bytes of those no other profile holds (what removing it frees, unless a
// kept generation still needs them).
type ProfileInfo struct {
	store.Profile
	Current  bool
	Missing  []store.GenerationPack
	Bytes    int64
	OwnBytes int64
}

// Profiles returns the profiles kept on the machine.
func (p *Pipeline) Profiles() (*ProfileList, error) {
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	return listProfiles(p.store.Dir, st)
}

// ReadProfiles returns the profiles of the state folder without taking the
// state lock (the state file is replaced atomically): `forgesync profile
// list` works beside a running daemon.
func ReadProfiles(state string) (*ProfileList, error) {
	s := &store.Store{Dir: state}
	if _, err := os.Lstat(s.Path(store.StateFileName)); errors.Is(err, fs.ErrNotExist) {
		return listProfiles(state, &store.State{})
	}
	st, err := s.Load()
	if err != nil {
		return nil, err
	}
	return listProfiles(state, st)
}

// listProfiles returns the profiles of st, whose state folder is state.
func listProfiles(state string, st *store.State) (*ProfileList, error) {
	kept, err := keptFiles(state)
	if errors.Is(err, fs.ErrNotExist) {
		kept, err = map[string]keptFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	all := allProfiles(st)
	holders := map[string]int{}
	for _, pr := range all {
		for _, gp := range pr.Packs {
			holders[store.KeptKey(gp.ID, gp.Version, gp.SHA256)]++
		}
	}
	out := &ProfileList{Current: st.CurrentProfile()}
	for _, pr := range all {
		info := ProfileInfo{Profile: pr, Current: store.SameProfile(pr.Name, st.CurrentProfile()), Missing: []store.GenerationPack{}}
		if info.Current {
			info.Name = st.CurrentProfile()
		}
		for _, gp := range pr.Packs {
			key := store.KeptKey(gp.ID, gp.Version, gp.SHA256)
			kf, ok := kept[key]
			if !ok {
				if _, err := os.Stat(filepath.Join(state, store.IncomingDir, gp.SHA256)); err != nil {
					info.Missing = append(info.Missing, gp)
				}
				continue
			}
			info.Bytes += kf.size
			if holders[key] == 1 {
				info.OwnBytes += kf.size
			}
		}
		out.Profiles = append(out.Profiles, info)
	}
	rest := out.Profiles[1:]
	slices.SortStableFunc(rest, func(a, b ProfileInfo) int { return b.LastUsed.Compare(a.LastUsed) })
	return out, nil
}
