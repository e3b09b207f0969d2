// Package replaylab holds the data the replaylab binary embeds: the
// feature files and the recordings (sessions and golden traces), so that
// `replaylab run` works on its defaults from any directory. The code lives
// in engine/, sim/, steps/ and cmd/replaylab.
package replaylab

import "embed"

// Files holds features/ and recordings/.
//
//go:embed features recordings
var Files embed.FS
