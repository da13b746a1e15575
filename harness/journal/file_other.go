//go:build !unix

package journal

import "os"

func openNoBlock(path string) (*os.File, error) { return os.Open(path) }

func blockAgain(*os.File) error { return nil }
