package cassette

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// MaxGap is the longest pause a paced replay keeps: longer silences (a
// slow model, a user away from the keyboard) are cut to it.
const MaxGap = 2 * time.Second

// TypingGap is the pause --typing puts before each piece of a reply at
// least, so a stream reads as typed even when it was recorded in one go.
const TypingGap = 35 * time.Millisecond

// DemoGap is the pause the demo model takes per piece at pace 1: about
// the cadence of a fast hosted model.
const DemoGap = 40 * time.Millisecond

// Pace says how fast recorded time passes on replay.
type Pace struct {
	// Speed is 0 for instant, 1 for as recorded, 2 for twice as fast.
	Speed float64
	// Typing streams every piece visibly, at least TypingGap apart.
	Typing bool
}

// ParsePace reads a --pace value: a number, 0 or more.
func ParsePace(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("--pace %s: want a number, 0 or more (0 instant, 1 as recorded, 2 twice as fast)", s)
	}
	return v, nil
}

// Gap is how long to wait for a piece recorded gap after the one before.
func (p Pace) Gap(gap time.Duration) time.Duration {
	var d time.Duration
	if p.Speed > 0 {
		d = time.Duration(float64(min(max(gap, 0), MaxGap)) / p.Speed)
	}
	if p.Typing {
		d = max(d, TypingGap)
	}
	return d
}

// DemoDelay is the demo model's chunk delay at this pace.
func (p Pace) DemoDelay() time.Duration { return p.Gap(DemoGap) }
