package monitor

import "strconv"

// SummaryElementsMax bounds each element list of a ChangeSummary; the counts
// still cover every element.
const SummaryElementsMax = 50

// ChangeSummary says what changed between two observations (MON-9). It
// grants no ref: it holds no snapshot refs and no element keys, so the agent
// must re-observe before acting on anything it mentions.
type ChangeSummary struct {
	TabChanged   bool `json:"tab_changed,omitempty"`
	URLChanged   bool `json:"url_changed,omitempty"`
	ScopeChanged bool `json:"scope_changed,omitempty"`

	// Added, Removed and Changed list controls, matched by Control.Key, in
	// page order, at most SummaryElementsMax each.
	Added   []Element `json:"added,omitempty"`
	Removed []Element `json:"removed,omitempty"`
	Changed []Element `json:"changed,omitempty"`
	// The counts cover every control, including those past the lists.
	AddedCount   int `json:"added_count"`
	RemovedCount int `json:"removed_count"`
	ChangedCount int `json:"changed_count"`

	// TextsAdded and TextsRemoved count texts present in one observation and
	// not the other (as multisets, numbers not normalised).
	TextsAdded   int `json:"texts_added"`
	TextsRemoved int `json:"texts_removed"`
	// TablesChanged and MediaChanged count positions that differ, including
	// tables and media that appeared or disappeared.
	TablesChanged int `json:"tables_changed"`
	MediaChanged  int `json:"media_changed"`
}

// Element describes a control in a ChangeSummary: its role and name, never
// its value. A sensitive control's name is SensitiveName.
type Element struct {
	Role string `json:"role"`
	Name string `json:"name"`
	// Fields lists what changed, for Changed: "name", "value", "checked",
	// "expanded", "disabled", "role".
	Fields []string `json:"fields,omitempty"`
}

// Summarize compares prev and next (MON-9). Controls are matched by Key;
// a control without a key is matched by role and name. When a key occurs
// more than once, its occurrences are matched in order.
func Summarize(prev, next Observation) ChangeSummary {
	s := ChangeSummary{
		TabChanged:   prev.Tab != next.Tab,
		URLChanged:   prev.URL != next.URL,
		ScopeChanged: prev.FrameScope != next.FrameScope,
	}

	prevKeys := controlKeys(prev.Controls)
	nextKeys := controlKeys(next.Controls)
	prevAt := make(map[string]int, len(prevKeys))
	for i, k := range prevKeys {
		prevAt[k] = i
	}
	matched := make([]bool, len(prev.Controls))
	for i, k := range nextKeys {
		c := next.Controls[i]
		j, ok := prevAt[k]
		if !ok {
			s.AddedCount++
			if len(s.Added) < SummaryElementsMax {
				s.Added = append(s.Added, element(c, c.Sensitive))
			}
			continue
		}
		matched[j] = true
		fields := changedFields(prev.Controls[j], c)
		if len(fields) == 0 {
			continue
		}
		s.ChangedCount++
		if len(s.Changed) < SummaryElementsMax {
			e := element(c, c.Sensitive || prev.Controls[j].Sensitive)
			e.Fields = fields
			s.Changed = append(s.Changed, e)
		}
	}
	for j, c := range prev.Controls {
		if matched[j] {
			continue
		}
		s.RemovedCount++
		if len(s.Removed) < SummaryElementsMax {
			s.Removed = append(s.Removed, element(c, c.Sensitive))
		}
	}

	s.TextsAdded, s.TextsRemoved = multisetDiff(prev.Texts, next.Texts)
	s.TablesChanged = countDiff(prev.Tables, next.Tables, tableEqual)
	s.MediaChanged = countDiff(prev.Media, next.Media, func(a, b Media) bool { return a == b })
	return s
}

func element(c Control, sensitive bool) Element {
	name := c.Name
	if sensitive {
		name = SensitiveName
	}
	return Element{Role: c.Role, Name: name}
}

// controlKeys returns the matching key of each control: its Key, or role and
// name when it has none, with the occurrence number appended from the
// second occurrence on.
func controlKeys(cs []Control) []string {
	keys := make([]string, len(cs))
	seen := make(map[string]int, len(cs))
	for i, c := range cs {
		k := "k\x00" + c.Key
		if c.Key == "" {
			k = "r\x00" + c.Role + "\x00" + c.Name
		}
		n := seen[k]
		seen[k] = n + 1
		if n > 0 {
			k += "\x00" + strconv.Itoa(n)
		}
		keys[i] = k
	}
	return keys
}

func changedFields(a, b Control) []string {
	var f []string
	if a.Role != b.Role {
		f = append(f, "role")
	}
	if a.Name != b.Name {
		f = append(f, "name")
	}
	if a.Value != b.Value {
		f = append(f, "value")
	}
	if a.Checked != b.Checked {
		f = append(f, "checked")
	}
	if a.Expanded != b.Expanded {
		f = append(f, "expanded")
	}
	if a.Disabled != b.Disabled {
		f = append(f, "disabled")
	}
	return f
}

// multisetDiff counts the texts of next missing from prev (added) and those
// of prev missing from next (removed).
func multisetDiff(prev, next []string) (added, removed int) {
	count := make(map[string]int, len(prev))
	for _, t := range prev {
		count[t]++
	}
	for _, t := range next {
		if count[t] > 0 {
			count[t]--
			continue
		}
		added++
	}
	for _, n := range count {
		removed += n
	}
	return added, removed
}

func countDiff[T any](a, b []T, eq func(T, T) bool) int {
	n := 0
	for i := 0; i < min(len(a), len(b)); i++ {
		if !eq(a[i], b[i]) {
			n++
		}
	}
	return n + max(len(a), len(b)) - min(len(a), len(b))
}

func tableEqual(a, b Table) bool {
	if len(a.Rows) != len(b.Rows) {
		return false
	}
	for i := range a.Rows {
		if len(a.Rows[i]) != len(b.Rows[i]) {
			return false
		}
		for j := range a.Rows[i] {
			if a.Rows[i][j] != b.Rows[i][j] {
				return false
			}
		}
	}
	return true
}
