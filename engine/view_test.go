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
