Feature: The chatscope chat (@chatscope/chat-ui-kit-react), no message ids
  zoo/chatscope: chat-ui-kit-react's components over the OpenAI Chat
  Completions stream. Its messages carry no ids (the adapter reads
  position ids), its send control is an icon button with no name (given
  by selector), and every answer has its own Copy and Regenerate. The
  profile is chatscope/chatscope.json (page clock),
  chatscope/chatscope-wall.json (wall clock).

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
      | clock | profile                      |
      | page  | chatscope/chatscope.json      |
      | wall  | chatscope/chatscope-wall.json |

  Scenario: A second send takes the first answer as its baseline
    Given the site "chatscope/chatscope.json"
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    And I send "What is 2 + 2?"
    And I wait for the answer
    Then the baseline holds the groups "pos-1"
    And the answer status is "complete"
    And the answer text is "2 + 2 equals 4."
    And the answer group is the last group on the page

  Scenario: A long answer stopped with Stop is ANSWER_STOPPED
    Given the site "chatscope/chatscope.json"
    When I open the chat
    And I send "Tell me something long"
    And I stop the answer
    And I wait for the answer
    Then the answer status is "ANSWER_STOPPED"

  Scenario: A regenerated answer replaces the old one and is the new answer
    Given the site "chatscope/chatscope.json"
    When I open the chat
    And I send "What is 2 + 2?"
    And I wait for the answer
    And I regenerate the answer
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Put another way (take 2): 2 + 2 equals 4."
    And the answer group is the last group on the page

  Scenario: An error from the API is ANSWER_FAILED
    Given the site "chatscope/chatscope.json"
    When I open the chat
    And I send "Answer with an error"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"

  Scenario: A ref from before the second send is stale
    Given the site "chatscope/chatscope.json"
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    And I take a full snapshot
    And I remember the ref of the button "Copy"
    And I send "What is 2 + 2?"
    And I wait for the answer
    And I click the remembered ref expecting the text "Copied"
    Then the action is refused with "STALE_REF"

  Scenario: One Copy per answer is ambiguous; Regenerate near an answer is that answer's
    Given the site "chatscope/chatscope.json"
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    And I send "What is 2 + 2?"
    And I wait for the answer
    And I click the button "Copy" expecting the text "Copied"
    Then the action is refused with "TARGET_AMBIGUOUS"
    When I click the button "Regenerate" near "The capital of France is Paris, on the Seine." expecting the text "Put another way (take 2): The capital of France"
    Then the page text contains "2 + 2 equals 4."
