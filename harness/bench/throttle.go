package bench

// regainAfter is how many answered model calls give back one worker taken
// away by a rate limit (as `skillet eval`).
const regainAfter = 20

// throttled halves the runs allowed at once after a rate limit, once per
// burst: runs started before the last cut do not cut again.
func (x *executor) throttled(epoch int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if epoch != x.epoch || x.limit == 1 {
		return
	}
	x.limit = max(1, x.limit/2)
	x.epoch++
	x.successes = 0
}

// succeeded counts an answered model call and gives one worker back per
// regainAfter of them.
func (x *executor) succeeded() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.limit >= x.opts.Workers {
		return
	}
	x.successes++
	if x.successes >= regainAfter {
		x.successes = 0
		x.limit++
		x.cond.Broadcast()
	}
}

// currentEpoch is the throttle's epoch a run starts in.
func (x *executor) currentEpoch() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.epoch
}
