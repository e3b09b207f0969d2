Feature: The editor knows the steps
  `replaylab lsp` is a language server for feature files: an editor that
  speaks the Language Server Protocol completes steps from the catalogue,
  shows what `run` would refuse (an undefined step, with the closest
  catalogue steps; a scenario with no recording) before anything runs, and
  goes from a step to the Go function behind it. These scenarios start the
  server in a scratch project and speak to it as an editor does.

  @GATE-7
  Scenario: A misspelt step is flagged with the closest step, a missing recording with its fix
    Given a feature file "typo.feature" with:
      """
      Feature: Typo
        Scenario: Misspelt
          When I opne the sim page "/duplicates"
          Then the page text contains "Archive"
      """
    When the editor opens "typo.feature"
    Then the editor flags line 3 of "typo.feature" as undefined, closest first "When I open the sim page "/sidebar""
    And the editor warns "no-recording" at line 2 of "typo.feature", fixed by a command ending in "--mode record-once features/typo.feature:2"
    And typing "When I open the s" on line 5 of "typo.feature" offers "I open the sim page "/sidebar""
    And the editor shuts the language server down and it exits 0

  @GATE-7
  Scenario: Hover and definition for every step; the warning goes once the golden exists
    Given a feature file "qa.feature" with:
      """
      Feature: QA
        Scenario: Only scripting
          Given a marker-style chat with 2 earlier turns
          And the next answer completes as "Fine." after 300 ms
      """
    When the editor opens "qa.feature"
    Then the editor warns "no-recording" at line 2 of "qa.feature", fixed by a command ending in "--mode record-once features/qa.feature:2"
    And hover and go to definition answer for every step of "qa.feature"
    When I run the harness on "qa.feature" with --update
    And the editor opens "qa.feature"
    Then the editor shows no diagnostic for "qa.feature"
    And the editor shuts the language server down and it exits 0
