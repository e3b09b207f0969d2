Feature: Answer groups
  The engine reads a chat answer from the group that appeared after sending,
  follows it through generating to complete, and never takes an answer that
  was already on the page as the new one.

  @ANS-3 @ANS-5
  Scenario: A partial answer is followed to completion in the new group
    Given a marker-style chat with 4 earlier turns
    And the next answer streams "Paris is" for 800 ms and completes as "Paris is the capital of France."
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Paris is the capital of France."
    And the answer group is not one of the earlier groups

  @ANS-3
  Scenario: A long complete answer already on the page is not the new answer
    Given a marker-style chat with 6 earlier turns
    And the last earlier answer is a long answer of 3000 characters
    And the next answer completes as "Short and new." after 400 ms
    When I open the chat
    And I take a page snapshot
    Then the snapshot shows 3 answer groups
    When I send "Summarise in three words"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Short and new."
    And the answer group is not one of the earlier groups

  @ANS-7
  Scenario: Detection is a first check; content is checked separately
    Given a marker-style chat with 2 earlier turns
    And the next answer completes as "The total is 42 apples." after 300 ms
    When I open the chat
    And I send "How many apples?"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer contains "42 apples"
