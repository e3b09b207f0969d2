package engine

import (
	"encoding/json"
	"fmt"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
)

// A View's JSON names each adapter rule once: "rules" lists the distinct
// rule strings of the view's groups, and each group carries "ruleRef",
// the index of its rule in that list, instead of repeating the ~100-byte
// string per group. Decoding restores Group.Rule, so a View read back
// (the MCP client) is the View that was written. Defaults are left out:
// ruleRef 0 (the first rule) and a complete group's evidence
// (adapter.EvidenceComplete).

// ViewGroupJSON is one answer group as a View's JSON carries it.
type ViewGroupJSON struct {
	ID            string          `json:"id"`
	RuleRef       int             `json:"ruleRef,omitempty"` // left out for the first rule
	State         string          `json:"state"`
	Text          string          `json:"text"`
	TextTruncated bool            `json:"textTruncated,omitempty"`
	Media         []adapter.Media `json:"media,omitempty"`
	Frame         string          `json:"frame,omitempty"` // left out for the main frame
	// Evidence is left out for a complete group's usual evidence
	// (adapter.EvidenceComplete); nil decodes as that for a complete
	// group, as "" for any other.
	Evidence *string `json:"evidence,omitempty"`
}

// ViewJSON is the JSON shape of a View (its output schema derives from
// it).
type ViewJSON struct {
	*observe.Snapshot
	Adapter string `json:"adapter"`
	// Rules are the adapter rules of the groups, each once.
	Rules      []string        `json:"rules"`
	Groups     []ViewGroupJSON `json:"groups"`
	GroupCount observe.Count   `json:"groupCount"`
	Signal     *monitor.Signal `json:"signal,omitempty"`
}

// MarshalJSON writes the view with each group's rule named once.
func (v View) MarshalJSON() ([]byte, error) {
	out := ViewJSON{Snapshot: v.Snapshot, Adapter: v.Adapter, Rules: []string{}, Groups: make([]ViewGroupJSON, 0, len(v.Groups)),
		GroupCount: v.GroupCount, Signal: v.Signal}
	if out.Snapshot == nil {
		out.Snapshot = &observe.Snapshot{}
	} else if out.Snapshot.OneFrame() {
		// one main frame read whole: its facts are the counts
		s := *out.Snapshot
		s.Frames = nil
		out.Snapshot = &s
	}
	index := map[string]int{}
	for _, g := range v.Groups {
		ref, ok := index[g.Rule]
		if !ok {
			ref = len(out.Rules)
			index[g.Rule] = ref
			out.Rules = append(out.Rules, g.Rule)
		}
		frame := g.Frame
		if frame == capture.MainFrame {
			frame = ""
		}
		evidence := &g.Evidence
		if g.State == adapter.StateComplete && g.Evidence == adapter.EvidenceComplete {
			evidence = nil
		}
		out.Groups = append(out.Groups, ViewGroupJSON{ID: g.ID, RuleRef: ref, State: g.State, Text: g.Text,
			TextTruncated: g.TextTruncated, Media: g.Media, Frame: frame, Evidence: evidence})
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote, each group's rule restored.
func (v *View) UnmarshalJSON(data []byte) error {
	var in ViewJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*v = View{Snapshot: in.Snapshot, Adapter: in.Adapter, GroupCount: in.GroupCount, Signal: in.Signal,
		Groups: make([]adapter.Group, 0, len(in.Groups))}
	if v.Snapshot != nil {
		v.Snapshot.RestoreFrames()
	}
	for _, g := range in.Groups {
		if g.Frame == "" {
			g.Frame = capture.MainFrame
		}
		if g.Media == nil {
			g.Media = []adapter.Media{}
		}
		evidence := ""
		switch {
		case g.Evidence != nil:
			evidence = *g.Evidence
		case g.State == adapter.StateComplete:
			evidence = adapter.EvidenceComplete
		}
		if g.RuleRef < 0 || g.RuleRef >= len(in.Rules) {
			return fmt.Errorf("engine: view group %s: ruleRef %d outside the %d rules", g.ID, g.RuleRef, len(in.Rules))
		}
		v.Groups = append(v.Groups, adapter.Group{ID: g.ID, Rule: in.Rules[g.RuleRef], State: g.State, Text: g.Text,
			TextTruncated: g.TextTruncated, Media: g.Media, Frame: g.Frame, Evidence: evidence})
	}
	return nil
}

// BoundGroups keeps the last lim.GroupsMax groups, each text cut to
// lim.TextCharsMax characters, as the views do; the count says how many
// there were and whether any was left out or cut.
func BoundGroups(all []adapter.Group, lim GroupLimits) ([]adapter.Group, observe.Count) {
	return boundGroups(all, lim)
}
