package casefold

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// Mount serves the folder backing at mountpoint as a case-insensitive file
// system until unmount is called; wait bounds how long unmount waits for
// the server to end. backing must be empty and is the file system's own:
// each name is kept there in lower case, its spelling remembered by the
// server. It needs root (mount(2)) and /dev/fuse.
func Mount(backing, mountpoint string, wait time.Duration) (unmount func() error, err error) {
	fsys := &fileSystem{backing: backing, names: map[string]string{}}
	zero := time.Duration(0)
	server, err := fs.Mount(mountpoint, &node{fsys: fsys}, &fs.Options{
		EntryTimeout: &zero, AttrTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{DirectMountStrict: true, FsName: "casefold", Name: "casefold"},
	})
	if err != nil {
		return nil, fmt.Errorf("casefold: mount %s: %w", mountpoint, err)
	}
	return func() error {
		done := make(chan error, 1)
		go func() { done <- server.Unmount() }()
		select {
		case err := <-done:
			return err
		case <-time.After(wait):
			return fmt.Errorf("casefold: unmount %s: still busy after %s", mountpoint, wait)
		}
	}, nil
}

// fileSystem is the state the nodes share: the backing folder, and the
// spelling each name was made with, by its backing path.
type fileSystem struct {
	backing string
	mu      sync.Mutex // guards names
	names   map[string]string
}

// fold is the form two spellings of a name share.
func fold(name string) string { return strings.ToLower(name) }

// node is a file or folder. Its backing path is its path as the kernel
// spelled it, folded: every spelling leads to the same backing file.
type node struct {
	fs.Inode
	fsys *fileSystem
}

func (n *node) path() string { return filepath.Join(n.fsys.backing, fold(n.Path(nil))) }

func (n *node) child(name string) string { return filepath.Join(n.path(), fold(name)) }

// made remembers the spelling of a name just made, unless one is known.
func (n *node) made(name string) {
	n.fsys.mu.Lock()
	defer n.fsys.mu.Unlock()
	if _, ok := n.fsys.names[n.child(name)]; !ok {
		n.fsys.names[n.child(name)] = name
	}
}

// gone forgets the spelling of name and of everything under it.
func (fsys *fileSystem) gone(path string) {
	fsys.mu.Lock()
	defer fsys.mu.Unlock()
	for k := range fsys.names {
		if k == path || strings.HasPrefix(k, path+"/") {
			delete(fsys.names, k)
		}
	}
}

// moved gives what was at from, and everything under it, the keys of to,
// whose spelling is now name; what to replaced is forgotten.
func (fsys *fileSystem) moved(from, to, name string) {
	fsys.mu.Lock()
	defer fsys.mu.Unlock()
	under := map[string]string{}
	for k, v := range fsys.names {
		if strings.HasPrefix(k, from+"/") {
			under[to+k[len(from):]] = v
		}
		if k == from || k == to || strings.HasPrefix(k, from+"/") || strings.HasPrefix(k, to+"/") {
			delete(fsys.names, k)
		}
	}
	for k, v := range under {
		fsys.names[k] = v
	}
	fsys.names[to] = name
}

func (n *node) newChild(ctx context.Context, st *syscall.Stat_t) *fs.Inode {
	return n.NewInode(ctx, &node{fsys: n.fsys}, fs.StableAttr{Mode: st.Mode, Ino: st.Ino})
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	var st syscall.Stat_t
	if err := syscall.Lstat(n.child(name), &st); err != nil {
		return nil, fs.ToErrno(err)
	}
	out.Attr.FromStat(&st)
	return n.newChild(ctx, &st), 0
}

func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if g, ok := f.(fs.FileGetattrer); ok {
		return g.Getattr(ctx, out)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(n.path(), &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	return 0
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	p := n.path()
	if m, ok := in.GetMode(); ok {
		if err := syscall.Chmod(p, m); err != nil {
			return fs.ToErrno(err)
		}
	}
	if sz, ok := in.GetSize(); ok {
		if err := syscall.Truncate(p, int64(sz)); err != nil {
			return fs.ToErrno(err)
		}
	}
	mtime, mok := in.GetMTime()
	atime, aok := in.GetATime()
	if mok || aok {
		ts := []unix.Timespec{{Nsec: unix.UTIME_OMIT}, {Nsec: unix.UTIME_OMIT}}
		if aok {
			ts[0] = unix.NsecToTimespec(atime.UnixNano())
		}
		if mok {
			ts[1] = unix.NsecToTimespec(mtime.UnixNano())
		}
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fs.ToErrno(err)
		}
	}
	return n.Getattr(ctx, nil, out)
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fd, err := syscall.Open(n.path(), int(flags&^syscall.O_APPEND), 0)
	if err != nil {
		return nil, 0, fs.ToErrno(err)
	}
	return fs.NewLoopbackFile(fd), 0, 0
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	fd, err := syscall.Open(n.child(name), int(flags&^syscall.O_APPEND)|os.O_CREATE, mode)
	if err != nil {
		return nil, nil, 0, fs.ToErrno(err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, nil, 0, fs.ToErrno(err)
	}
	n.made(name)
	out.FromStat(&st)
	return n.newChild(ctx, &st), fs.NewLoopbackFile(fd), 0, 0
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if err := syscall.Mkdir(n.child(name), mode); err != nil {
		return nil, fs.ToErrno(err)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(n.child(name), &st); err != nil {
		return nil, fs.ToErrno(err)
	}
	n.made(name)
	out.FromStat(&st)
	return n.newChild(ctx, &st), 0
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	if err := syscall.Unlink(n.child(name)); err != nil {
		return fs.ToErrno(err)
	}
	n.fsys.gone(n.child(name))
	return 0
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	if err := syscall.Rmdir(n.child(name)); err != nil {
		return fs.ToErrno(err)
	}
	n.fsys.gone(n.child(name))
	return 0
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*node)
	if !ok {
		return syscall.EXDEV
	}
	from, to := n.child(name), np.child(newName)
	if err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, uint(flags)); err != nil {
		return fs.ToErrno(err)
	}
	n.fsys.moved(from, to, newName)
	return 0
}

func (n *node) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	entries, err := os.ReadDir(n.path())
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	list := make([]fuse.DirEntry, 0, len(entries))
	n.fsys.mu.Lock()
	defer n.fsys.mu.Unlock()
	for _, e := range entries {
		name := e.Name()
		if shown, ok := n.fsys.names[filepath.Join(n.path(), name)]; ok {
			name = shown
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(n.path(), e.Name()), &st); err != nil {
			continue // gone meanwhile
		}
		list = append(list, fuse.DirEntry{Name: name, Mode: st.Mode, Ino: st.Ino})
	}
	return fs.NewListDirStream(list), 0
}

func (n *node) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if s, ok := f.(fs.FileFsyncer); ok {
		return s.Fsync(ctx, flags)
	}
	return 0 // a folder: the backing folder's entries are the server's to keep
}

func (n *node) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	var s syscall.Statfs_t
	if err := syscall.Statfs(n.fsys.backing, &s); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStatfsT(&s)
	return 0
}

var (
	_ fs.NodeLookuper  = (*node)(nil)
	_ fs.NodeGetattrer = (*node)(nil)
	_ fs.NodeSetattrer = (*node)(nil)
	_ fs.NodeOpener    = (*node)(nil)
	_ fs.NodeCreater   = (*node)(nil)
	_ fs.NodeMkdirer   = (*node)(nil)
	_ fs.NodeUnlinker  = (*node)(nil)
	_ fs.NodeRmdirer   = (*node)(nil)
	_ fs.NodeRenamer   = (*node)(nil)
	_ fs.NodeReaddirer = (*node)(nil)
	_ fs.NodeFsyncer   = (*node)(nil)
	_ fs.NodeStatfser  = (*node)(nil)
)
