package harnesstest

import "skillet/harness/chat"

// System is the request's system message, "" when it has none.
func System(req *chat.Request) string {
	if len(req.Messages) > 0 && req.Messages[0].Role == chat.RoleSystem {
		return req.Messages[0].Content
	}
	return ""
}

// ToolNames lists the names of the tools the request offers, in order.
func ToolNames(req *chat.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// SinceUser returns the request's last user message and the messages after
// it: how far the model has got in the current turn.
func SinceUser(req *chat.Request) (user string, after []chat.Message) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == chat.RoleUser {
			return req.Messages[i].Content, req.Messages[i+1:]
		}
	}
	return "", req.Messages
}
