package ui

import (
	"fmt"
	"iter"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"skillet/harness/event"
)

// markKind picks a mark's icon and style.
type markKind int

const (
	markLoaded markKind = iota
	markUnloaded
	markActivated
	markTrim
	markWarning
	markError
	markRetry
	markApproved
	markDenied
	markSetting
	markTurnEnd
	markInfo
)

// mark is an event shown inline in the transcript that is not itself a
// transcript entry: a load or eviction, a window trim, an approval, a
// warning. It stands where the transcript was when it happened.
type mark struct {
	kind markKind
	// after is the number of transcript entries recorded before the
	// event: the mark stands just before entry number after.
	after int
	text  string
	// big is the large form the mark takes in presenter mode (loads and
	// evictions; empty for other marks).
	big string
}

func (k markKind) look(th *theme) (string, lipgloss.Style) {
	switch k {
	case markLoaded:
		if th.present {
			return iconLoaded, th.mark.Bold(true)
		}
		return iconLoaded, th.mark
	case markUnloaded:
		if th.present {
			return iconUnloaded, th.warn.Bold(true)
		}
		return iconUnloaded, th.mark
	case markActivated:
		return iconActive, th.mark
	case markTrim:
		return iconTrim, th.warn
	case markWarning:
		return iconLog, th.warn
	case markError:
		return iconError, th.bad
	case markRetry:
		return iconRetry, th.warn
	case markApproved:
		return iconApproved, th.good
	case markDenied:
		return iconRefused, th.bad
	case markSetting:
		return iconSetting, th.info
	case markTurnEnd:
		return "─", th.faint
	default:
		return "•", th.faint
	}
}

// markFor says how an event shows inline, if it does. Events that are
// transcript entries themselves (messages, tool results, contextChanged and
// harness.log lines, preloads) are not marks.
func markFor(ev event.Event) (mark, bool) {
	m := mark{after: -1}
	switch e := ev.(type) {
	case *event.SkillLoaded:
		m.kind = markLoaded
		var b strings.Builder
		fmt.Fprintf(&b, "loaded %s", e.Skill)
		if e.Version != "" {
			fmt.Fprintf(&b, " v%s", e.Version)
		}
		fmt.Fprintf(&b, " · %s · by %s · %s tok", e.ExecutionID, orDash(e.By), thousands(e.Tokens))
		if len(e.Tools) > 0 {
			fmt.Fprintf(&b, " · tools %s", strings.Join(e.Tools, ", "))
		}
		if len(e.Evicted) > 0 {
			fmt.Fprintf(&b, " · evicted %s (LRU)", strings.Join(e.Evicted, ", "))
		}
		m.text = b.String()
	case *event.SkillActivated:
		m.kind, m.text = markActivated, fmt.Sprintf("%s is active again (%s)", e.Skill, e.ExecutionID)
	case *event.SkillUnloaded:
		m.kind, m.text = markUnloaded, fmt.Sprintf("unloaded %s (%s)", e.Skill, e.Reason)
	case *event.WindowTrimmed:
		m.kind = markTrim
		switch {
		case e.CapExceeded && e.Dropped == 0:
			m.text = fmt.Sprintf("window: call %d carries all %d messages — this turn alone is longer than the cap (R9)", e.Call, e.Kept)
		default:
			m.text = fmt.Sprintf("window: %d message(s) left out of call %d, %d kept", e.Dropped, e.Call, e.Kept)
			if e.CapExceeded {
				m.text += " — this turn alone is longer than the cap (R9)"
			}
		}
	case *event.Warning:
		if e.Log {
			return m, false
		}
		m.kind, m.text = markWarning, e.Message
	case *event.Error:
		m.kind, m.text = markError, e.Message
	case *event.Retry:
		m.kind = markRetry
		m.text = fmt.Sprintf("retry %d of call %d in %s: %s", e.Attempt, e.Call, time.Duration(e.WaitMS)*time.Millisecond, e.Message)
	case *event.Approval:
		switch e.Decision {
		case event.DecisionOnce:
			m.kind, m.text = markApproved, "approved "+e.Name+" once"
		case event.DecisionAll:
			m.kind, m.text = markApproved, "approved "+e.Name+" for the session"
		case event.DecisionDeny:
			m.kind, m.text = markDenied, "denied "+e.Name
		default:
			m.kind, m.text = markDenied, fmt.Sprintf("%s: %s", e.Decision, e.Name)
		}
	case *event.SettingChanged:
		m.kind, m.text = markSetting, fmt.Sprintf("%s = %s", e.Key, e.Value)
	case *event.TurnEnd:
		m.kind = markTurnEnd
		var b strings.Builder
		fmt.Fprintf(&b, "turn %d ended: %s", event.TurnOf(e), orDash(e.StopReason))
		if len(e.Delivered) > 0 {
			fmt.Fprintf(&b, " · delivered %s", strings.Join(e.Delivered, ", "))
		}
		if len(e.Loaded) > 0 {
			fmt.Fprintf(&b, " · loaded %s", strings.Join(e.Loaded, ", "))
		}
		if len(e.LeftOff) > 0 {
			fmt.Fprintf(&b, " · %d left off the list", len(e.LeftOff))
		}
		m.text = b.String()
		if e.StopReason != "" && e.StopReason != "done" {
			m.kind = markWarning
		}
	default:
		return m, false
	}
	return m, true
}

func orDash[T ~string](v T) string {
	s := string(v)
	if s == "" {
		return "—"
	}
	return s
}

// thousands writes n with thin separators: 12,345.
// tokCount is a token count as shown: "~" before it while it is an
// estimate (the tokenizer's tables still load), so no one takes it for
// the exact count that replaces it.
func tokCount(n int, estimated bool) string {
	if estimated {
		return "~" + thousands(n)
	}
	return thousands(n)
}

// estimateNote follows the first count shown as an estimate.
func estimateNote(estimated bool) string {
	if estimated {
		return " (estimate, counting…)"
	}
	return ""
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// mergedMarks are the engine's marks as the first refresh fetched them
// (what happened before the program saw an event: a resumed session's),
// made into marks by the command that fetched them. A long session has
// tens of thousands, decoded from the engine's pages a page at a time: of
// the events only the latest are kept, those that may also be on their way
// live and must show once (see model.marked).
type mergedMarks struct {
	older []mark
	// recent are the latest events with a mark, and marks theirs
	recent []event.Event
	marks  []mark
}

// markEnRoute is how many of the latest merged mark events are told apart
// from the same events arriving live. Those on their way are the latest
// the engine emitted before the fetch, delivered in order; an older event
// comes back from a sealed page as a copy, which no live event equals.
const markEnRoute = 1024

// collectMarks makes the marks of evs, keeping the latest markEnRoute
// events that have one as events.
func collectMarks(evs iter.Seq[event.Event]) *mergedMarks {
	mm := &mergedMarks{}
	for ev := range evs {
		mk, ok := markOf(ev)
		if !ok {
			continue
		}
		if len(mm.recent) == 2*markEnRoute {
			mm.older = append(mm.older, mm.marks[:markEnRoute]...)
			mm.marks = append(mm.marks[:0], mm.marks[markEnRoute:]...)
			mm.recent = append(mm.recent[:0], mm.recent[markEnRoute:]...)
			clear(mm.recent[markEnRoute:cap(mm.recent)]) // the events go with their page
		}
		mm.recent, mm.marks = append(mm.recent, ev), append(mm.marks, mk)
	}
	return mm
}
