package harness

// Front ends. Another front end of the runner (the editor's language
// server, harness/lsp) reads a feature file's scenarios, their recording
// state (State) and the hints that fix it exactly as a run would, also
// for content an editor holds and has not saved.

// ScenariosOf returns the scenarios of a feature file's content as
// Select names them (slugs, fingerprints, tags, lines): content is the
// file at path, uri its name relative to the project root
// ("features/chat.feature"). A malformed file is a *BadSelectionError
// naming uri:line.
func ScenariosOf(content []byte, path, uri string) ([]Scenario, error) {
	pf, err := parseFeatureBytes(content, path, uri)
	if err != nil {
		return nil, err
	}
	return pf.all, nil
}

// HintsFor are the hints a run with opt prints for sc: the commands that
// record it, re-record it, create its golden or rewrite it, spelled with
// opt.Command, opt.HintFlags and paths relative to opt.HintDir (default
// opt.Dir, then the current directory).
func HintsFor(opt Options, sc Scenario) Hints {
	return (&Runner{opt: opt}).hints(sc)
}
