# Every scenario here waits for LIB-2 (open shadow roots tracked on both
# clocks); the error each shows today is above it. With the position ids
# declared, the page-clock run, the second send and the error pass live
# once; they stay pending until LIB-2 records them.
@lib-pending @LIB-2
Feature: The deep-chat web component, messages in an open shadow root
  zoo/deepchat: the deep-chat web component (its prebuilt bundle) over
  its streaming connect protocol. The whole chat (messages, the text
  input, the submit button that turns into Stop while streaming) lives in
  the element's open shadow root; the intro message is the first answer
  on the page; messages carry no ids. The profile is
  deepchat/deepchat.json (page clock), deepchat/deepchat-wall.json (wall
  clock).

  # LIB-2: changes inside the shadow root are not tracked; today, wall
  # clock: answer status is "ANSWER_INCOMPLETE" (evidence: still generating
  # at the deadline)
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
      | clock | profile                    |
      | page  | deepchat/deepchat.json      |
      | wall  | deepchat/deepchat-wall.json |

  # LIB-2: passes live on the page clock; not recorded until LIB-2
  Scenario: A second send takes the intro and the first answer as its baseline
    Given the site "deepchat/deepchat.json"
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    And I send "What is 2 + 2?"
    And I wait for the answer
    Then the baseline holds the groups "pos-1, pos-2"
    And the answer status is "complete"
    And the answer text is "2 + 2 equals 4."
    And the answer group is the last group on the page

  # LIB-5: the Stop is the send button's element, given by selector: it
  # changes its icon and never goes; today: engine: click: OUTCOME_UNKNOWN:
  # expected gone=selector="deep-chat #input .input-button" did not happen
  # in time
  @LIB-5
  Scenario: A long answer stopped with Stop is ANSWER_STOPPED
    Given the site "deepchat/deepchat.json"
    When I open the chat
    And I send "Tell me something long"
    And I stop the answer
    And I wait for the answer
    Then the answer status is "ANSWER_STOPPED"

  # LIB-2: passes live on the page clock; not recorded until LIB-2
  Scenario: An error from the stream is ANSWER_FAILED
    Given the site "deepchat/deepchat.json"
    When I open the chat
    And I send "Answer with an error"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"
