package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"skillet/harness/chat"
)

// ModelGrader grades plain-language expectations with a model. It shows
// the model the expectation, the run's final answer and the files the run
// changed — nothing of the configuration, the skill or the other runs.
type ModelGrader struct {
	Model chat.Model
	Name  string
	// Timeout bounds one grade; 0 is DefaultGraderTimeout.
	Timeout time.Duration
}

// DefaultGraderTimeout bounds one grader call.
const DefaultGraderTimeout = 2 * time.Minute

// Limits of what the grader is shown.
const (
	shownPerFile = 20_000
	shownTotal   = 100_000
)

const graderInstructions = `You grade one expectation about the work of an AI agent. You are shown the expectation, the agent's final answer and the files it created or changed. Decide whether the expectation holds for this output alone.

Answer with one JSON object and nothing else:
{"passed": true or false, "evidence": "..."}

When passed is true, evidence must be an exact quote, copied character for character, from the answer or the files shown: the passage that shows the expectation holds. When passed is false, evidence says briefly what is missing or wrong. Do not guess: if the output does not show it, it fails.`

// Material is what the grader is shown of a run.
func Material(o Outcome) string {
	var b strings.Builder
	b.WriteString("<answer>\n")
	b.WriteString(o.Answer)
	b.WriteString("\n</answer>\n")
	left := shownTotal
	for _, c := range o.Changed {
		switch {
		case c.Op == "delete":
			fmt.Fprintf(&b, "<file path=%q deleted/>\n", c.Path)
		case c.Binary || c.Omitted:
			fmt.Fprintf(&b, "<file path=%q op=%q>(binary or too large to show)</file>\n", c.Path, c.Op)
		default:
			text := c.Content
			if len(text) > min(shownPerFile, left) {
				text = text[:max(0, min(shownPerFile, left))] + "\n(cut)"
			}
			left -= len(text)
			fmt.Fprintf(&b, "<file path=%q op=%q>\n%s\n</file>\n", c.Path, c.Op, text)
		}
	}
	if len(o.Changed) == 0 {
		b.WriteString("(the agent changed no files)\n")
	}
	return b.String()
}

// Grade asks the model about one expectation.
func (m *ModelGrader) Grade(ctx context.Context, expectation string, o Outcome) Grade {
	g := Grade{Text: expectation, By: "grader"}
	shown := Material(o)
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = DefaultGraderTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req := &chat.Request{Model: m.Name, Messages: []chat.Message{
		{Role: "system", Content: graderInstructions},
		{Role: "user", Content: "Expectation: " + expectation + "\n\n" + shown},
	}}
	reply, err := m.Model.Complete(ctx, req, nil)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			g.Error = fmt.Sprintf("the grader did not answer within %s", timeout)
		} else {
			g.Error = "the grader failed: " + err.Error()
		}
		return g
	}
	passed, evidence, err := parseVerdict(reply.Message.Content)
	if err != nil {
		g.Error = err.Error()
		return g
	}
	g.Passed, g.Evidence = passed, evidence
	if passed && !quoted(shown, evidence) {
		g.Passed = false
		g.Evidence = fmt.Sprintf("the grader said pass, citing %q, which is not in the output it was shown", clip(evidence, evidenceMax))
	}
	return g
}

// parseVerdict reads the grader's JSON object, fenced or not.
func parseVerdict(text string) (bool, string, error) {
	s := strings.TrimSpace(text)
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return false, "", fmt.Errorf("the grader answered nonsense (no JSON object): %q", clip(s, 120))
	}
	var v struct {
		Passed   *bool   `json:"passed"`
		Evidence *string `json:"evidence"`
	}
	if err := json.Unmarshal([]byte(s[i:j+1]), &v); err != nil || v.Passed == nil {
		return false, "", fmt.Errorf("the grader answered nonsense (want {\"passed\": true|false, \"evidence\": \"...\"}): %q", clip(s, 120))
	}
	ev := ""
	if v.Evidence != nil {
		ev = *v.Evidence
	}
	return *v.Passed, ev, nil
}

// quoted reports whether evidence appears verbatim in what was shown,
// spacing aside; an empty quote proves nothing.
func quoted(shown, evidence string) bool {
	e := strings.Join(strings.Fields(strings.Trim(strings.TrimSpace(evidence), `"'“”`)), " ")
	if e == "" {
		return false
	}
	return strings.Contains(strings.Join(strings.Fields(shown), " "), e)
}
