package engine

import (
	"time"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// Config holds the engine's settings; the zero value of a field means its
// default.
type Config struct {
	Adapter adapter.Adapter // default adapter.DefaultMarker
	Tracer  trace.Tracer    // default trace.Discard
	Limits  observe.Limits  // full view, default observe.DefaultLimits
	// PageLimits bound the page API's shorter snapshot (OBS-4).
	PageLimits observe.Limits
	// OutcomeTimeout bounds how long a click's expectation is awaited.
	OutcomeTimeout time.Duration
	// PollInterval is the longest gap between reads while waiting, for
	// drivers that cannot tell when the page changed.
	PollInterval time.Duration
	// PageGroups and FullGroups bound the answer groups a view carries:
	// the most recent groups, each text cut to a length (the view says
	// what was cut). Zero fields take DefaultPageGroups / DefaultFullGroups.
	PageGroups GroupLimits
	FullGroups GroupLimits
	// Monitor configures the loop monitor of every task (zero fields take
	// monitor.DefaultConfig's values).
	Monitor monitor.Config
	// Ready says when a page is ready to be read after a navigation, and
	// before a send takes its baseline (APP-1); the zero value is the
	// default (Readiness).
	Ready Readiness
	// Settle is the settle window of answer waits (LIB-3, answer.Options
	// Settle): a site profile's "settle_ms"; zero takes
	// answer.DefaultSettle, negative turns it off.
	Settle time.Duration
	// ChangePollInterval is that gap for drivers that wake on page changes
	// (ChangeNotifier): a changed page is read at once, an idle one this
	// often.
	ChangePollInterval time.Duration
}

// Defaults of Config.
const (
	DefaultOutcomeTimeout     = 5 * time.Second
	DefaultPollInterval       = 50 * time.Millisecond
	DefaultChangePollInterval = 500 * time.Millisecond
)

// GroupLimits bound the answer groups of a view.
type GroupLimits struct {
	GroupsMax    int // most recent groups returned
	TextCharsMax int // characters of each group's text
}

// Defaults of the group limits: the page view shows the last 5 groups with
// 200 characters each (its text, the end of the page's, holds the newest
// answer's last 1,500), the full view the last 20 with 2,000.
var (
	DefaultPageGroups = GroupLimits{GroupsMax: 5, TextCharsMax: 200}
	DefaultFullGroups = GroupLimits{GroupsMax: 20, TextCharsMax: 2000}
)
