//go:build unix

package journal

import (
	"os"
	"syscall"
)

func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// blockAgain turns O_NONBLOCK off: reads of a regular file never wait, but
// the flag is no part of how the file is read afterwards.
func blockAgain(f *os.File) error {
	return syscall.SetNonblock(int(f.Fd()), false)
}
