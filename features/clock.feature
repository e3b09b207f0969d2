Feature: The lab's clock and stable names
  A regression gate gives the same answer on a quiet laptop and on a loaded
  CI runner. In the lab the sim's scripted transitions and the engine's
  waits run on a clock the harness owns (CLK-1), and a scenario's golden
  and session are named by its place in its file, never by the order in
  which scenarios happened to start (CLK-2).

  @CLK-2
  Scenario: Scenarios with the same name are numbered by their place in the file, whatever runs first
    Given a feature file "twins.feature" with:
      """
      Feature: Twins
        Scenario: Same name
          Given a marker-style chat with 1 earlier turns
        @second
        Scenario: Same name
          Given a marker-style chat with 2 earlier turns
        @third
        Scenario: Same name
          Given a marker-style chat with 3 earlier turns
      """
    When I run the harness on "twins.feature" tagged "@third" with --update
    Then the run exits 0
    And the scratch project has exactly the golden traces "twins/same-name-3"
    When I run the harness on "twins.feature" with --update at concurrency 3
    Then the run exits 0
    And the scratch project has exactly the golden traces "twins/same-name, twins/same-name-2, twins/same-name-3"

  @CLK-2
  Scenario: Two scenarios with the same name and the same steps are refused, whatever the concurrency
    Given a feature file "copies.feature" with:
      """
      Feature: Copies
        Scenario: Twice the same
          Given a marker-style chat with 1 earlier turns
        Scenario: Twice the same
          Given a marker-style chat with 1 earlier turns
      """
    When I run the harness on "copies.feature" with --update at concurrency 3
    Then the run exits 1
    And the run output mentions "have the same name and the same steps"
    And the scratch project has exactly the golden traces ""

  @CLK-1
  Scenario: A stream of 1 ms is seen generating, whatever the load
    Given a marker-style chat with 2 earlier turns
    And the next answer streams "Fa" for 1 ms and completes as "Fast."
    When I open the chat
    And I send "Quick?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Fast."
    # complete at 1 ms, then still for the 300 ms settle window (LIB-3)
    And the clock reads 301 ms since the start

  @CLK-1
  Scenario: The page shows a transition only when the clock reaches it, and waiting for it costs no wall time
    Given a heading-style chat with 2 earlier turns
    And the next answer streams "Still thinking" for 20000 ms and completes as "Done at last."
    When I open the chat
    And I send "Slow?"
    And I wait up to 19999 ms for the answer
    Then the answer status is "ANSWER_INCOMPLETE"
    And the clock reads 19999 ms since the start
    When I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    # complete at 20000 ms, then still for the 300 ms settle window (LIB-3)
    And the clock reads 20300 ms since the start

  @CLK-1
  Scenario: Media is read ready exactly when the script makes it ready, once the page has loaded it
    Given a marker-style chat with 2 earlier turns
    And the next answer completes as "Here it is." after 5 ms with a video that is ready 5 ms later
    When I open the chat
    And I send "Show me"
    And I wait up to 3000 ms for the answer with a video
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    # ready at 10 ms, then still for the 300 ms settle window (LIB-3)
    And the clock reads 310 ms since the start

  @CLK-1
  Scenario: A send that gets no answer waits out its 10 s on the clock, not on the wall
    Given a marker-style chat with 2 earlier turns
    And the next answer never comes
    When I open the chat
    And I try to send "Anyone there?"
    Then the send ends with "OUTCOME_UNKNOWN"
    And the clock reads 10000 ms since the start
