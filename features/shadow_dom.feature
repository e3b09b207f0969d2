@LIB-2
Feature: Chat widgets in shadow DOM, and answer text as a person reads it
  The test site's widget (/shadow/, testsite/shadow.go) is built the way
  web-component chat widgets are: the whole chat lives in open shadow
  roots. The chat's own root is attached after load to an element already
  in the page, each message has a root nested in it (its text streams
  there, its picture loads late there), and the footer's badge has a
  closed root. Open roots are page: the profile's ready selector, the
  composer and Send locators and the adapter's turn selector reach into
  them, the tracker sees every change in them on the wall clock and on
  the page clock, and the capture records them as the composed tree. A
  closed root is named, never read as empty. testsite/shadow.json runs the
  widget's timers on the page clock, testsite/shadow-wall.json on wall time
  (there the answer comes whole: only timing-independent facts).

  @CLK-1
  Scenario Outline: An answer inside nested open shadow roots is followed to completion (<clock> clock)
    Given the site "<profile>"
    When I open "/shadow/?history=2&stream=<stream>"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the answer group is not one of the earlier groups

    Examples:
      | clock | profile                   | stream |
      | page  | testsite/shadow.json      | 1200   |
      | wall  | testsite/shadow-wall.json | 0      |

  @CLK-1
  Scenario: Every state an answer streams through inside a shadow root is seen on the page clock
    Given the site "testsite/shadow.json"
    When I open "/shadow/?history=2"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"

  @CLK-1
  Scenario: A picture that loads late inside a shadow root is waited for with the answer
    Given the site "testsite/shadow.json"
    When I open "/shadow/"
    And I send "Draw me a chart picture"
    And I wait up to 6000 ms for the answer with a image
    Then the answer status is "complete"
    And the answer text is "Here is the chart you asked for, drawn from the figures above."

  Scenario: A closed shadow root is named, its content not read; open roots are page text
    Given the site "testsite/shadow.json"
    When I open "/shadow/?history=2"
    Then the page names a closed shadow root on <nova-badge>
    And the page text does not contain "private build"
    And the page text contains "Earlier answer 1, complete."

  @LIB-7
  Scenario Outline: Highlighted code reads as written, its lines kept, its label and Copy button left out (<clock> clock)
    Given the site "<profile>"
    When I open "/shadow/?stream=<stream>"
    And I send "Show me a greeting function in Python"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is exactly 'Here is a greeting function in Python: def greet(name):\n    return f"Hello, {name}!"'

    Examples:
      | clock | profile                   | stream |
      | page  | testsite/shadow.json      | 1200   |
      | wall  | testsite/shadow-wall.json | 0      |
