// Package harness runs Gherkin scenarios with godog against recordings:
// it selects scenarios (paths, lines, tag expressions), shards, retries
// and repeats them, decides per recording whether a scenario runs live or
// is replayed (harness.Mode), compares each scenario's trace with its
// golden file, writes the reports (JUnit, Cucumber JSON, a self-contained
// HTML report) and prints hints that are commands which fix what failed.
//
// The steps are not the runner's: a Fixture supplies them. Its
// InitializeScenario binds the steps for one scenario and ends the
// scenario with Scenario.Finish, handing over an Outcome (the normalised
// trace, the sessions recorded or replayed, whether it skipped itself).
// The runner compares goldens, saves sessions and fills the reports from
// that Outcome alone; it never reaches into the fixture's world. A second
// team reuses the runner with its own steps by writing its own Fixture.
//
// A project is a directory (Options.Root) holding features/*.feature and
// recordings/: recordings/golden/<slug>.golden are the golden traces and
// recordings/sessions/<slug>.json the recorded sessions, where a
// scenario's slug is <feature file>/<scenario name> (Scenario.Slug).
//
// The catalogue functions (WriteCatalogue, Filter, Suggest,
// CheckCatalogue) work on any fixture's []StepDef, so another front end
// (an editor's language server) reads the same catalogue, selection
// (Select) and recording state (State) as the runner.
package harness
