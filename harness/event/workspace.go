package event

// ShellRun is what one shell tool call ran and how it ended, as the
// transcript, `skillet show` and exports present it.
type ShellRun struct {
	Command string `json:"command"`
	// Dir is the working folder, relative to the workspace ("." for its root).
	Dir        string `json:"dir"`
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// Output is stdout and stderr as they arrived, up to the sandbox's
	// output cap; OutputBytes counts everything written, kept or not.
	Output      string `json:"output"`
	OutputBytes int64  `json:"output_bytes"`
	Truncated   bool   `json:"truncated,omitempty"`
	// Limit names the limit that ended the command ("wall time 2m0s"),
	// "" when it ended by itself.
	Limit string `json:"limit,omitempty"`
	// Sandbox says how it was confined: "bubblewrap", or "none" under
	// --no-sandbox.
	Sandbox string `json:"sandbox"`
}

// File change operations.
const (
	FileCreate = "create"
	FileModify = "modify"
	FileDelete = "delete"
)

// FileChange is one file of the workspace a tool call created, changed or
// deleted. The content is kept so the workspace can be rebuilt as it was
// at any call (`skillet workspace`); the journal stores it once per
// content, like request parts.
type FileChange struct {
	// Path is relative to the workspace, with forward slashes.
	Path string `json:"path"`
	Op   string `json:"op"`
	Hash string `json:"hash,omitempty"`
	Size int64  `json:"size"`
	Mode uint32 `json:"mode,omitempty"`
	// Link is a symbolic link's target.
	Link string `json:"link,omitempty"`
	// Content is the file's new content: text as it is, binary content in
	// base64 (Base64 set). TextRef is how a journal stores a long one.
	Content string `json:"content,omitempty"`
	TextRef string `json:"content_ref,omitempty"`
	Base64  bool   `json:"base64,omitempty"`
	// Omitted marks a file too large to keep: only its hash and size are
	// recorded.
	Omitted bool `json:"omitted,omitempty"`
}

// WorkspaceChanged records the files one tool call changed in the
// session's workspace, found by comparing the workspace before and after.
type WorkspaceChanged struct {
	Header
	ToolCallID string       `json:"tool_call_id"`
	Tool       string       `json:"tool"`
	Changes    []FileChange `json:"changes"`
}

// Workspace modes, as WorkspaceInfo.Mode records them.
const (
	WorkspaceScratch = "scratch"
	WorkspaceCopy    = "copy"
	WorkspaceInPlace = "in-place"
)

// WorkspaceInfo says where a session's agent tools work.
type WorkspaceInfo struct {
	// Root is the workspace folder; Mode WorkspaceScratch, WorkspaceCopy
	// or WorkspaceInPlace; Source the folder a copy started from.
	Root   string `json:"root"`
	Mode   string `json:"mode"`
	Source string `json:"source,omitempty"`
	// Files and Bytes are what the workspace held when it started.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Sandbox describes how commands are confined, "" when shell tools
	// are refused; Network says whether commands may reach the network.
	Sandbox string `json:"sandbox,omitempty"`
	Network bool   `json:"network,omitempty"`
}
