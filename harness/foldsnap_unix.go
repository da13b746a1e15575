//go:build unix

package harness

import (
	"os"
	"syscall"
)

// fileIdentity is the device and inode of a file: a journal copied or
// written anew is another file, whose snapshot is not this one's — a
// snapshot is trusted only beside the file it was written for.
func fileIdentity(fi os.FileInfo) (dev, ino uint64, ok bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino), true
	}
	return 0, 0, false
}
