package reqdelta

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Delta is what changed from request A to request B.
type Delta struct {
	A, B *Request
	// Context names the skills rendered in <current_context> that came,
	// went or were rendered anew.
	Context Changes
	// List names the skill list's entries that came, went, or whose
	// <description> was edited (Changed), wherever the list is: the
	// instructions, a message or a tool's description.
	List Changes
	// Tools names the tools that came and went; Changed those whose
	// description or parameters differ, Reordered when only the order did.
	Tools     Changes
	Reordered bool
	// Messages aligns A's messages with B's, in order.
	Messages []Step
	// Fields are the other top-level fields that differ, sorted.
	Fields []string
}

// Changes names what was Added, Removed and Changed, each in order.
type Changes struct {
	Added, Removed, Changed []string
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool { return len(c.Added)+len(c.Removed)+len(c.Changed) == 0 }

// Step kinds of a message alignment.
const (
	Kept    = "kept"
	Gone    = "gone"
	New     = "new"
	Changed = "changed"
)

// Step is one message of the alignment: Kept in both, Gone from A, New
// in B, or Changed (the same place and role, other content). A and B are
// its index in each request, -1 where it is not.
type Step struct {
	Kind string
	A, B int
}

// Count is how many steps are of the kind.
func (d *Delta) Count(kind string) int {
	n := 0
	for _, s := range d.Messages {
		if s.Kind == kind {
			n++
		}
	}
	return n
}

var (
	// listEntry is one skill of a composed list: <name> then <description>.
	listEntry = regexp.MustCompile(`<name>([^<]*)</name>\s*<description>([^<]*)</description>`)
	// contextSkill is one skill rendered in <current_context>.
	contextSkill = regexp.MustCompile(`(?s)<skill name="([^"]*)"[^>]*>.*?</skill>`)
)

// Between is the delta from a to b.
func Between(a, b *Request) *Delta {
	d := &Delta{A: a, B: b}
	d.Context = changes(contextOf(a), contextOf(b))
	d.List = changes(listOf(a), listOf(b))
	d.Tools, d.Reordered = toolChanges(a.Tools, b.Tools)
	d.Messages = align(a.Messages, b.Messages)
	for _, k := range slices.Sorted(keys(a.Other, b.Other)) {
		if !reflect.DeepEqual(a.Other[k], b.Other[k]) {
			d.Fields = append(d.Fields, k)
		}
	}
	return d
}

// entries is a named thing's content, in order of first appearance.
type entries struct {
	order []string
	of    map[string]string
}

func (e *entries) add(name, content string) {
	if e.of == nil {
		e.of = map[string]string{}
	}
	if _, dup := e.of[name]; !dup {
		e.order = append(e.order, name)
	}
	e.of[name] = content
}

func changes(a, b entries) Changes {
	var c Changes
	for _, n := range a.order {
		switch v, ok := b.of[n]; {
		case !ok:
			c.Removed = append(c.Removed, n)
		case v != a.of[n]:
			c.Changed = append(c.Changed, n)
		}
	}
	for _, n := range b.order {
		if _, ok := a.of[n]; !ok {
			c.Added = append(c.Added, n)
		}
	}
	return c
}

func contextOf(r *Request) entries {
	var e entries
	for _, m := range r.Messages {
		s := m.Text()
		for {
			i := strings.Index(s, "<current_context>")
			if i < 0 {
				break
			}
			s = s[i:]
			block := s
			if j := strings.Index(s, "</current_context>"); j >= 0 {
				block = s[:j]
			}
			for _, sk := range contextSkill.FindAllStringSubmatch(block, -1) {
				e.add(sk[1], sk[0])
			}
			s = s[len(block):]
			if len(block) == 0 {
				break
			}
			s = strings.TrimPrefix(s, "</current_context>")
		}
	}
	return e
}

func listOf(r *Request) entries {
	var e entries
	scan := func(s string) {
		for _, m := range listEntry.FindAllStringSubmatch(s, -1) {
			e.add(m[1], m[2])
		}
	}
	for _, m := range r.Messages {
		scan(m.Text())
	}
	for _, t := range r.Tools {
		scan(t.Function.Description)
	}
	return e
}

func toolChanges(a, b []Tool) (Changes, bool) {
	var ea, eb entries
	key := func(t Tool) string {
		params, _ := json.Marshal(t.Function.Parameters) // maps marshal sorted
		return t.Function.Description + "\x00" + string(params)
	}
	for _, t := range a {
		ea.add(t.Function.Name, key(t))
	}
	for _, t := range b {
		eb.add(t.Function.Name, key(t))
	}
	c := changes(ea, eb)
	return c, c.Empty() && !slices.Equal(ea.order, eb.order)
}

// keyOf is what makes two messages the same message.
func keyOf(m Message) string {
	var b strings.Builder
	b.WriteString(m.Role + "\x00" + m.ToolCallID + "\x00" + m.Text())
	for _, c := range m.ToolCalls {
		b.WriteString("\x00" + c.ID + "\x00" + c.Function.Name + "\x00" + c.Function.Arguments)
	}
	return b.String()
}

// maxAlign bounds the cells of the alignment table; past it the middle of
// two requests is compared place by place.
const maxAlign = 4 << 20

// align pairs A's messages with B's: the longest common subsequence of
// the same messages, a gone and a new one at the same place and of the
// same role taken as one changed message. A window that drops its oldest
// messages and a turn that adds new ones both come out as what they are.
func align(a, b []Message) []Step {
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i, m := range a {
		ka[i] = keyOf(m)
	}
	for j, m := range b {
		kb[j] = keyOf(m)
	}
	pre := 0
	for pre < len(a) && pre < len(b) && ka[pre] == kb[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && ka[len(a)-1-suf] == kb[len(b)-1-suf] {
		suf++
	}
	var out []Step
	for i := range pre {
		out = append(out, Step{Kept, i, i})
	}
	ma, mb := ka[pre:len(a)-suf], kb[pre:len(b)-suf]
	var mid []Step
	if len(ma)*len(mb) > maxAlign {
		mid = byPlace(len(ma), len(mb))
	} else {
		mid = lcs(ma, mb)
	}
	mid = pairChanged(mid, a[pre:], b[pre:])
	for _, s := range mid {
		if s.A >= 0 {
			s.A += pre
		}
		if s.B >= 0 {
			s.B += pre
		}
		out = append(out, s)
	}
	for k := suf; k > 0; k-- {
		out = append(out, Step{Kept, len(a) - k, len(b) - k})
	}
	return out
}

func byPlace(n, m int) []Step {
	var out []Step
	for i := range max(n, m) {
		switch {
		case i < n && i < m:
			out = append(out, Step{Gone, i, -1}, Step{New, -1, i})
		case i < n:
			out = append(out, Step{Gone, i, -1})
		default:
			out = append(out, Step{New, -1, i})
		}
	}
	return out
}

func lcs(a, b []string) []Step {
	n, m := len(a), len(b)
	// t[i][j] is the LCS length of a[i:] and b[j:]
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out []Step
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, Step{Kept, i, j})
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, Step{Gone, i, -1})
			i++
		default:
			out = append(out, Step{New, -1, j})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, Step{Gone, i, -1})
	}
	for ; j < m; j++ {
		out = append(out, Step{New, -1, j})
	}
	return out
}

// pairChanged makes each run of gone and new messages between two kept
// ones a run of changed messages as far as their roles agree, place by
// place: an edited message, not one removed and another added.
func pairChanged(steps []Step, a, b []Message) []Step {
	var out []Step
	for k := 0; k < len(steps); {
		if steps[k].Kind == Kept {
			out = append(out, steps[k])
			k++
			continue
		}
		var gone, added []Step
		for ; k < len(steps) && steps[k].Kind != Kept; k++ {
			if steps[k].Kind == Gone {
				gone = append(gone, steps[k])
			} else {
				added = append(added, steps[k])
			}
		}
		p := 0
		for p < len(gone) && p < len(added) && a[gone[p].A].Role == b[added[p].B].Role {
			out = append(out, Step{Changed, gone[p].A, added[p].B})
			p++
		}
		out = append(append(out, gone[p:]...), added[p:]...)
	}
	return out
}

func keys(ms ...map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range ms {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					if !yield(k) {
						return
					}
				}
			}
		}
	}
}
