@LIB-4 @replay-only
Feature: Replay is the live run, on chat UI libraries
  A session recorded live holds the live run's timeline: every read the
  engine made and when each action returned. Its replay answers each read
  with the live run's read at that offset, so the answer states, the text
  waits and the ready waits are judged on the recorded timeline, and the
  golden trace the live run wrote is met by its replay, state for state.
  The sessions and goldens here were recorded live from the zoo's sites
  (zoo/nlux on the wall clock, zoo/aisdk on both clocks); the profiles are
  copies of the zoo's, in recordings/library-replay/. A live run skips
  them (@replay-only): the zoo's sites are served by its own project
  (go test ./zoo runs them live).

  # NLUX animates its text after each chunk arrives: on the wall clock the
  # live waits read it at uneven times; the replay reads the same captures.
  Scenario: A second send on NLUX, recorded live on the wall clock, replays the states the live run read
    Given the site "recordings/library-replay/nlux/nlux-wall.json"
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    And I send "What is 2 + 2?"
    And I wait for the answer
    Then the baseline holds 1 group
    And the answer status is "complete"
    And the answer text is "2 + 2 equals 4."
    And the answer group is the last group on the page

  # On the page clock a wait sleeps to the page's next transition: the
  # replay's sleeps wake at the recorded reads, never past one.
  Scenario Outline: An AI SDK answer recorded live on the <clock> clock replays the states the live run read
    Given the site "<profile>"
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the answer group is not one of the earlier groups

    Examples:
      | clock | profile                                         |
      | page  | recordings/library-replay/aisdk/aisdk.json      |
      | wall  | recordings/library-replay/aisdk/aisdk-wall.json |
