# The page makes its message ids up on every load; the adapter declares
# them volatile and the goldens name groups a1, a2, … (LIB-1).
@LIB-1
Feature: The AI SDK chat (@ai-sdk/react useChat), ids made in the browser
  zoo/aisdk: a React page on useChat over the AI SDK UI message stream.
  Every message id is made in the browser, fresh on every load. The
  profile is aisdk/aisdk.json (page clock), aisdk/aisdk-wall.json (wall
  clock).

  Scenario Outline: An answer is followed to its end (<clock> clock)
    Given the site "<profile>"
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the answer group is not one of the earlier groups

    Examples:
      | clock | profile              |
      | page  | aisdk/aisdk.json      |
      | wall  | aisdk/aisdk-wall.json |

  Scenario: A second send takes the first answer as its baseline
    Given the site "aisdk/aisdk.json"
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    And I send "What is 2 + 2?"
    And I wait for the answer
    Then the baseline holds 1 group
    And the answer status is "complete"
    And the answer text is "2 + 2 equals 4."
    And the answer group is the last group on the page

  # The page shows no stopped note: the engine's own Stop makes it
  # ANSWER_STOPPED (LIB-3).
  @LIB-3
  Scenario: A long answer stopped with Stop is ANSWER_STOPPED
    Given the site "aisdk/aisdk.json"
    When I open the chat
    And I send "Tell me something long"
    And I stop the answer
    And I wait for the answer
    Then the answer status is "ANSWER_STOPPED"

  Scenario: A regenerated answer replaces the old one and is the new answer
    Given the site "aisdk/aisdk.json"
    When I open the chat
    And I send "What is 2 + 2?"
    And I wait for the answer
    And I regenerate the answer
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Put another way (take 2): 2 + 2 equals 4."
    And the answer group is the last group on the page

  # LIB-5: useChat shows the error as an alert outside the turns and adds
  # no assistant turn; the profile's page-level failed signal (the alert)
  # is the send's outcome and ends the answer ANSWER_FAILED.
  @LIB-5
  Scenario: An error from the stream is ANSWER_FAILED
    Given the site "aisdk/aisdk.json"
    When I open the chat
    And I send "Answer with an error"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"

  Scenario: A ref from before the second send is stale
    Given the site "aisdk/aisdk.json"
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    And I take a full snapshot
    And I remember the ref of the button "Regenerate"
    And I send "What is 2 + 2?"
    And I wait for the answer
    And I click the remembered ref expecting the text "Put another way"
    Then the action is refused with "STALE_REF"
