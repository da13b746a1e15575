//go:build !unix

package journal

import "os"

// lockJournal is a no-op where flock does not exist.
func lockJournal(*os.File) error { return nil }
