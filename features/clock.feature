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
