//go:build !unix

package tools

import "errors"

func mkfifo(path string) error { return errors.New("no named pipes here") }
