package view

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"skillet/harness/event"
	"skillet/harness/journal"
	"skillet/harness/rulebook"
	"skillet/harness/share"
)

// ShareJournal reads the journal file at path and folds it for sharing
// (share.WriteCast, share.WriteHTML). Lines that do not decode are skipped
// and named in the result's Problems, with what a crash left open.
func ShareJournal(path string) (*share.Session, error) {
	f, err := journal.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	events, problems, err := journal.Read(f)
	if err != nil {
		return nil, fmt.Errorf("read journal %s: %w", path, err)
	}
	sh, err := share.Fold(events)
	if err != nil {
		if len(problems) > 0 {
			return nil, fmt.Errorf("%s: %w (%s)", path, err, problems[0])
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, p := range problems {
		problems[i] = p + " was skipped"
	}
	sh.Problems = append(problems, sh.Problems...)
	return sh, nil
}

// Markdown is what the Markdown export reads of a session: its
// transcript, each turn's record, how its tool calls were approved, and
// what it ran on.
type Markdown struct {
	Entries          Transcript
	SessionID, Model string
	BaseURL          string
	Demo             bool
	// EndsAfter are the turns' records by the number of entries recorded
	// before each ended: where the fold placed it.
	EndsAfter map[int][]*event.TurnEnd
	// Approvals are the user's and the policy's answers, by tool call id.
	Approvals map[string]event.Decision
}

// MarkdownOf is what the Markdown export reads of st, copied; Entries is
// a view, read after the caller releases what guards st.
func MarkdownOf(st *rulebook.State, baseURL string, demo bool) *Markdown {
	x := &Markdown{Entries: st.Entries.View(), SessionID: st.ID, Model: st.Model, BaseURL: baseURL, Demo: demo,
		EndsAfter: map[int][]*event.TurnEnd{}, Approvals: make(map[string]event.Decision, len(st.Approvals))}
	// a turn's end goes after the last entry it recorded: where the fold
	// placed it
	for _, e := range st.Ends.All() {
		x.EndsAfter[e.Entry] = append(x.EndsAfter[e.Entry], e)
	}
	for k, v := range st.Approvals {
		x.Approvals[k] = v
	}
	return x
}

// WriteMarkdown writes the transcript as Markdown (/export): every
// message, tool call and result, and the notes of the rule book, with each
// turn's Offered / Delivered / Loaded. It holds no secrets: the API key is
// never part of a session.
func WriteMarkdown(w io.Writer, x *Markdown) error {
	entries, id, model, base, demo, endsAfter, approvals := x.Entries, x.SessionID, x.Model, x.BaseURL, x.Demo, x.EndsAfter, x.Approvals

	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Skillet session %s\n\n", id)
	label := model
	if demo {
		label += " (offline demo model, not an LLM)"
	}
	fmt.Fprintf(bw, "- Model: %s\n", label)
	if base != "" {
		fmt.Fprintf(bw, "- Endpoint: %s\n", base)
	}
	turn := 0
	for i, e := range entries.All() {
		if e.Turn != turn && e.Kind == rulebook.EntryUser {
			turn = e.Turn
			fmt.Fprintf(bw, "\n## Turn %d\n", turn)
		}
		switch e.Kind {
		case rulebook.EntryUser:
			fmt.Fprintf(bw, "\n**User:**\n\n%s\n", e.Text)
		case rulebook.EntryAssistant:
			who := "Assistant"
			if e.Manual {
				who = "Manual call"
			}
			if e.Reasoning != "" {
				fmt.Fprintf(bw, "\n<details><summary>Reasoning</summary>\n\n%s\n\n</details>\n", e.Reasoning)
			}
			if e.Text != "" {
				fmt.Fprintf(bw, "\n**%s:**\n\n%s\n", who, e.Text)
			}
			if e.Interrupted {
				bw.WriteString("\n_(interrupted)_\n")
			}
			for _, tc := range e.ToolCalls {
				fmt.Fprintf(bw, "\n**%s → `%s`** (`%s`)\n\n```json\n%s\n```\n", who, tc.Name, tc.ID, prettyJSON(tc.Arguments))
			}
		case rulebook.EntryTool:
			mark := ""
			if d, ok := approvals[e.ToolCallID]; ok {
				mark = " (" + approvalText[d] + ")"
			}
			if e.IsError {
				mark += " (error)"
			}
			if e.ApprovedBy != "" {
				mark += " (approved by " + e.ApprovedBy + ")"
			}
			fmt.Fprintf(bw, "\n**Result of `%s`**%s (`%s`)\n\n%s\n", e.ToolName, mark, e.ToolCallID, fence(e.Text))
			if sh := e.Shell; sh != nil {
				fmt.Fprintf(bw, "\nRan in `%s` (%s sandbox): exit %d, %d ms%s\n", sh.Dir, sh.Sandbox, sh.ExitCode, sh.DurationMS, limitNote(sh.Limit))
			}
			if e.Diff != "" {
				fmt.Fprintf(bw, "\nChanged files:\n\n%s\n", fence(strings.TrimRight(e.Diff, "\n")))
			}
		case rulebook.EntryNote:
			fmt.Fprintf(bw, "\n> %s\n", strings.ReplaceAll(e.Text, "\n", "\n> "))
		}
		for _, end := range endsAfter[i+1] {
			writeTurnEnd(bw, end)
		}
	}
	return bw.Flush()
}

var approvalText = map[event.Decision]string{
	event.DecisionOnce:       "approved once by the user",
	event.DecisionAll:        "approved for the session by the user",
	event.DecisionDeny:       "denied",
	event.DecisionPolicyDeny: "denied by policy",
}

// limitNote says which limit stopped a command, if one did.
func limitNote(limit string) string {
	if limit == "" {
		return ""
	}
	return ", stopped by the " + limit + " limit"
}

func writeTurnEnd(w io.Writer, e *event.TurnEnd) {
	if e == nil {
		return
	}
	fmt.Fprintf(w, "\n_Turn %d ended: %s. Offered: %s. Delivered: %s. Loaded: %s._\n", e.Turn, e.StopReason,
		orDash(e.Offered), orDash(e.Delivered), orDash(e.Loaded))
}

func orDash(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func prettyJSON(s string) string {
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(s), "", "  ") == nil {
		return buf.String()
	}
	return s
}

// fence puts text in a code fence long enough not to be closed by it.
func fence(text string) string {
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	return f + "\n" + text + "\n" + f
}
