package main

import (
	"runtime/debug"
	"strings"
)

// versionLine is "skillet VERSION (commit REV, DATE)" as Go's build
// information has them: the module version for `go install`, the VCS
// commit for a build from a clone ("+dirty" when it had local changes).
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "skillet (no build information)"
	}
	version := info.Main.Version
	if version == "" || version == "(devel)" {
		version = "devel"
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	parts := []string{"skillet " + version}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		meta := "commit " + rev + dirty
		if when != "" {
			meta += ", " + when
		}
		parts = append(parts, "("+meta+")")
	}
	return strings.Join(parts, " ") + " " + info.GoVersion
}
