package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/termtext"
	"skillet/harness/view"
)

// approvalDialog asks whether an `ask` tool call may run (R15). It sits
// above every other overlay: the engine is waiting on it.
type approvalDialog struct {
	th     *theme
	id     uint64
	req    view.ApprovalRequest
	reply  chan<- event.Decision
	choice int
	args   *pager
	argH   int
	// shown is when the dialog came to the front: keys pressed within
	// approvalGuard of it were typed before the user saw it.
	shown time.Time
}

// approvalGuard is how long after the dialog shows keys are ignored, so
// that someone typing ahead cannot answer it by accident.
const approvalGuard = 300 * time.Millisecond

// approvalArmedMsg redraws the dialog once it takes keys.
type approvalArmedMsg struct{}

// armed reports whether the dialog takes keys at now.
func (d *approvalDialog) armed(now time.Time) bool {
	return !now.Before(d.shown.Add(approvalGuard))
}

// showApproval starts the guard of the dialog now at the front.
func (m *model) showApproval() tea.Cmd {
	m.approvals[0].shown = m.now()
	return tea.Tick(approvalGuard, func(time.Time) tea.Msg { return approvalArmedMsg{} })
}

var approvalChoices = []struct {
	key, label string
	decision   event.Decision
}{
	{"a", "approve once", event.DecisionOnce},
	{"s", "approve for the session", event.DecisionAll},
	{"d", "deny", event.DecisionDeny},
}

// denyChoice is the choice enter takes until the user moves: running a
// tool takes a deliberate key.
const denyChoice = 2

func newApprovalDialog(th *theme, m approvalMsg) *approvalDialog {
	return &approvalDialog{th: th, id: m.id, req: m.req, reply: m.reply, choice: denyChoice, args: newPager(prettyJSON(m.req.Arguments))}
}

// key answers the dialog; decided is the answer given, "" while open.
func (d *approvalDialog) key(msg tea.KeyPressMsg) (decided string) {
	switch msg.String() {
	case "a", "A":
		return d.answer(0)
	case "s", "S":
		return d.answer(1)
	case "d", "D", "esc", "n":
		return d.answer(2)
	case "left", "h", "shift+tab", "up":
		d.choice = (d.choice + len(approvalChoices) - 1) % len(approvalChoices)
	case "right", "l", "tab", "down":
		d.choice = (d.choice + 1) % len(approvalChoices)
	case "enter", "space":
		return d.answer(d.choice)
	case "pgdown", "j":
		d.args.down(3, max(1, d.argH))
	case "pgup", "k":
		d.args.down(-3, max(1, d.argH))
	}
	return ""
}

func (d *approvalDialog) answer(i int) string {
	dec := approvalChoices[i].decision
	select {
	case d.reply <- dec:
	default: // the reply channel holds one answer; never block the program
	}
	return string(dec)
}

func (d *approvalDialog) view(w, h int, armed bool) ([]string, int, int) {
	th := d.th
	bw := min(w, max(40, min(84, w-4)))
	iw := max(1, bw-2)
	from := "an agent tool"
	if d.req.Skill != "" {
		from = "brought by skill " + d.req.Skill
	}
	var head []string
	head = append(head, indentStyled(th.bold, " ", "Run "+termtext.Sanitize(d.req.Name)+"?", iw)...)
	head = append(head, indentStyled(th.faint, " ", th.clean(fmt.Sprintf("%s · %s · policy ask (R15: a skill grants nothing)", orDash(d.req.Kind), from)), iw)...)
	head = append(head, th.faint.Render(" arguments"))

	var btns []string
	for i, c := range approvalChoices {
		label := fmt.Sprintf(" %s  %s ", c.key, c.label)
		if !armed { // the keys are not taken yet: the buttons show it
			btns = append(btns, th.faint.Render(" "+label+" "))
			continue
		}
		if i == d.choice {
			btns = append(btns, th.buttonFocus.Render("["+label+"]"))
		} else {
			btns = append(btns, th.button.Render(" "+label+" "))
		}
	}
	tail := []string{""}
	if row := " " + strings.Join(btns, " "); termtext.Width(row) <= iw {
		tail = append(tail, row)
	} else {
		for _, b := range btns {
			tail = append(tail, " "+b)
		}
	}
	tail = append(tail, th.faint.Render(termtext.Clip(" ←/→ choose · enter confirm · esc deny", iw)))

	// the arguments get what room is left; on a tiny screen the spacing and
	// hint go first, the buttons never
	room := h - 2 - len(head) - len(tail)
	if room < 1 {
		tail = tail[1 : len(tail)-1]
		room = h - 2 - len(head) - len(tail)
	}
	d.argH = max(1, min(12, room))
	lines := head
	for _, l := range d.args.view(max(1, iw-3), d.argH) {
		lines = append(lines, "   "+th.toolCall.Render(l))
	}
	lines = append(lines, tail...)
	if over := len(lines) + 2 - h; over > 0 { // keep the buttons: drop from the top
		lines = lines[min(over, len(lines)):]
	}
	bh := min(h, len(lines)+2)
	out := box(th, "Approval needed", lines, bw, bh, true, "")
	return out, max(0, (w-bw)/2), max(0, (h-bh)/2)
}
