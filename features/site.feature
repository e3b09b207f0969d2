@SITE-2
Feature: Scenarios on a site that is not the sim
  The repo's test site (testsite/) has its own markup and streaming: the
  speaker is an avatar's alt text, ids live in data-mid, an answer streams
  with a blinking cursor and aria-busy on the log, and Stop replaces Send
  while it streams. Its profile (testsite/testsite.json) tells the engine
  where the composer and the controls are, and says "clock": "page": the
  site's own JavaScript timers (its stream, its late picture) run on the
  lab clock, so every state it streams through is seen under any load.
  testsite/testsite-wall.json is the same site on wall time.

  @SITE-1 @CLK-1
  Scenario: A send on the test site is followed to its answer
    Given the site "testsite/testsite.json"
    When I open "/?history=4"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the answer group is not one of the earlier groups

  @CLK-1
  Scenario: An answer whose picture loads late is waited for with its picture
    Given the site "testsite/testsite.json"
    When I open "/"
    And I send "Draw me a chart picture"
    And I wait up to 6000 ms for the answer with a image
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Here is the chart you asked for, drawn from the figures above."

  @CLK-1
  Scenario: A site's own timers run on the lab clock: a 20 s stream costs no wall time and is seen to its end
    Given the site "testsite/testsite.json"
    When I open "/?stream=20000"
    And I send "What is the capital of France?"
    And I wait up to 30000 ms for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    # the page is ready once quiet for 300 ms (the default readiness, on
    # lab time), the reply's response takes 20 ms, the page waits 150 ms,
    # then streams 9 words at 2222 ms each; the answer is complete once
    # it has been still for the 300 ms settle window (LIB-3)
    And the clock reads 20768 ms since the start

  Scenario: A site on wall time still works (only timing-independent facts)
    Given the site "testsite/testsite-wall.json"
    When I open "/?history=2&stream=0"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the answer group is not one of the earlier groups

  Scenario: A sim-only step refuses on another site, naming the step and the site
    Given the site "testsite/testsite.json"
    Then the step "the next answer never comes" is refused naming the site "testsite"

  @GATE-4
  Scenario: A page that answers 404 is an error page the scenario expects
    Given the site "testsite/testsite.json"
    When I open "/missing" expecting an error page
    Then the page answered 404

  @GATE-4
  Scenario: Opening an error page without expecting it fails the step with the status
    Given the site "testsite/testsite.json"
    Then opening "/broken" fails with "answered 500"

  @GATE-4
  Scenario: A sim page that does not exist is an error page
    When I open "/nope" expecting an error page
    Then the page answered 404
