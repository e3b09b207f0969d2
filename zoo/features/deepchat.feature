# Open shadow roots are tracked on both clocks (LIB-2): every scenario
# here runs live and replayed.
@LIB-2
Feature: The deep-chat web component, messages in an open shadow root
  zoo/deepchat: the deep-chat web component (its prebuilt bundle) over
  its streaming connect protocol. The whole chat (messages, the text
  input, the submit button that turns into Stop while streaming) lives in
  the element's open shadow root; the intro message is the first answer
  on the page; messages carry no ids. The profile is
  deepchat/deepchat.json (page clock), deepchat/deepchat-wall.json (wall
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
      | clock | profile                    |
      | page  | deepchat/deepchat.json      |
      | wall  | deepchat/deepchat-wall.json |

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

  # LIB-5: the Stop is the send button's element: it changes its icon in
  # place and never leaves the page. The profile's stop selector matches
  # the button only while it shows the stop icon, so the Stop is gone once
  # the button turns back into Send. The Stop is clicked once words show,
  # as a person does: deep-chat 2.4.2 shows its Stop when the response
  # opens, and a Stop clicked before the first event let the whole answer
  # stream in (seen on both clocks).
  @LIB-5
  Scenario: A long answer stopped with Stop is ANSWER_STOPPED
    Given the site "deepchat/deepchat.json"
    When I open the chat
    And I send "Tell me something long"
    And I wait up to 5000 ms for the text "Here is a long story."
    And I stop the answer
    And I wait for the answer
    Then the answer status is "ANSWER_STOPPED"

  Scenario: An error from the stream is ANSWER_FAILED
    Given the site "deepchat/deepchat.json"
    When I open the chat
    And I send "Answer with an error"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"
