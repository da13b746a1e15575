// A program that lists skills through Crush's own functions, for
// TestCrushConformance. It is a module of its own so that Crush and its
// dependencies never enter Skillet's go.mod; its path sits under Crush's
// so that it may import Crush's internal packages.
module github.com/charmbracelet/crush/skilletlist

go 1.26.6

require github.com/charmbracelet/crush v0.0.0-20260821190835-37f36e93824e
