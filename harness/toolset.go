package harness

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"skillet/harness/rulebook"
)

// binding is one tool of a request and what carries it out; toolset the
// tools of one request (see rulebook.BuildTools).
type (
	binding = rulebook.Binding
	toolset = rulebook.Toolset
)

// modelToolName is the name the model sees (see rulebook.ModelToolName).
func modelToolName(ref string) string { return rulebook.ModelToolName(ref) }

// prefetchMCP asks MCP servers for the definitions of refs, starting them
// as needed, without the session's lock: a slow server must not stall
// snapshots or cancellation. It returns one message per failure, for the
// harness log.
func (s *Session) prefetchMCP(ctx context.Context, refs []string) []string {
	var failures []string
	for _, name := range refs {
		server, tool, _ := strings.Cut(name, "/")
		d, err := s.opts.Runner.MCPTool(ctx, server, tool)
		st, _ := s.opts.Runner.MCPStatus(server)
		s.with(func(f *frame) {
			if err != nil {
				f.w.MCPErrs[name] = fmt.Errorf("tool %s: %w", name, err)
				// said once per change of the server's state, not at every
				// call while it backs off
				if key := name + "@" + strconv.FormatUint(st.Change, 10); !f.w.mcpSaid[key] {
					f.w.mcpSaid[key] = true
					failures = append(failures, f.w.MCPErrs[name].Error()+" (a call of it will try the server again)")
				}
			} else {
				cp := *d
				cp.Name = modelToolName(name)
				f.w.MCPDefs[name] = &cp
				delete(f.w.MCPErrs, name)
			}
		})
	}
	return failures
}
