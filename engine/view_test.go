package engine_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/observe"
)

// TestViewJSONRulesOnce: a view's JSON names each adapter rule once and
// decodes back to the same view, every group's rule restored.
// A group of the main frame carries no frame in the JSON; others do.
func TestViewJSONRulesOnce(t *testing.T) {
	r1, r2 := "marker: data-message-author-role=assistant; id from data-message-id", "marker: element <model-response>; id from position 3 (no id attribute)"
	v := &engine.View{Snapshot: &observe.Snapshot{ID: 3, View: observe.ViewPage, Elements: []observe.Element{}, Headings: []observe.Heading{}, Tables: []observe.Table{}, Frames: []observe.FrameFacts{}},
		Adapter: "marker", GroupCount: observe.Count{Returned: 3, Total: 3},
		Groups: []adapter.Group{{ID: "a", Rule: r1, State: "complete", Media: []adapter.Media{}, Frame: "main"}, {ID: "b", Rule: r2, State: "generating", Media: []adapter.Media{}, Frame: "f1"}, {ID: "c", Rule: r1, State: "complete", Media: []adapter.Media{}, Frame: "main"}}}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), r1); n != 1 {
		t.Errorf("rule written %d times, want once: %s", n, data)
	}
	var raw struct {
		Rules  []string `json:"rules"`
		Groups []struct {
			RuleRef int     `json:"ruleRef"`
			Rule    *string `json:"rule"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(raw.Rules, []string{r1, r2}) || raw.Groups[1].RuleRef != 1 || raw.Groups[2].RuleRef != 0 || raw.Groups[0].Rule != nil {
		t.Errorf("rules %q, groups %+v", raw.Rules, raw.Groups)
	}
	var back engine.View
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Groups, v.Groups) || back.ID != 3 || back.Adapter != "marker" {
		t.Errorf("decoded %+v, want %+v", back, v)
	}
	bad := strings.Replace(string(data), `"ruleRef":1`, `"ruleRef":7`, 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil || !strings.Contains(err.Error(), "ruleRef 7") {
		t.Errorf("a ruleRef outside the rules: %v", err)
	}
}

// TestViewJSONLeavesOutDefaults: the defaults a view's JSON leaves out —
// a complete table's counts and main frame, ruleRef 0, a complete group's
// usual evidence, framesUnread 0 — are absent from the JSON and restored
// on decoding; anything else is written.
func TestViewJSONLeavesOutDefaults(t *testing.T) {
	rule := "marker: data-message-author-role=assistant; id from data-message-id"
	whole := observe.Table{Index: 1, Frame: "main", Role: "table", Rows: [][]string{{"a", "b"}, {"c"}},
		RowCount: observe.Count{Returned: 2, Total: 2}, ColCount: observe.Count{Returned: 2, Total: 2}, Complete: true}
	cut := observe.Table{Index: 2, Frame: "f1", Role: "grid", Rows: [][]string{{"a"}},
		RowCount: observe.Count{Returned: 1, Total: 9, Truncated: true}, ColCount: observe.Count{Returned: 1, Total: 1}}
	empty := observe.Table{Index: 3, Frame: "main", Role: "table", Rows: [][]string{}, Complete: true}
	group := func(state, evidence string) adapter.Group {
		return adapter.Group{ID: "g", Rule: rule, State: state, Media: []adapter.Media{}, Frame: "main", Evidence: evidence}
	}
	tests := []struct {
		name        string
		tables      []observe.Table
		group       adapter.Group
		absent, has []string
	}{
		{name: "complete table and complete group", tables: []observe.Table{whole}, group: group(adapter.StateComplete, adapter.EvidenceComplete),
			absent: []string{`"rowCount"`, `"colCount"`, `"complete":true`, `"frame"`, `"ruleRef"`, `"evidence"`, `"framesUnread"`}},
		{name: "cut table in a frame", tables: []observe.Table{cut}, group: group(adapter.StateGenerating, "aria-busy=true"),
			has: []string{`"rowCount":{"returned":1,"total":9,"truncated":true}`, `"colCount"`, `"complete":false`, `"frame":"f1"`, `"evidence":"aria-busy=true"`}},
		{name: "empty table", tables: []observe.Table{empty}, group: group(adapter.StateComplete, "other evidence"),
			absent: []string{`"rowCount"`}, has: []string{`"evidence":"other evidence"`}},
		{name: "complete group without evidence", tables: []observe.Table{}, group: group(adapter.StateComplete, ""),
			has: []string{`"evidence":""`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := engine.View{Snapshot: &observe.Snapshot{ID: 1, View: "page", Elements: []observe.Element{}, Headings: []observe.Heading{},
				Tables: tt.tables, Counts: observe.Counts{Frames: 1}}, Adapter: "marker", Groups: []adapter.Group{tt.group},
				GroupCount: observe.Count{Returned: 1, Total: 1}}
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.absent {
				if strings.Contains(string(data), s) {
					t.Errorf("%s in %s", s, data)
				}
			}
			for _, s := range tt.has {
				if !strings.Contains(string(data), s) {
					t.Errorf("no %s in %s", s, data)
				}
			}
			var back engine.View
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.Tables, v.Tables) || !reflect.DeepEqual(back.Groups, v.Groups) || back.Counts != v.Counts {
				t.Errorf("decoded tables %+v groups %+v counts %+v,\nwant %+v %+v %+v", back.Tables, back.Groups, back.Counts, v.Tables, v.Groups, v.Counts)
			}
		})
	}
}
