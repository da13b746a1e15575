package ui

import (
	"strings"
	"testing"

	"skillet/harness/event"
)

// A trim mark says what the window left out; when the turn alone is over
// the cap and nothing was left out, it does not speak of "0 messages".
func TestWindowTrimMarkWording(t *testing.T) {
	for _, tc := range []struct {
		ev        event.WindowTrimmed
		want, not string
	}{
		{event.WindowTrimmed{Call: 2, Dropped: 4, Kept: 6}, "window: 4 message(s) left out of call 2, 6 kept", "longer than the cap"},
		{event.WindowTrimmed{Call: 2, Dropped: 2, Kept: 3, CapExceeded: true}, "2 message(s) left out of call 2, 3 kept — this turn alone is longer than the cap (R9)", ""},
		{event.WindowTrimmed{Call: 1, Dropped: 0, Kept: 5, CapExceeded: true}, "window: call 1 carries all 5 messages — this turn alone is longer than the cap (R9)", "0 message"},
	} {
		ev := tc.ev
		m, ok := markFor(&ev)
		if !ok || !strings.Contains(m.text, tc.want) || (tc.not != "" && strings.Contains(m.text, tc.not)) {
			t.Errorf("mark of %+v is %q (shown %v); want %q", tc.ev, m.text, ok, tc.want)
		}
	}
}
