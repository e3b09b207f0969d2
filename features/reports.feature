Feature: Reports and scale
  The gate's reports show why a run failed, a suite spreads over CI
  machines in shards whose reports merge into one, a scenario that fails
  and then passes on a retry is named flaky everywhere, and live runs share
  a pool of remote browsers. Each scenario runs the harness on a scratch
  project.

  @REP-1
  Scenario: The HTML report is self-contained and travels through the captures the engine read
    Given the scratch project holds the repository's "answer_groups.feature" with its recordings
    When I run the harness on "answer_groups.feature" with ""
    Then the run exits 0
    And the HTML report is self-contained and its captures of "A partial answer is followed to completion in the new group (marker)" show "What is the capital of France?" in the element the engine typed into

  @REP-2
  Scenario: Four shards merged are the unsharded run
    Given this self-test runs with the live suite
    And a feature file "many.feature" with:
      """
      Feature: Many
        Scenario: One
          Given a marker-style chat with 2 earlier turns
        Scenario: Two
          Given a marker-style chat with 4 earlier turns
        Scenario: Three
          Given a heading-style chat with 2 earlier turns
        Scenario: Four
          Given a heading-style chat with 4 earlier turns
        Scenario: Five fails
          Given a marker-style chat with 2 earlier turns
          And this step fails the first time it runs in the project
        Scenario Outline: Rows <n>
          Given a marker-style chat with <n> earlier turns
          Examples:
            | n |
            | 1 |
            | 3 |
            | 5 |
        Scenario: Seven is undefined
          Given a step nobody wrote
      """
    And I run the harness on "many.feature" with "--update --retries 1"
    And the golden trace of "many/two" gains the line "navigate page=main url=elsewhere"
    When I run the harness on "many.feature" as 4 shards and merge their reports
    Then the merged report has the scenarios, counts and outcomes of the unsharded run
    And every scenario ran in exactly one shard and no shard was empty

  @REP-3
  Scenario: A scenario that fails once and then passes under --retries 2 is flaky in every format
    Given a feature file "flaky.feature" with:
      """
      Feature: Flaky on purpose
        Scenario: Fails once
          Given a marker-style chat with 2 earlier turns
          And this step fails the first time it runs in the project
        Scenario: Always passes
          Given a marker-style chat with 2 earlier turns
      """
    When I run the harness on "flaky.feature" with "--update --retries 2"
    Then the run exits 0
    And the run's summary counts 1 passed, 0 failed and 1 flaky scenario
    And every report shows "Fails once" as flaky with the error of its first attempt
    And the scenario "Fails once" was attempted 2 times
    When I run the harness on "flaky.feature" with "--retries 2 --fail-on-flaky --repeat-each 3"
    Then the run exits 0
    And the scenario "Fails once" was attempted 3 times

  @REP-3
  Scenario: Without retries a flaky step fails, --fail-on-flaky fails a flake, --fail-fast stops at the first failure
    Given a feature file "flaky.feature" with:
      """
      Feature: Flaky on purpose
        Scenario: Fails once
          Given a marker-style chat with 2 earlier turns
          And this step fails the first time it runs in the project
        Scenario: Fails once too
          Given a marker-style chat with 4 earlier turns
          And this step fails the first time it runs in the project
      """
    When I run the harness on "flaky.feature" with "--update --fail-fast"
    Then the run exits 1
    And the run's summary counts 0 passed, 1 failed and 0 flaky scenarios
    When I run the harness on "flaky.feature" with "--update --retries 1 --fail-on-flaky"
    Then the run exits 1
    And the run's summary counts 1 passed, 0 failed and 1 flaky scenario
    And the scenario "Fails once too" was attempted 2 times

  @ECO-1 @ECO-2
  Scenario: A retried scenario is two attempts in Cucumber Messages and a flaky warning on GitHub
    Given a feature file "flaky.feature" with:
      """
      Feature: Flaky on purpose
        Scenario: Fails once
          Given a marker-style chat with 2 earlier turns
          And this step fails the first time it runs in the project
        Scenario: Never written
          Given a marker-style chat with 2 earlier turns
          And a step nobody wrote
      """
    When I run the harness on "flaky.feature" with "--update --retries 2"
    Then the run exits 1
    And the message stream has "Fails once" as attempts 0 and 1, the first failed and retried
    And the GitHub annotations are a warning for "Fails once" and an error on the undefined step of "Never written"

  @REP-4
  Scenario: Live scenarios share a pool of two remote browsers; one killed mid-run is reported once and skipped
    Given the run drives Chromium
    And two remote Chromium browsers run on the loopback
    And a feature file "pool.feature" with:
      """
      Feature: Pool
        Scenario: First
          Given a marker-style chat with 4 earlier turns
          When I open the chat
          And I take a full snapshot
          Then the snapshot shows 2 answer groups
        Scenario: Second
          Given a marker-style chat with 6 earlier turns
          When I open the chat
          And I take a full snapshot
          Then the snapshot shows 3 answer groups
        Scenario: Third
          Given a heading-style chat with 4 earlier turns
          When I open the chat
          And I take a full snapshot
          Then the snapshot shows 2 answer groups
      """
    When I run the harness on "pool.feature" live on both browsers, killing the first when the second scenario starts
    Then the run exits 0
    And the pool reported the killed browser once and no other
    When I run the harness on "pool.feature" live on browsers that are not running
    Then the run exits 1
    And the run output mentions "no CDP endpoint is reachable"
