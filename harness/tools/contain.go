package tools

import "skillet/harness/sandbox"

// contain ties a command tool run or stdio MCP server, not yet started, to
// its own lifetime and Skillet's (sandbox.Contain): nothing it starts
// outlives it, even when Skillet is killed with -9. It reports whether the
// run has a PID namespace of its own. Tests replace it to exercise the
// process-tree tracking that is left where the kernel gives none.
var contain = sandbox.Contain
