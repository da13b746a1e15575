package rulebook

import "testing"

func TestComputeWindow(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, limit int
		users    []int
		want     Window
	}{
		{"under the cap: everything", 5, 10, []int{0, 3}, Window{Start: 0, N: 5}},
		{"over the cap: the oldest leave", 10, 4, []int{0, 3, 6, 8}, Window{Start: 6, N: 10}},
		{"the cut lands after a user message: it moves to the next one", 10, 5, []int{0, 3, 6, 8}, Window{Start: 6, N: 10}},
		{"the cut lands on a user message", 10, 4, []int{0, 6}, Window{Start: 6, N: 10}},
		{"the turn alone is longer than the cap", 10, 3, []int{0, 5}, Window{Start: 5, N: 10, CapExceeded: true}},
		{"no messages", 0, 3, nil, Window{}},
		{"no user message yet", 2, 3, nil, Window{N: 2}},
		{"no cap", 100, 0, []int{0, 50}, Window{Start: 0, N: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := ComputeWindow(tc.n, tc.limit, tc.users)
			if w != tc.want {
				t.Fatalf("got %+v, want %+v", w, tc.want)
			}
			if w.Dropped()+w.Kept() != tc.n {
				t.Errorf("dropped %d + kept %d != %d", w.Dropped(), w.Kept(), tc.n)
			}
		})
	}
}
