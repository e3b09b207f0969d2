// Package harness runs Gherkin scenarios with godog against recordings:
// it selects scenarios (paths, lines, tag expressions), shards, retries
// and repeats them, decides per recording whether a scenario runs live or
// is replayed (harness.Mode), compares each scenario's trace with its
// golden file, writes the reports (JUnit, Cucumber JSON, a self-contained
// HTML report) and prints hints that are commands which fix what failed.
//
// The steps are not the runner's: a Fixture supplies them. Its
// InitializeScenario binds the steps for one scenario, asks the runner
// for each tab's driver (Scenario.Driver: the runner decides by the mode
// whether the tab replays its session or runs live through a recorder,
// in the fixture's recording format, a Cassette) and ends the scenario
// with Scenario.Finish, handing over an Outcome (the normalised trace,
// whether it skipped itself). The runner compares goldens (with goldie
// under go test), checks and saves the tabs' sessions and fills the
// reports; it never reaches into the fixture's world, and a scenario
// whose fixture never finishes fails. A second team reuses the runner
// with its own steps by writing its own Fixture (Example_secondTeam).
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
