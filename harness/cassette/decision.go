package cassette

import (
	"fmt"
	"slices"
	"strings"

	"skillet/harness/event"
)

// DecisionOf is the decision a model_call event records.
func DecisionOf(mc *event.ModelCall) *Decision {
	d := &Decision{Kind: KindChoice, Turn: mc.Turn, Call: mc.Call, Offered: mc.Offered, LeftOff: mc.LeftOff, Delivered: []string{}}
	for _, u := range mc.Delivered {
		d.Delivered = append(d.Delivered, strings.ToLower(u.Role)+" "+u.Name)
	}
	return d
}

// DecisionDelta names the Offered, Left off and Delivered entries that
// changed between a recorded decision and today's, nil when none did.
func DecisionDelta(was, now *Decision) []string {
	if was == nil || now == nil {
		return nil
	}
	var out []string
	for _, f := range []struct {
		name     string
		was, now []string
	}{{"Offered", was.Offered, now.Offered}, {"Left off", was.LeftOff, now.LeftOff}, {"Delivered", was.Delivered, now.Delivered}} {
		if d := setDelta(f.was, f.now); d != "" {
			out = append(out, fmt.Sprintf("%s: %s", f.name, d))
		}
	}
	return out
}

// setDelta is "-gone +new" between two name lists, "" when they hold the
// same names.
func setDelta(was, now []string) string {
	var parts []string
	for _, n := range was {
		if !slices.Contains(now, n) {
			parts = append(parts, "-"+n)
		}
	}
	for _, n := range now {
		if !slices.Contains(was, n) {
			parts = append(parts, "+"+n)
		}
	}
	return strings.Join(parts, " ")
}
