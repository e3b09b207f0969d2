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

  @HAR-6 @GATE-3
  Scenario: An undefined step fails the gate and names the closest catalogue steps
    Given a feature file "typo.feature" with:
      """
      Feature: Typo
        Scenario: Steps nobody defined
          Given a marker style chat
          When I sent "Hello"
      """
    When I run the harness on "typo.feature"
    Then the run exits 1
    And the first suggestion for line 3 of "typo.feature" is "Given a marker-style chat with 4 earlier turns"
    And the first suggestion for line 4 of "typo.feature" is "And I send "What is the capital of France?""
    And the run output does not mention "func InitializeScenario"
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
    And the run output mentions "features/qa.feature:2: Only scripting: failed after its last step: golden trace"
    When I run the harness on "qa.feature" with --update
    Then the run exits 0
    When the golden trace of "qa/only-scripting" gains the line "navigate page=main url=elsewhere"
    And I run the harness on "qa.feature"
    Then the run exits 1
    And the run output mentions "golden trace drift"
    And the run output mentions "navigate page=main url=elsewhere"
    And the run output mentions "features/qa.feature:2: Only scripting: failed after its last step: golden trace drift for qa/only-scripting"
    And the run output mentions "after scenario hook failed: features/qa.feature:2: golden trace drift"

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

  @GATE-1
  Scenario: Standard tag expressions select; an invalid one is bad input; a selection of nothing fails
    Given a feature file "tags.feature" with:
      """
      Feature: Tags
        @fast
        Scenario: Fast
          Given a marker-style chat with 1 earlier turns

        @slow @wip
        Scenario: Slow
          Given a marker-style chat with 2 earlier turns

        @slow
        Scenario: Slow but ready
          Given a marker-style chat with 3 earlier turns
      """
    And a feature file "empty.feature" with:
      """
      """
    When I run the harness on "tags.feature" with --update
    Then the run exits 0
    When I run the harness on "tags.feature" with the tags "@fast or (@slow and not @wip)"
    Then the run exits 0
    And the JUnit report counts 2 tests and 0 failures
    When I run the harness on "tags.feature" with the tags "not @slow"
    Then the run exits 0
    And the JUnit report counts 1 test and 0 failures
    When I run the harness on "tags.feature" with the tags "@slow && ~@wip"
    Then the run exits 0
    And the JUnit report counts 1 test and 0 failures
    When I run the harness on "tags.feature" with the tags "(@fast"
    Then the run exits 2
    And the run output mentions "Tag expression "
    And the run output mentions "could not be parsed because of syntax error: Unmatched (."
    When I run the harness on "tags.feature" with the tags "@fast &&"
    Then the run exits 2
    And the run output mentions "could not be parsed because of syntax error: Expected operand."
    When I run the harness on "tags.feature" with the tags "@nonexistent"
    Then the run exits 1
    And the run output mentions "matches no scenario"
    When I run the harness on "empty.feature"
    Then the run exits 1
    And the run output mentions "features/empty.feature has no scenarios"

  @GATE-2
  Scenario: A file:LINE selects the scenario or the example row at that line
    Given a feature file "rows.feature" with:
      """
      Feature: Rows
        Scenario: Plain
          Given a marker-style chat with 1 earlier turns

        Scenario Outline: Styled <style>
          Given a <style>-style chat with 2 earlier turns

          Examples:
            | style   |
            | marker  |
            | heading |
      """
    And a feature file "outline.feature" with:
      """
      Feature: Outline
        Scenario Outline: No examples <style>
          Given a <style>-style chat with 2 earlier turns
      """
    When I run the harness on "rows.feature" with --update
    Then the run exits 0
    When I run the harness on "rows.feature:11"
    Then the run exits 0
    And the JUnit report counts 1 test and 0 failures
    When I run the harness on "rows.feature:3:10"
    Then the run exits 0
    And the JUnit report counts 2 tests and 0 failures
    When I run the harness on "rows.feature:5"
    Then the run exits 0
    And the JUnit report counts 2 tests and 0 failures
    When I run the harness on "rows.feature:1"
    Then the run exits 1
    And the run output mentions "features/rows.feature:1 is not inside a scenario"
    When I run the harness on "outline.feature"
    Then the run exits 2
    And the run output mentions "features/outline.feature:2: malformed feature file: Scenario Outline"

  @GATE-3
  Scenario: The hints for goldens are commands that fix them: missing, drifted, obsolete
    Given this self-test runs with the live suite
    And a feature file "plan.feature" with:
      """
      Feature: Plan
        Scenario: Only scripting
          Given a marker-style chat with 1 earlier turns

        Scenario: Also scripting
          Given a marker-style chat with 2 earlier turns
      """
    When I run replaylab with "run --format progress"
    Then the run exits 1
    And the run output has no colour codes
    And the run output mentions "is missing; create it with: replaylab run --mode record-once features/plan.feature:2"
    When I run the command the run printed after "create it with: "
    Then the run exits 0
    When I run replaylab with "run --format progress"
    Then the run exits 1
    And the run output mentions "create it with: replaylab run --mode record-once features/plan.feature:5"
    When I run replaylab with "run --mode record-once --format progress"
    Then the run exits 0
    When the golden trace of "plan/only-scripting" gains the line "navigate page=main url=elsewhere"
    And I run replaylab with "run --format progress"
    Then the run exits 1
    And the run output mentions "rewrite the golden with: replaylab run --update features/plan.feature:2"
    When I run the command the run printed after "rewrite the golden with: "
    Then the run exits 0
    When I run replaylab with "run --format progress"
    Then the run exits 0
    When in the feature file "plan.feature" "Also scripting" becomes "Renamed"
    And I run replaylab with "run --mode record-once --format progress"
    Then the run exits 1
    And the run output mentions "obsolete golden traces (no scenario names them): plan/also-scripting"
    And the run output mentions "remove them with: replaylab run --prune"
    When I run the command the run printed after "remove them with: "
    Then the run exits 0
    And the run output mentions "removed obsolete recordings/golden/plan/also-scripting.golden"
    When I run replaylab with "run --format progress"
    Then the run exits 0

  @GATE-3
  Scenario: The hints for recordings are commands that fix them: missing, made from other steps
    Given the run drives Chromium
    And a feature file "chat.feature" with:
      """
      Feature: Chat
        Scenario: Hello
          Given a marker-style chat with 2 earlier turns
          And the next answer completes as "Fine." after 300 ms
          When I open the chat
          And I send "Hi"
          And I wait for the answer
          Then the answer status is "complete"
      """
    When I run replaylab with "run --format progress"
    Then the run exits 1
    And the run output mentions "record it with: replaylab run --mode record-once features/chat.feature:2"
    When I run the command the run printed after "record it with: "
    Then the run exits 0
    When I run replaylab with "run --format progress"
    Then the run exits 0
    When in the feature file "chat.feature" "Fine." becomes "Great."
    And I run replaylab with "run --format progress"
    Then the run exits 1
    And the run output mentions "re-record it with: replaylab run --driver browser --update features/chat.feature:2"
    When I run the command the run printed after "re-record it with: "
    Then the run exits 0
    When I run replaylab with "run --format progress"
    Then the run exits 0

  @GATE-5
  Scenario: The printed recording commands work as printed: record-once opens sim pages live, --record makes goldens
    Given the run drives Chromium
    And a feature file "pages.feature" with:
      """
      Feature: Pages
        Scenario: Hidden decoys
          When I open the sim page "/hidden"
          And I click the button "Send" expecting the status "Sent"
          Then the page text contains "Sent"
      """
    When I run replaylab with "run --format progress"
    Then the run exits 1
    And the run output mentions "record it with: replaylab run --mode record-once features/pages.feature:2"
    When I run the command the run printed after "record it with: "
    Then the run exits 0
    When I run replaylab with "run --format progress"
    Then the run exits 0
    Given a feature file "fresh.feature" with:
      """
      Feature: Fresh
        Scenario: Hidden decoys again
          When I open the sim page "/hidden"
          Then the page text does not contain "decoy"
      """
    When I run replaylab with "run --record --format progress features/fresh.feature"
    Then the run exits 0
    And the scratch project has the golden trace "fresh/hidden-decoys-again"
    When I run replaylab with "run --format progress"
    Then the run exits 0

  @GATE-5
  Scenario: merge-reports refuses an incomplete shard set and names the missing shard
    Given this self-test runs with the live suite
    And a feature file "plan.feature" with:
      """
      Feature: Plan
        Scenario: One
          Given a marker-style chat with 1 earlier turns

        Scenario: Two
          Given a marker-style chat with 2 earlier turns

        Scenario: Three
          Given a marker-style chat with 3 earlier turns
      """
    When I run replaylab with "run --mode record-once --format progress"
    Then the run exits 0
    When I run replaylab with "run --shard 1/3 --format html:shard-1"
    Then the run exits 0
    When I run replaylab with "run --shard 3/3 --format html:shard-3"
    Then the run exits 0
    When I run replaylab with "merge-reports --out merged shard-1 shard-3"
    Then the run exits 2
    And the run output mentions "shard 2/3 is missing"
    And the run output mentions "--allow-partial"
    When I run replaylab with "merge-reports --allow-partial --out merged shard-1 shard-3"
    Then the run exits 0
    When I run replaylab with "run --shard 2/3 --format html:shard-2"
    Then the run exits 0
    When I run replaylab with "merge-reports --out merged shard-1 shard-2 shard-3"
    Then the run exits 0
    And the run output mentions "merged 3 reports"

  @GATE-8
  Scenario: A fast gate: parallel by default, --last-failed, did-you-mean, skipped counted, unwritable reports refused
    Given this self-test runs with the live suite
    And a feature file "plan.feature" with:
      """
      @case-1
      Feature: Plan
        Scenario: One
          Given a marker-style chat with 1 earlier turns

        Scenario: Two
          Given a marker-style chat with 2 earlier turns

        Scenario: Three
          Given the run drives Chromium
      """
    When I run replaylab with "run --mode record-once --format progress"
    Then the run exits 0
    And the run output mentions "3 scenarios: 2 passed, 0 failed, 0 flaky, 1 skipped"
    When the golden trace of "plan/two" gains the line "navigate page=main url=elsewhere"
    And I run replaylab with "run --format progress"
    Then the run exits 1
    When I run replaylab with "run --last-failed --format progress"
    Then the run exits 1
    And the run output mentions "1 scenarios: 0 passed, 1 failed"
    When I run the command the run printed after "rewrite the golden with: "
    Then the run exits 0
    When I run replaylab with "run --last-failed --format progress"
    Then the run exits 0
    And the run output mentions "the last run failed no scenario"
    When I run replaylab with "run --tags @Case-1 --format progress"
    Then the run exits 1
    And the run output mentions "the tag @Case-1 matches no scenario (did you mean @case-1?)"
    When I run replaylab with "run --tags '@case-1 or @cse-1' --format progress"
    Then the run exits 0
    And the run output mentions "the tag @cse-1 matches no scenario (did you mean @case-1?)"
    When I run replaylab with "run --format progress features/plan.feature:abc"
    Then the run exits 2
    And the run output mentions "is not a line number"
    When I run replaylab with "run --format progress features/plna.feature"
    Then the run exits 2
    And the run output mentions "did you mean features/plan.feature?"
    When I run replaylab with "run --format progress features/plan.feature:1"
    Then the run exits 1
    And the run output mentions "did you mean features/plan.feature:3?"
    When I run replaylab with "run --format html:features/plan.feature/report"
    Then the run exits 2
    And the run output mentions "cannot write the html report"

  @GATE-8
  Scenario: The run header names what runs: replayed, live, or both
    Given the scratch project holds the repository's "answer_groups.feature" with its recordings
    And a feature file "plan.feature" with:
      """
      Feature: Plan
        Scenario: Only scripting
          Given a marker-style chat with 1 earlier turns
      """
    When I run replaylab with "run --format progress features/answer_groups.feature:22"
    Then the run exits 0
    And the run output mentions "driver=replay mode=replay"
    When I run replaylab with "run --mode record-once --format progress features/answer_groups.feature:22 features/plan.feature"
    Then the run exits 0
    And the run output mentions "driver=replay+browser (1 of 2 scenarios have no recording and run live) mode=record-once"
    When I run replaylab with "run --mode record-once --format progress features/plan.feature"
    Then the run exits 0
    And the run output mentions "driver=browser mode=record-once"

  @GATE-6
  Scenario: The QA catalogue holds no self-test step, and shows the loop monitor's thresholds
    Given a feature file "qa.feature" with:
      """
      Feature: QA
        Scenario: Only scripting
          Given a marker-style chat with 2 earlier turns
      """
    When I run replaylab with "steps"
    Then the run exits 0
    And the run output does not mention "I run the harness on"
    And the run output does not mention "the explorer runs seed"
    And the run output mentions "same_action_revisit needs the same action 5 times and 3 revisits"
    When I run replaylab with "steps --all"
    Then the run exits 0
    And the run output mentions "I run the harness on"
    When I run replaylab with "steps --format json"
    Then the run exits 0
    And the run output mentions "steps/act_steps.go:"
    And the run output does not mention "selfTest"
