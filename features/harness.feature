Feature: The harness as a CI gate
  QA engineers write scenarios from the step catalogue alone; the harness
  runs them, compares each scenario's normalised trace with its golden, and
  exits non-zero on any failure, undefined step or golden drift, with JUnit
  and Cucumber JSON reports. These scenarios run the harness on a scratch
  project and check what it does.

  @HAR-1 @HAR-6
  Scenario: A scenario written from the catalogue runs and is reported
    Given a feature file "qa.feature" with:
      """
      Feature: QA
        Scenario: Only scripting
          Given a marker-style chat with 2 earlier turns
          And the next answer completes as "Fine." after 300 ms
      """
    When I run the harness on "qa.feature" with --update
    Then the run exits 0
    And the scratch project has the golden trace "qa/only-scripting"
    When I run the harness on "qa.feature"
    Then the run exits 0
    And the JUnit report counts 1 test and 0 failures
    And the Cucumber report lists 1 scenario

  @HAR-6
  Scenario: An undefined step fails the gate and prints a snippet
    Given a feature file "typo.feature" with:
      """
      Feature: Typo
        Scenario: A step nobody defined
          Given a marker styled chat with two earlier turns
      """
    When I run the harness on "typo.feature"
    Then the run exits 1
    And the run output mentions "func InitializeScenario"
    And the JUnit report counts 1 test and 1 failure

  @HAR-2 @HAR-6
  Scenario: A missing golden fails with the command that creates it, drift fails with a diff
    Given a feature file "qa.feature" with:
      """
      Feature: QA
        Scenario: Only scripting
          Given a marker-style chat with 2 earlier turns
      """
    When I run the harness on "qa.feature"
    Then the run exits 1
    And the run output mentions "is missing; create it with"
    When I run the harness on "qa.feature" with --update
    Then the run exits 0
    When the golden trace of "qa/only-scripting" gains the line "navigate page=main url=elsewhere"
    And I run the harness on "qa.feature"
    Then the run exits 1
    And the run output mentions "golden trace drift"
    And the run output mentions "navigate page=main url=elsewhere"

  @HAR-6
  Scenario: A malformed feature file is refused as bad input
    Given a feature file "broken.feature" with:
      """
      Feature: Broken
        Scenario: Bad examples
          Given a marker-style chat with 2 earlier turns
        Examples oops
      """
    When I run the harness on "broken.feature"
    Then the run exits 2
