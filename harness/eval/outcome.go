package eval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"skillet/harness/event"
	"skillet/harness/rulebook"
)

// Outcomes of a run, from the point of view of the skill its query is about.
const (
	// OutcomeTriggered: the model's first tool call loaded the skill.
	OutcomeTriggered = "triggered"
	// OutcomeOtherSkill: the model loaded other skills and not this one.
	OutcomeOtherSkill = "other_skill"
	// OutcomeToolFirst: the model called another tool first; Followed
	// says whether it loaded the skill afterwards.
	OutcomeToolFirst = "tool_first"
	// OutcomeAnswered: the model answered without any tool call.
	OutcomeAnswered = "answered_directly"
	// OutcomeRefused: the model asked for the skill and a limit refused it.
	OutcomeRefused = "refused_load"
	// OutcomeError: the run failed before the model decided anything.
	OutcomeError = "error"
)

// Outcomes lists the outcomes in the order reports show them.
var Outcomes = []string{OutcomeTriggered, OutcomeToolFirst, OutcomeOtherSkill, OutcomeRefused, OutcomeAnswered, OutcomeError}

// Result is what one run shows about one skill, read from its events.
type Result struct {
	// Triggered is set when the model itself called load_skill for the
	// skill and the skill loaded (R20), at any point of the turn.
	Triggered bool   `json:"triggered"`
	Outcome   string `json:"outcome"`
	// Other is the first other skill the model loaded (other_skill).
	Other string `json:"other,omitempty"`
	// FirstTool is the first tool the model called, when not a load of
	// the skill; Followed says the skill was loaded after it.
	FirstTool string `json:"first_tool,omitempty"`
	Followed  bool   `json:"followed,omitempty"`
	// Limit names what refused the load (refused_load).
	Limit string `json:"limit,omitempty"`
	// Error says what went wrong (error), or a failure after the decision.
	Error string `json:"error,omitempty"`
	// Loaded are all the skills the model loaded, in order.
	Loaded []string `json:"loaded"`
	// Rank is the skill's 1-based place in the first request's list, 0
	// when it was not offered.
	Rank int `json:"rank"`
	// Listed is how many skills the first request listed.
	Listed     int    `json:"listed"`
	ModelCalls int    `json:"model_calls"`
	ToolCalls  int    `json:"tool_calls"`
	Tokens     int    `json:"tokens"`
	Retries    int    `json:"retries,omitempty"`
	StopReason string `json:"stop_reason"`
	// Seconds is the run's wall time, first event to last.
	Seconds float64 `json:"seconds,omitempty"`
}

// Scored reports whether the run counts in the statistics: a run that
// failed before the model decided anything says nothing about triggering.
func (r Result) Scored() bool { return r.Outcome != OutcomeError }

// limitKeys are the settings whose names a refused load's message gives.
var limitKeys = []string{"max_skill_chars", "max_loads_per_turn", "load_token_budget", "max_tool_calls", "max_loaded_skills"}

// Classify reads one run's events (live or from its journal) and says what
// happened for skill. maxSteps is the eval's step cap (0 for none): a run
// the eval ended at its cap, by cancelling the model call past it, is no
// error, and that call, never sent, is not counted.
func Classify(events []event.Event, skill string, maxSteps int) Result {
	r := Result{Loaded: []string{}}
	var firstCall *event.ToolCallRecord
	loadArgs := map[string]string{}
	var refusedLimit, lastError, stop string
	var pastCap, sawEnd bool
	var loadedFromEnd []string
	// activated maps a call of a profile's activation tool (Claude Code's
	// Skill, Codex's shell read of SKILL.md, …) to the skill it activated
	activated := map[string]string{}
	var first, last time.Time
	for _, e := range events {
		// the eval's turn is the first; a run reopened later and continued
		// by hand does not change what it measured
		if event.TurnOf(e) > 1 {
			break
		}
		if t := e.Head().Time; !t.IsZero() {
			if first.IsZero() {
				first = t
			}
			last = t
		}
		switch x := e.(type) {
		case *event.ModelCall:
			if maxSteps > 0 && x.Call > maxSteps {
				pastCap = true
				continue
			}
			r.ModelCalls++
			if x.Call == 1 && r.ModelCalls == 1 {
				r.Listed = len(x.Offered)
				if i := slices.Index(x.Offered, skill); i >= 0 {
					r.Rank = i + 1
				}
			}
		case *event.Assistant:
			if x.Manual {
				continue
			}
			if x.Usage != nil {
				r.Tokens += x.Usage.TotalTokens
			}
			for i := range x.ToolCalls {
				tc := x.ToolCalls[i]
				if firstCall == nil {
					firstCall = &tc
				}
				if tc.Name == rulebook.ToolLoadSkill {
					loadArgs[tc.ID] = loadName(tc.Arguments)
				}
			}
		case *event.ToolResult:
			if x.Manual {
				continue
			}
			if !x.OverLimit {
				r.ToolCalls++
			}
			if x.Activated != "" {
				activated[x.ToolCallID] = x.Activated
			}
			if x.Name == rulebook.ToolLoadSkill && x.Refused && loadArgs[x.ToolCallID] == skill && refusedLimit == "" {
				refusedLimit = refusalLimit(x.Content)
			}
		case *event.SkillLoaded:
			if x.By == "model" && !slices.Contains(r.Loaded, x.Skill) {
				r.Loaded = append(r.Loaded, x.Skill)
			}
		case *event.SkillActivated:
			if x.By == "model" && !slices.Contains(r.Loaded, x.Skill) {
				r.Loaded = append(r.Loaded, x.Skill)
			}
		case *event.Retry:
			r.Retries++
		case *event.Error:
			lastError = x.Message
		case *event.TurnEnd:
			sawEnd = true
			stop = string(x.StopReason)
			loadedFromEnd = x.Loaded
		}
	}
	// The turn's own record of what the model read (R20) is the authority;
	// the load events fill in a run whose turn never ended.
	if sawEnd {
		for _, s := range loadedFromEnd {
			if !slices.Contains(r.Loaded, s) {
				r.Loaded = append(r.Loaded, s)
			}
		}
	}
	r.StopReason = stop
	if !first.IsZero() {
		r.Seconds = last.Sub(first).Seconds()
	}
	r.Triggered = slices.Contains(r.Loaded, skill)
	failed := ""
	switch {
	case !sawEnd:
		failed = "the run ended before its turn did"
	case stop == string(event.StopError):
		failed = firstOf(lastError, "model error")
	case stop == string(event.StopInterrupted):
		failed = "the model's reply was interrupted"
	case stop == string(event.StopCancelled) && !pastCap:
		failed = "cancelled"
	}
	decided := firstCall != nil || (sawEnd && failed == "")
	switch {
	case failed != "" && !decided:
		r.Outcome, r.Error = OutcomeError, failed
		return r
	case failed != "":
		r.Error = failed
	}
	// the first call loaded the skill: load_skill, or the profile's own
	// activation of it
	firstIsLoad := firstCall != nil && (firstCall.Name == rulebook.ToolLoadSkill && loadName(firstCall.Arguments) == skill ||
		activated[firstCall.ID] == skill)
	switch {
	case r.Triggered && firstIsLoad:
		r.Outcome = OutcomeTriggered
	case r.Triggered:
		r.Outcome, r.FirstTool, r.Followed = OutcomeToolFirst, toolLabel(firstCall, activated), true
	case refusedLimit != "":
		r.Outcome, r.Limit = OutcomeRefused, refusedLimit
	case len(r.Loaded) > 0:
		r.Outcome, r.Other = OutcomeOtherSkill, r.Loaded[0]
	case firstCall != nil:
		r.Outcome, r.FirstTool = OutcomeToolFirst, toolLabel(firstCall, activated)
	default:
		r.Outcome = OutcomeAnswered
	}
	return r
}

func loadName(args string) string {
	var a struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	return strings.TrimSpace(a.Name)
}

// toolLabel names a first tool call; a load or activation of another
// skill says which.
func toolLabel(tc *event.ToolCallRecord, activated map[string]string) string {
	switch {
	case tc == nil:
		return ""
	case tc.Name == rulebook.ToolLoadSkill:
		return fmt.Sprintf("%s(%s)", tc.Name, loadName(tc.Arguments))
	case activated[tc.ID] != "":
		return fmt.Sprintf("%s(%s)", tc.Name, activated[tc.ID])
	}
	return tc.Name
}

// refusalLimit names the limit a refused load's message gives.
func refusalLimit(content string) string {
	for _, k := range limitKeys {
		if strings.Contains(content, k) {
			return k
		}
	}
	if strings.Contains(content, "pin") {
		return "pin"
	}
	return clip(content, 80)
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
