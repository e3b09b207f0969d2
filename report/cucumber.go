package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Cucumber JSON as cucumber-js writes it and as Cucumber's own tools read
// it (reporttest/testdata/cucumber-js.schema.json, from cucumber/cucumber-json-schema,
// which forbids any property it does not name). An error found after the
// last step (golden drift) is a hidden After hook of the scenario, the way
// cucumber-js reports a failing After hook, not a failure of the last step.
// A flaky scenario is its passing attempt, tagged @flaky, with each failed
// attempt's error in its description (the format has no field for
// attempts).

type cukeFeature struct {
	URI         string        `json:"uri"`
	ID          string        `json:"id"`
	Line        int           `json:"line"`
	Keyword     string        `json:"keyword"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Elements    []cukeElement `json:"elements"`
	Tags        []Tag         `json:"tags"`
}

type cukeElement struct {
	ID          string `json:"id"`
	Line        int    `json:"line"`
	Keyword     string `json:"keyword"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Type        string `json:"type"`
	Steps       []any  `json:"steps"`
	Tags        []Tag  `json:"tags"`
}

type cukeStep struct {
	Arguments []any      `json:"arguments"`
	Keyword   string     `json:"keyword"`
	Line      int        `json:"line"`
	Name      string     `json:"name"`
	Match     *cukeMatch `json:"match,omitempty"`
	Result    cukeResult `json:"result"`
}

type cukeHook struct {
	Hidden  bool       `json:"hidden"`
	Keyword string     `json:"keyword"`
	Match   *cukeMatch `json:"match,omitempty"`
	Result  cukeResult `json:"result"`
}

type cukeMatch struct {
	Location string `json:"location"`
}

type cukeResult struct {
	Status       string `json:"status"`
	Duration     int64  `json:"duration"`
	ErrorMessage string `json:"error_message,omitempty"`
}

type cukeDocString struct {
	Content string `json:"content"`
	Line    int    `json:"line"`
}

type cukeTable struct {
	Rows []cukeRow `json:"rows"`
}

type cukeRow struct {
	Cells []string `json:"cells"`
}

// WriteCucumber writes r as Cucumber JSON.
func WriteCucumber(w io.Writer, r *Run) error {
	feats := []cukeFeature{}
	byFile := map[string]int{}
	for _, sc := range r.Scenarios {
		i, ok := byFile[sc.File]
		if !ok {
			i = len(feats)
			byFile[sc.File] = i
			tags := sc.FeatureTags
			if tags == nil {
				tags = []Tag{}
			}
			feats = append(feats, cukeFeature{URI: sc.File, ID: cukeID(sc.Feature), Line: sc.FeatureLine, Keyword: "Feature",
				Name: sc.Feature, Description: sc.FeatureDesc, Tags: tags, Elements: []cukeElement{}})
		}
		feats[i].Elements = append(feats[i].Elements, cukeScenario(sc))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(feats); err != nil {
		return fmt.Errorf("report: cucumber: %w", err)
	}
	return nil
}

func cukeScenario(sc *Scenario) cukeElement {
	last := sc.Last()
	el := cukeElement{ID: cukeID(sc.Feature) + ";" + cukeID(sc.Name), Line: sc.Line, Keyword: sc.Keyword, Name: scenarioTitle(sc),
		Description: sc.Description, Type: "scenario", Steps: []any{}, Tags: append([]Tag{}, sc.Tags...)}
	if el.Keyword == "" {
		el.Keyword = "Scenario"
	}
	if sc.Repeat > 0 {
		el.ID += fmt.Sprintf(";;repeat-%d", sc.Repeat)
	}
	if sc.Outcome() == Flaky {
		el.Tags = append(el.Tags, Tag{Name: "@flaky", Line: sc.Line})
		var notes []string
		for n, a := range sc.Attempts {
			if a.Status == Failed {
				notes = append(notes, fmt.Sprintf("Flaky: attempt %d of %d failed: %s", n+1, len(sc.Attempts), a.Error))
			}
		}
		el.Description = strings.TrimSpace(el.Description + "\n" + strings.Join(notes, "\n"))
	}
	for _, st := range last.Steps {
		cs := cukeStep{Arguments: []any{}, Keyword: st.Keyword, Line: st.Line, Name: st.Text,
			Result: cukeResult{Status: cukeStatus(st.Status), Duration: int64(st.Duration), ErrorMessage: st.Error}}
		if cs.Result.Status == "failed" && cs.Result.ErrorMessage == "" {
			cs.Result.ErrorMessage = "failed"
		}
		if st.Location != "" {
			cs.Match = &cukeMatch{Location: st.Location}
		}
		if st.DocString != "" {
			cs.Arguments = append(cs.Arguments, cukeDocString{Content: st.DocString, Line: st.Line + 1})
		}
		if len(st.Table) > 0 {
			t := cukeTable{}
			for _, row := range st.Table {
				t.Rows = append(t.Rows, cukeRow{Cells: row})
			}
			cs.Arguments = append(cs.Arguments, t)
		}
		el.Steps = append(el.Steps, cs)
	}
	if last.AfterError != "" {
		h := cukeHook{Hidden: true, Keyword: "After", Result: cukeResult{Status: "failed", ErrorMessage: last.AfterError}}
		if last.AfterLocation != "" {
			h.Match = &cukeMatch{Location: last.AfterLocation}
		}
		el.Steps = append(el.Steps, h)
	}
	return el
}

func cukeStatus(s Status) string {
	switch s {
	case Passed, Failed, Skipped, Undefined, Pending:
		return string(s)
	}
	return "failed" // ambiguous: the format has no such status
}

// cukeID is cucumber's element id: lower case, spaces as dashes.
func cukeID(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), " ", "-")
}
