//go:build !linux

package skills

import "errors"

// watcher is absent off Linux: every refresh reads the folders.
type watcher struct{ trusted bool }

func newWatcher() (*watcher, error) { return nil, errors.New("watching skill folders needs Linux") }

func (w *watcher) close() {}

func (w *watcher) ensure(*watchPlan) (bool, error) { return true, nil }

func (w *watcher) changed() bool { return true }
