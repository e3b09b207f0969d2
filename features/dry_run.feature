@AUTH-3
Feature: A dry run before the run
  `replaylab run --dry-run` checks the selected scenarios without running
  them: every step against the catalogue, every argument's type, every
  site profile and adapter file a step names, and every recording's state.
  It opens no browser, writes no file, and exits 3 naming each problem by
  file and line. These scenarios plant problems in a scratch project.

  Scenario: Six planted problems are each named by file and line, and nothing is written
    Given a feature file "shop.feature" with:
      """
      Feature: Shop
        Scenario: Five planted problems
          Given the site "sites/missing.json"
          And the engine reads the chat with the adapter file "sites/bad.adapter.json"
          When I sned "hello"
          And I wait up to 99999999999999999999 ms for the answer
          And alice creates a job with key "k1" and input {"prompt": }
      """
    And a file "sites/bad.adapter.json" in the scratch project with:
      """
      {"version": 1, "turn": {"selector": "li.msg", "speakr": {"attribute": "data-role"}}}
      """
    And the scratch project holds the repository's "answer_groups.feature" with its recordings
    And in the feature file "answer_groups.feature" "with 4 earlier turns" becomes "with 5 earlier turns"
    When I run replaylab with "run --dry-run" and it writes no file
    Then the run exits 3
    And the run output mentions "features/shop.feature:3: missing-file: the site profile"
    And the run output mentions "features/shop.feature:4: bad-file: the adapter file"
    And the run output mentions "adapter: sites/bad.adapter.json: turn.speakr: unknown field"
    And the run output mentions "features/shop.feature:5: undefined-step: undefined step: When I sned"
    And the run output mentions "features/shop.feature:6: bad-argument: And I wait up to 99999999999999999999 ms for the answer: argument 1:"
    And the run output mentions "is out of range for a number of this step (int)"
    And the run output mentions "features/shop.feature:7: bad-argument: And alice creates a job with key"
    And the run output mentions "argument 3 is not JSON"
    And the run output mentions "features/answer_groups.feature:22: stale-recording: the recording of"
    And the run output mentions "was made from other steps (recordings/sessions/answer-groups/a-partial-answer-is-followed-to-completion-in-the-new-group-marker.json)"
    And the run output mentions "fix it with: replaylab run --driver browser --update features/answer_groups.feature:22"
    And the run output mentions "features/shop.feature:2: no-recording:"
    And the run output mentions "the dry run found problems: 8 in 19 scenarios"

  Scenario: The command a stale recording names records it again, and the dry run then passes
    Given this self-test runs with the live suite
    And the scratch project holds the repository's "answer_groups.feature" with its recordings
    And in the feature file "answer_groups.feature" "with 4 earlier turns" becomes "with 5 earlier turns"
    When I run replaylab with "run --dry-run features/answer_groups.feature:22"
    Then the run exits 3
    When I run the command the run printed after "fix it with: "
    Then the run exits 0
    When I run replaylab with "run --dry-run features/answer_groups.feature:22" and it writes no file
    Then the run exits 0
    And the run output mentions "1 scenarios checked, no problem"

  Scenario: A project with no problem passes the dry run
    Given a feature file "qa.feature" with:
      """
      Feature: QA
        Scenario: Only scripting
          Given a marker-style chat with 2 earlier turns
      """
    And a file "recordings/golden/qa/only-scripting.golden" in the scratch project with:
      """
      navigate page=main
      """
    When I run replaylab with "run --dry-run"
    Then the run exits 0
    And the run output mentions "1 scenarios checked, no problem"
