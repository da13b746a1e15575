package skills

import (
	"errors"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// watchMask is every change to a folder's entries or a file's content or
// times that a refresh would find by its stats.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// dirWatch is the kernel's record (inotify) of changes to a set of folders
// and files. The events are read in changed, on the refresh's own
// goroutine: whatever was written before the refresh began is already
// queued, so nothing slips between a change and the refresh that should
// see it.
type dirWatch struct {
	fd      int
	cleanup runtime.Cleanup
	buf     []byte
}

// newDirWatch starts an empty watch; nil where inotify is not available
// (or its instances are used up), and the catalog stats every file.
func newDirWatch() *dirWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &dirWatch{fd: fd}
	// a catalog dropped without Close must not keep the descriptor
	w.cleanup = runtime.AddCleanup(w, func(fd int) { unix.Close(fd) }, fd)
	return w
}

// add watches one folder or file (following links to it).
func (w *dirWatch) add(path string) error {
	_, err := unix.InotifyAddWatch(w.fd, path, watchMask)
	return err
}

// addAncestor watches the nearest folder above path that exists: path
// (a root or a tool folder not made yet) appears there first.
func (w *dirWatch) addAncestor(path string) bool {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if w.add(d) == nil {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// changed reads the events queued so far and reports whether there was
// one (an overflow of the queue or a failed read count as one).
func (w *dirWatch) changed() bool {
	if w.buf == nil {
		w.buf = make([]byte, 16<<10)
	}
	any := false
	for {
		n, err := unix.Read(w.fd, w.buf)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return any
		case err != nil || n <= 0:
			return true
		}
		any = true
	}
}

// close ends the watch.
func (w *dirWatch) close() {
	w.cleanup.Stop()
	unix.Close(w.fd)
}
