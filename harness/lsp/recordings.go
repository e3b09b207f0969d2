package lsp

// Recordings tells, for each scenario of a feature file, what `run`
// would find of its recordings: the session recorded for it (missing, or
// made from other steps) and its golden trace (missing). The harness
// implements it from the same selection, names and fingerprints `run`
// uses.
type Recordings interface {
	// Check reads the recording state of the scenarios of content (the
	// file at path, named rel from root, as the editor holds it).
	Check(root, rel, path string, content []byte) ([]RecordingState, error)
}

// Checks tells the problems `run --dry-run` finds in a feature file
// beyond undefined steps and recordings: ambiguous steps, arguments that
// do not convert, site profiles and adapter files that are missing or do
// not load. The harness implements it (RunChecks) with the code the dry
// run runs.
type Checks interface {
	Check(root, rel, path string, content []byte) ([]Problem, error)
}

// Problem is one problem Checks found: at a step's line (1-based), with
// the dry run's code (CodeAmbiguous, CodeBadArgument, CodeMissingFile,
// CodeBadFile) and message.
type Problem struct {
	Line          int
	Code, Message string
}

// RecordingState is one scenario's (or outline row's) recording state.
type RecordingState struct {
	// Line is the scenario's line, or an outline row's (1-based).
	Line int
	// Problem is CodeNoRecording, CodeStaleRecording or CodeNoGolden; ""
	// when everything is there.
	Problem string
	// Message says what is missing or stale.
	Message string
	// Command is the command line that fixes it, run from the root.
	Command []string
}
