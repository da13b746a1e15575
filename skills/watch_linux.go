//go:build linux

package skills

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
)

// dirMask is every change to a folder's entries or to the folder.
const dirMask = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE | syscall.IN_MOVED_FROM |
	syscall.IN_MOVED_TO | syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF

// ancestorMask is what an ancestor of a root can do to the root's path:
// replace, remove or create the entry on it, or change its permissions.
const ancestorMask = syscall.IN_ATTRIB | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_CREATE |
	syscall.IN_DELETE | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF

// localFS are the file systems whose every change inotify reports; on
// others (network and FUSE file systems) a change made elsewhere is
// never heard of, and the stats stay.
var localFS = map[int64]string{
	0xEF53: "ext4", 0x58465342: "xfs", 0x9123683E: "btrfs", 0x01021994: "tmpfs", 0x794c7630: "overlayfs",
	0xF2F52010: "f2fs", 0x2FC12FC1: "zfs", 0x52654973: "reiserfs", 0x4d44: "vfat", 0x5346544e: "ntfs3",
}

// watcher is one inotify instance over a catalog's folders.
type watcher struct {
	fd int
	// wds are the watches by folder; only holds, for an ancestor's watch,
	// the entry names that matter (a watch absent from only counts every
	// event).
	wds  map[string]int32
	only map[int32][]string
	// live are the watches ensure keeps; events of the others (one just
	// removed, say) are not news.
	live map[int32]bool
	// trusted is set while a quiet watcher means nothing changed.
	trusted bool
	buf     []byte
	closed  sync.Once
}

func newWatcher() (*watcher, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("watch skill folders: %w", err)
	}
	return &watcher{fd: fd, wds: map[string]int32{}, only: map[int32][]string{}, buf: make([]byte, 64<<10)}, nil
}

// close is safe to call twice: the catalog's cleanup may follow it.
func (w *watcher) close() { w.closed.Do(func() { _ = syscall.Close(w.fd) }) }

// ensure watches what p names: its folders whole, and each root's
// ancestors for the entry on the root's path. It reports whether any
// watch is new, or any change came in meanwhile: then the watcher cannot
// vouch for the refresh that just read the folders.
func (w *watcher) ensure(p *watchPlan) (bool, error) {
	fresh := w.changed()
	wds := make(map[string]int32, len(p.dirs)+8)
	only := map[int32][]string{}
	add := func(dir string, mask uint32, name string) error {
		wd, err := syscall.InotifyAddWatch(w.fd, dir, mask|syscall.IN_MASK_ADD|syscall.IN_ONLYDIR)
		switch {
		case errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EACCES):
			return nil // not there: the watched folder above it hears of its coming
		case err != nil:
			return fmt.Errorf("watch %s: %w", dir, err)
		}
		if old, ok := w.wds[dir]; !ok || old != int32(wd) {
			fresh = true
		}
		if prev, seen := wds[dir]; seen && prev == int32(wd) {
			if names, filtered := only[prev]; filtered && name != "" && !slices.Contains(names, name) {
				only[prev] = append(names, name)
			} else if name == "" {
				delete(only, prev)
			}
			return nil
		}
		wds[dir] = int32(wd)
		if name != "" {
			only[int32(wd)] = []string{name}
		}
		return nil
	}
	for _, f := range p.files {
		var st syscall.Stat_t
		if err := syscall.Lstat(f, &st); err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
			return true, fmt.Errorf("watch %s: it is a link", f)
		}
	}
	for _, dir := range p.dirs {
		if err := add(dir, dirMask, ""); err != nil {
			return true, err
		}
	}
	for _, root := range p.roots {
		var st syscall.Statfs_t
		if err := syscall.Statfs(nearestExisting(root), &st); err != nil {
			return true, fmt.Errorf("watch %s: %w", root, err)
		}
		if _, ok := localFS[int64(st.Type)]; !ok {
			return true, fmt.Errorf("watch %s: its file system (0x%x) may not report changes", root, st.Type)
		}
		for d := root; ; {
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			if _, whole := wds[parent]; !whole || only[wds[parent]] != nil {
				if err := add(parent, ancestorMask, filepath.Base(d)); err != nil {
					return true, err
				}
			}
			d = parent
		}
	}
	for dir, wd := range w.wds {
		if cur, ok := wds[dir]; !ok || cur != wd {
			_, _ = syscall.InotifyRmWatch(w.fd, uint32(wd))
		}
	}
	live := make(map[int32]bool, len(wds))
	for _, wd := range wds {
		live[wd] = true
	}
	w.wds, w.only, w.live = wds, only, live
	return fresh, nil
}

// nearestExisting is dir, or its nearest ancestor that exists.
func nearestExisting(dir string) string {
	for {
		var st syscall.Stat_t
		if syscall.Stat(dir, &st) == nil || filepath.Dir(dir) == dir {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}

// changed reads the events that came in and reports whether any says a
// watched folder may have changed.
func (w *watcher) changed() bool {
	found := false
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.EAGAIN) {
			return found
		}
		if err != nil || n <= 0 {
			return true // a watcher that cannot be read vouches for nothing
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(w.buf[off:]))
			mask := binary.NativeEndian.Uint32(w.buf[off+4:])
			size := int(binary.NativeEndian.Uint32(w.buf[off+12:]))
			start := off + syscall.SizeofInotifyEvent
			off = start + size
			if off > n {
				return true
			}
			name := string(trimNUL(w.buf[start:off]))
			names, filtered := w.only[wd]
			switch {
			case mask&syscall.IN_Q_OVERFLOW != 0:
				found = true
			case !w.live[wd]:
			case mask&(syscall.IN_IGNORED|syscall.IN_UNMOUNT|syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF) != 0:
				found = true
			case !filtered || slices.Contains(names, name) || name == "":
				found = true
			}
		}
	}
}

func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}
