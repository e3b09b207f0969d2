package engine

import (
	"strconv"
	"strings"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// The loop monitor watches every task (SPEC §5): each operation is an
// action (passive ones are marked so the monitor ignores them) and each
// observation the engine takes feeds the observation window. A signal is
// advisory: it is traced and rides on the next result (Task.Signal, View),
// and never fails, blocks or resends anything (MON-8).

// monitorObservation maps an observation to what the monitor fingerprints:
// tab, URL, frames, visible text lines, media, and controls keyed by their
// stable node id (never by ref).
func monitorObservation(tab string, o *observe.Observation, groups adapter.Result) monitor.Observation {
	text, tables := o.TextAndTables(observe.DefaultLimits)
	mo := monitor.Observation{SnapshotID: strconv.Itoa(o.ID), Tab: tab, URL: o.URL}
	var frames []string
	for _, f := range o.Doc.Frames {
		frames = append(frames, f.ID)
	}
	mo.FrameScope = strings.Join(frames, ",")
	if text != "" {
		mo.Texts = strings.Split(text, "\n")
	}
	for _, t := range tables {
		mo.Tables = append(mo.Tables, monitor.Table{Rows: t.Rows})
	}
	for _, m := range groups.Media() {
		mo.Media = append(mo.Media, monitor.Media{Kind: m.Kind, Ready: m.Ready})
	}
	mo.Controls = make([]monitor.Control, 0, len(o.All))
	for i := range o.All {
		e := &o.All[i] // elements are large: not copied
		c := monitor.Control{Key: e.Node, Role: e.Role, Name: e.Name, Value: e.RealValue(), Disabled: e.Disabled, Sensitive: sensitiveControl(e)}
		if e.Checked != nil {
			c.Checked = *e.Checked
		}
		c.Expanded = e.Expanded()
		mo.Controls = append(mo.Controls, c)
	}
	return mo
}

// sensitiveControl is the monitor's one definition of sensitive
// (monitor.IsSensitive over type, autocomplete, name, id, label and
// placeholder) on top of the observation's own flag, so a change summary
// never names a field the observation's narrower rule missed (a "Security
// code" without autocomplete, say). Only fields hold values: buttons and
// links ("Forgot password?") are never sensitive, and skipping them keeps
// the check off most of a page's elements.
func sensitiveControl(e *observe.Element) bool {
	if e.Sensitive {
		return true
	}
	if !e.IsFormField() {
		return false
	}
	n := e.HTMLNode()
	return monitor.IsSensitive(monitor.ControlInfo{
		Type:         observe.Attr(n, "type"),
		Autocomplete: observe.Attr(n, "autocomplete"),
		Name:         observe.Attr(n, "name"),
		ID:           observe.Attr(n, "id"),
		Label:        e.Name,
		Placeholder:  observe.Attr(n, "placeholder"),
	})
}

// noteObservation feeds the monitor, keeps the observation for change
// summaries, and moves a signal the observation raised (rules a and b) to
// the task at once, so Task.Signal sees it before the next action.
func (p *Page) noteObservation(mo monitor.Observation) {
	p.task.mu.Lock()
	p.task.mon.Observe(mo)
	p.prevMon, p.lastMon = p.lastMon, &mo
	p.task.mu.Unlock()
	p.takeSignal()
}

// noteAction tells the monitor what the agent did. The typed value goes
// in only to be hashed; it never reaches a signal.
func (p *Page) noteAction(op string, el observe.Element, value, key string, passive bool) {
	p.task.mu.Lock()
	p.task.mon.Act(monitor.Action{Op: op, Tab: p.Name, Role: el.Role, Name: el.Name, Value: value, Key: key, Passive: passive, Sensitive: el.Sensitive})
	p.task.mu.Unlock()
	p.takeSignal()
}

// takeSignal moves a pending signal to the task and the trace.
func (p *Page) takeSignal() {
	p.task.mu.Lock()
	s := p.task.mon.Pending()
	if s != nil {
		p.task.signal = s
	}
	p.task.mu.Unlock()
	if s != nil {
		p.emit("monitor.signal", trace.A("rule", string(s.Rule)), trace.A("sameAction", s.SameAction),
			trace.A("revisits", s.Revisits), trace.A("stagnant", s.Stagnant), trace.A("window", s.Window))
	}
}

// Signal returns the loop signal raised since the last call, or nil, and
// clears it: the signal rides on the next result the agent reads.
func (t *Task) Signal() *monitor.Signal {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.signal
	t.signal = nil
	return s
}

// Changes summarises what changed between the page's last two
// observations (MON-9). The summary names roles and names of controls
// (never values, never sensitive names) and grants no ref.
func (p *Page) Changes() (monitor.ChangeSummary, bool) {
	p.task.mu.Lock()
	defer p.task.mu.Unlock()
	if p.prevMon == nil || p.lastMon == nil {
		return monitor.ChangeSummary{}, false
	}
	return monitor.Summarize(*p.prevMon, *p.lastMon), true
}
