// Rule R9: a request carries the latest max_transcript_messages messages,
// starting at a user message, and the whole current turn when it alone is
// longer.

package rulebook

import "sort"

// Window is the slice of chat messages one request carries (R9).
type Window struct {
	// Start is the first message carried; the request carries [Start, N).
	Start, N int
	// CapExceeded is set when the current turn alone is longer than the cap.
	CapExceeded bool
}

// Dropped is how many messages the window leaves out.
func (w Window) Dropped() int { return w.Start }

// Kept is how many messages the window carries.
func (w Window) Kept() int { return w.N - w.Start }

// ComputeWindow keeps at most limit of the n messages, the oldest leaving
// first, then drops leading messages until the window starts at a user
// message, so no tool result loses its call (R9). userMsgs holds the
// positions of user messages in ascending order. When no user message is
// left inside the cap, the current turn alone is longer than the cap: the
// window starts at the last user message and says so.
func ComputeWindow(n, limit int, userMsgs []int) Window {
	w := Window{N: n}
	if n == 0 || len(userMsgs) == 0 {
		return w
	}
	start := 0
	if limit > 0 && n > limit {
		start = n - limit
	}
	i := sort.SearchInts(userMsgs, start)
	if i < len(userMsgs) {
		w.Start = userMsgs[i]
		return w
	}
	w.Start = userMsgs[len(userMsgs)-1]
	w.CapExceeded = true
	return w
}
