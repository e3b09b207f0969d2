package engine

import "github.com/replaylab/replaylab/engine/driver"

// The driver contract lives in the leaf package engine/driver, which the
// harness imports without the engine. These aliases keep the engine's
// callers (the vocabulary, the MCP server) reading as before.
type (
	// Driver is driver.Driver.
	Driver = driver.Driver
	// DoubleClicker is driver.DoubleClicker.
	DoubleClicker = driver.DoubleClicker
	// Scroller is driver.Scroller.
	Scroller = driver.Scroller
	// Notifier is driver.Notifier.
	Notifier = driver.Notifier
	// Refresher is driver.Refresher.
	Refresher = driver.Refresher
	// Quieter is driver.Quieter.
	Quieter = driver.Quieter
	// ChangeNotifier is driver.ChangeNotifier.
	ChangeNotifier = driver.ChangeNotifier
	// Scheduled is driver.Scheduled.
	Scheduled = driver.Scheduled
	// StreamNoter is driver.StreamNoter.
	StreamNoter = driver.StreamNoter
)
