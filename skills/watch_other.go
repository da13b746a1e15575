//go:build !linux

package skills

// dirWatch needs inotify: elsewhere the catalog stats every file.
type dirWatch struct{}

func newDirWatch() *dirWatch                { return nil }
func (w *dirWatch) add(string) error        { return nil }
func (w *dirWatch) addAncestor(string) bool { return false }
func (w *dirWatch) changed() bool           { return true }
func (w *dirWatch) close()                  {}
