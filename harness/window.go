package harness

import "sort"

// window is the slice of chat messages one request carries (R9).
type window struct {
	// start is the first message carried; the request carries [start, n).
	start, n int
	// capExceeded is set when the current turn alone is longer than the cap.
	capExceeded bool
}

func (w window) dropped() int { return w.start }
func (w window) kept() int    { return w.n - w.start }

// computeWindow keeps at most limit of the n messages, the oldest leaving
// first, then drops leading messages until the window starts at a user
// message, so no tool result loses its call. userMsgs holds the positions
// of user messages in ascending order. When no user message is left inside
// the cap, the current turn alone is longer than the cap: the window starts
// at the last user message and says so.
func computeWindow(n, limit int, userMsgs []int) window {
	w := window{n: n}
	if n == 0 || len(userMsgs) == 0 {
		return w
	}
	start := 0
	if limit > 0 && n > limit {
		start = n - limit
	}
	i := sort.SearchInts(userMsgs, start)
	if i < len(userMsgs) {
		w.start = userMsgs[i]
		return w
	}
	w.start = userMsgs[len(userMsgs)-1]
	w.capExceeded = true
	return w
}
