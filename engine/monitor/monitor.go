package monitor

import "sync"

// Defaults of Config (MON-1, MON-4).
const (
	// DefaultWindow is how many action fingerprints and, separately, how many
	// observation fingerprints the monitor keeps.
	DefaultWindow = 20
	// DefaultSameActionMin is how often the same action must occur in the
	// action window for rule (a).
	DefaultSameActionMin = 5
	// DefaultRevisitMin is how many revisits the observation window must hold
	// for rule (a).
	DefaultRevisitMin = 3
	// DefaultStagnantActionsMin is how many consecutive non-passive actions
	// must leave the observation unchanged for rule (b).
	DefaultStagnantActionsMin = 5
	// DefaultNoObservationSameActionMin is how often the same action must
	// occur with no observation in between for rule (c).
	DefaultNoObservationSameActionMin = 5

	// WindowMax bounds Config.Window; larger values are clamped to it.
	WindowMax = 1000
)

// DefaultConfig holds every default.
var DefaultConfig = Config{
	Window:                     DefaultWindow,
	SameActionMin:              DefaultSameActionMin,
	RevisitMin:                 DefaultRevisitMin,
	StagnantActionsMin:         DefaultStagnantActionsMin,
	NoObservationSameActionMin: DefaultNoObservationSameActionMin,
}

// Config sets the window and thresholds. A zero or negative field takes its
// value from DefaultConfig. A threshold larger than Window can never be
// reached for rules (a) and (c).
type Config struct {
	Window                     int
	SameActionMin              int
	RevisitMin                 int
	StagnantActionsMin         int
	NoObservationSameActionMin int
}

func (c Config) withDefaults() Config {
	d := DefaultConfig
	if c.Window <= 0 {
		c.Window = d.Window
	}
	if c.Window > WindowMax {
		c.Window = WindowMax
	}
	if c.SameActionMin <= 0 {
		c.SameActionMin = d.SameActionMin
	}
	if c.RevisitMin <= 0 {
		c.RevisitMin = d.RevisitMin
	}
	if c.StagnantActionsMin <= 0 {
		c.StagnantActionsMin = d.StagnantActionsMin
	}
	if c.NoObservationSameActionMin <= 0 {
		c.NoObservationSameActionMin = d.NoObservationSameActionMin
	}
	return c
}

// Rule is the stable code of the rule that fired.
type Rule string

// The rules of MON-4.
const (
	// RuleSameActionRevisit is rule (a): the same action repeated while the
	// page keeps coming back to earlier states.
	RuleSameActionRevisit Rule = "same_action_revisit"
	// RuleStagnation is rule (b): consecutive actions that leave the page
	// unchanged.
	RuleStagnation Rule = "stagnation"
	// RuleSameActionNoObservation is rule (c): the same action repeated
	// without looking at the page in between.
	RuleSameActionNoObservation Rule = "same_action_no_observation"
)

// Advice is the fixed advice every signal carries. It names no target and
// holds no typed text.
const Advice = "The recent operations look like a loop. Re-observe the page and change approach; " +
	"do not repeat the same action. Do not resend a submission that completed or whose outcome " +
	"is uncertain: verify its outcome instead. This signal is advisory; the task can still finish."

// Signal is the advisory loop signal (MON-7). It carries the rule and counts
// only: never typed text, names, fingerprints or refs.
type Signal struct {
	Rule Rule `json:"rule"`
	// SameAction is how often the offending action occurs in the action
	// window.
	SameAction int `json:"same_action"`
	// SinceObservation is how often it occurred since the last observation.
	SinceObservation int `json:"since_observation"`
	// Revisits is how many revisits the observation window holds.
	Revisits int `json:"revisits"`
	// Stagnant is how many consecutive actions left the observation
	// unchanged.
	Stagnant int `json:"stagnant"`
	// Window is the size of each window.
	Window int    `json:"window"`
	Advice string `json:"advice"`
}

type actionEntry struct {
	fp    sum
	epoch uint64 // Monitor.epoch when the action was recorded
}

type observationEntry struct {
	fp      sum
	tab     string
	revisit bool
}

// Monitor watches one task's operations for loops. Its methods are safe for
// concurrent use, but a Monitor is meant for one task: operations of
// different tasks must not share one.
type Monitor struct {
	mu  sync.Mutex
	cfg Config

	actions     []actionEntry // ring of the last cfg.Window non-passive actions
	actionsNext int
	obs         []observationEntry // ring of the last cfg.Window observations
	obsNext     int

	epoch           uint64 // observations recorded so far
	lastAction      sum
	actionsSinceObs int
	lastObs         sum
	haveObs         bool
	stagnant        int

	pending *Signal
}

// New returns a Monitor with cfg (zero fields take their defaults).
func New(cfg Config) *Monitor {
	cfg = cfg.withDefaults()
	return &Monitor{
		cfg:     cfg,
		actions: make([]actionEntry, 0, cfg.Window),
		obs:     make([]observationEntry, 0, cfg.Window),
	}
}

// Config returns the effective configuration.
func (m *Monitor) Config() Config { return m.cfg }

// Act records an operation of the agent. Passive operations (see
// Action.IsPassive) are ignored. Act may raise a signal for rules (a) and
// (c); it never fails.
func (m *Monitor) Act(a Action) {
	if a.IsPassive() {
		return
	}
	fp := actionSum(a)
	m.mu.Lock()
	defer m.mu.Unlock()

	e := actionEntry{fp: fp, epoch: m.epoch}
	if len(m.actions) < m.cfg.Window {
		m.actions = append(m.actions, e)
	} else {
		m.actions[m.actionsNext] = e
		m.actionsNext = (m.actionsNext + 1) % m.cfg.Window
	}
	m.lastAction = fp
	if m.actionsSinceObs < WindowMax {
		m.actionsSinceObs++
	}
	m.evaluate(false)
}

// Observe records what the page looked like after an operation. It may
// raise a signal for rules (a) and (b), but only when non-passive actions
// happened since the previous observation; it never fails.
func (m *Monitor) Observe(o Observation) {
	fp := observationSum(o)
	m.mu.Lock()
	defer m.mu.Unlock()

	// Revisit: different from the previous observation of the same tab and
	// equal to an earlier observation in the window (MON-4 a).
	revisit := false
	if prev, ok := m.lastOfTab(o.Tab); ok && prev != fp {
		for i := range m.obs {
			if m.obs[i].fp == fp {
				revisit = true
				break
			}
		}
	}
	e := observationEntry{fp: fp, tab: o.Tab, revisit: revisit}
	if len(m.obs) < m.cfg.Window {
		m.obs = append(m.obs, e)
	} else {
		m.obs[m.obsNext] = e
		m.obsNext = (m.obsNext + 1) % m.cfg.Window
	}

	// Stagnation (MON-4 b).
	unchanged := m.haveObs && fp == m.lastObs
	acted := m.actionsSinceObs > 0
	switch {
	case acted && unchanged:
		m.stagnant = min(m.stagnant+m.actionsSinceObs, WindowMax)
	case !unchanged:
		m.stagnant = 0
	}
	m.lastObs = fp
	m.haveObs = true
	m.epoch++

	if acted {
		m.evaluate(true)
	}
	m.actionsSinceObs = 0
}

// Pending returns the signal raised since the last call, or nil, and clears
// it. The engine attaches it to the result it returns next (MON-8).
func (m *Monitor) Pending() *Signal {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.pending
	m.pending = nil
	return s
}

// lastOfTab returns the fingerprint of the newest observation of tab in the
// window.
func (m *Monitor) lastOfTab(tab string) (sum, bool) {
	n := len(m.obs)
	for k := 1; k <= n; k++ {
		// Newest first: the newest entry is just before obsNext.
		// While the ring is filling, obsNext is 0 and this is n-k.
		i := (m.obsNext - k + n) % n
		if m.obs[i].tab == tab {
			return m.obs[i].fp, true
		}
	}
	return sum{}, false
}

// evaluate checks the rules for the last action, after an action
// (onObserve false: rules a and c) or after the first observation that
// follows actions (onObserve true: rules a and b), and sets m.pending.
func (m *Monitor) evaluate(onObserve bool) {
	same, sinceObs := 0, 0
	for i := range m.actions {
		if m.actions[i].fp == m.lastAction {
			same++
			if m.actions[i].epoch == m.epoch {
				sinceObs++
			}
		}
	}
	if onObserve {
		sinceObs = 0 // an observation just happened
	}
	revisits := 0
	for i := range m.obs {
		if m.obs[i].revisit {
			revisits++
		}
	}

	var rule Rule
	switch {
	case same >= m.cfg.SameActionMin && revisits >= m.cfg.RevisitMin:
		rule = RuleSameActionRevisit
	case !onObserve && sinceObs >= m.cfg.NoObservationSameActionMin:
		rule = RuleSameActionNoObservation
	case onObserve && m.stagnant >= m.cfg.StagnantActionsMin:
		rule = RuleStagnation
	default:
		return
	}
	m.pending = &Signal{
		Rule:             rule,
		SameAction:       same,
		SinceObservation: sinceObs,
		Revisits:         revisits,
		Stagnant:         m.stagnant,
		Window:           m.cfg.Window,
		Advice:           Advice,
	}
}
