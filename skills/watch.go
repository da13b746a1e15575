package skills

import "runtime"

// A catalog with many skills pays for each Refresh with a stat of every
// SKILL.md. Where the kernel can say that nothing under the catalog's
// folders changed (inotify on a local file system), a Refresh that hears
// of no change since the one before skips the stats: its answer is the
// one the stats would give. Any event at all, or any doubt, makes the
// refresh a full one, as it always was.

// watchMin is the fewest skills for which a catalog watches its folders:
// below it the stats cost less than a watcher's set-up.
var watchMin = 64

// watchPlan is what a full refresh found to watch: every root and skill
// folder, the tools folders read, and whether watching can stand in for
// the stats at all.
type watchPlan struct {
	dirs []string
	// roots are the root folders as configured, whose every ancestor is
	// watched for being replaced.
	roots []string
	// files are the SKILL.md and tool files read: one that is a link
	// changes where its folder's watch does not see.
	files []string
	// no says why the stats cannot be skipped; "" when they can.
	no string
}

func (p *watchPlan) refuse(why string) {
	if p.no == "" {
		p.no = why
	}
}

// rewatch keeps the catalog's watcher in step with what the refresh just
// read. The watcher is trusted (quiet may skip a refresh) only once a full
// refresh ran from start to end with all its folders watched: a folder
// watched only after it was read may have changed in between.
//
// A watcher that could not be set up is tried again only once the
// folders change: a library that cannot be watched (a link among its
// files) is not set up for at every refresh.
func (c *Catalog) rewatch(p *watchPlan, skills int, changed bool, err error) {
	if err != nil || p.no != "" || skills < watchMin || c.noWatch {
		c.stopWatching()
		return
	}
	if c.watch == nil {
		// a catalog read once (a command that lists skills) is not
		// worth watching, and each watcher takes one of the user's few
		// inotify instances
		if c.fullRefreshes < 2 || (c.watchOff != "" && !changed) {
			return
		}
		w, err := newWatcher()
		if err != nil {
			c.watchOff = err.Error()
			return
		}
		c.watch = w
		// a catalog is dropped without a word: its watcher goes with it
		runtime.AddCleanup(c, func(w *watcher) { w.close() }, w)
	}
	added, err := c.watch.ensure(p)
	if err != nil {
		c.watchOff = err.Error()
		c.stopWatching()
		return
	}
	c.watchOff = ""
	c.watch.trusted = !added
}

func (c *Catalog) stopWatching() {
	if c.watch != nil {
		c.watch.close()
		c.watch = nil
	}
}

// unchangedSinceLast reports whether the watcher heard of no change since
// the last refresh, which then need not read anything again.
func (c *Catalog) unchangedSinceLast() bool {
	w := c.watch
	if w == nil || !w.trusted {
		return false
	}
	if w.changed() {
		w.trusted = false
		return false
	}
	return true
}
