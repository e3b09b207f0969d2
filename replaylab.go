// Package replaylab holds the data the replaylab binary embeds: the
// feature files, the recordings (sessions and golden traces) and the
// example adapter files the scenarios name, so that `replaylab run` works
// on its defaults from any directory. The code lives
// in engine/, sim/, steps/ and cmd/replaylab.
package replaylab

import "embed"

// Files holds features/, recordings/, docs/examples/ (the adapter
// files scenarios name) and the test site's profile and adapter file.
//
//go:embed features recordings docs/examples testsite/*.json testsite/broken testsite/chatapp-broken testsite/recordings testsite/lib
var Files embed.FS
