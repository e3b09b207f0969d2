package harness

import "testing"

func TestFilter(t *testing.T) {
	defs := []StepDef{{Pattern: "a ready video"}, {Pattern: "the refusal counts", Meaning: "matches"}}
	tests := []struct {
		name  string
		words []string
		want  int
	}{
		{"none", nil, 2},
		{"one word", []string{"VIDEO"}, 1},
		{"plural", []string{"videos"}, 1},
		{"all words", []string{"refusal", "matches"}, 1},
		{"one word missing", []string{"refusal", "video"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(Filter(defs, tt.words)); got != tt.want {
				t.Fatalf("Filter(%v) kept %d, want %d", tt.words, got, tt.want)
			}
		})
	}
}

func TestExampleParsesAsStep(t *testing.T) {
	tests := []struct {
		name string
		def  StepDef
		ok   bool
	}{
		{"a step", StepDef{Example: `When I send "hi"`}, true},
		{"no keyword", StepDef{Example: `I send "hi"`}, false},
		{"with its table", StepDef{Example: "Then the change summary is:", Table: "| added | x |"}, true},
		{"a table that is none", StepDef{Example: "Then the change summary is:", Table: "added x"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := parsesAsStep(tt.def); (err == nil) != tt.ok {
				t.Fatalf("parsesAsStep: %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
