Feature: Answer groups
  The engine reads a chat answer from the group that appeared after sending,
  follows it through generating to a final state, and never takes an answer
  that was already on the page as the new one. Every scenario runs in both
  markup styles the built-in adapters know: marker (data attributes) and
  heading (speaker headings, no markers).

  @ANS-3 @ANS-5
  Scenario Outline: A partial answer is followed to completion in the new group (<style>)
    Given a <style>-style chat with 4 earlier turns
    And the next answer streams "Paris is" for 800 ms and completes as "Paris is the capital of France."
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Paris is the capital of France."
    And the answer group is not one of the earlier groups

    Examples:
      | style   |
      | marker  |
      | heading |

  @ANS-3
  Scenario Outline: A long complete answer already on the page is not the new answer (<style>)
    Given a <style>-style chat with 6 earlier turns
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

    Examples:
      | style   |
      | marker  |
      | heading |

  @ANS-1 @ID-3
  Scenario: Marker-style turns are groups named by their message ids
    Given a marker-style chat with 8 earlier turns
    When I open the chat
    And I take a page snapshot
    Then the snapshot shows 4 answer groups
    And every answer group names the adapter rule that found it

  @ANS-2 @ID-3
  Scenario: Heading-style turns are found from recurring speaker labels, without the label in the text
    Given a heading-style chat with 8 earlier turns
    And the next answer completes as "Plain answer text." after 300 ms
    When I open the chat
    And I take a page snapshot
    Then the snapshot shows 4 answer groups
    And every answer group names the adapter rule that found it
    When I send "Say something plain"
    And I wait for the answer
    Then the answer text is "Plain answer text."

  @ANS-4
  Scenario Outline: The same text under a new id is the new answer (<style>)
    Given a <style>-style chat with 4 earlier turns
    And the next answer repeats the last earlier answer after 300 ms
    When I open the chat
    And I send "Say that again"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer group is not one of the earlier groups

    Examples:
      | style   |
      | marker  |
      | heading |

  @ANS-5
  Scenario Outline: A confirmation request ends the wait, and is not completion (<style>)
    Given a <style>-style chat with 2 earlier turns
    And the next answer asks for confirmation after 300 ms
    When I open the chat
    And I send "Delete the temp files"
    And I wait for the answer
    Then the answer status is "NEEDS_CONFIRMATION"
    And the states seen are "generating, needs_confirmation"

    Examples:
      | style   |
      | marker  |
      | heading |

  @ANS-5
  Scenario Outline: An error inside the new group is a failure, not an answer (<style>)
    Given a <style>-style chat with 2 earlier turns
    And the next answer fails after 300 ms
    When I open the chat
    And I send "Do the impossible"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"
    And the states seen are "generating, failed"

    Examples:
      | style   |
      | marker  |
      | heading |

  @ANS-7
  Scenario: Detection is a first check; content is checked separately
    Given a marker-style chat with 2 earlier turns
    And the next answer completes as "The total is 42 apples." after 300 ms
    When I open the chat
    And I send "How many apples?"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer contains "42 apples"

  @ANS-8
  Scenario Outline: The answer result says what was read (<style>)
    Given a <style>-style chat with 200 earlier turns
    And the earlier answers include images
    And the next answer completes as "Read from a long history." after 300 ms
    When I open the chat
    And I send "Still there?"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Read from a long history."
    And the answer result names its group, rule, baseline, states and evidence

    Examples:
      | style   |
      | marker  |
      | heading |

  @ANS-9
  Scenario: A chat whose structure the adapter cannot find is STRUCTURE_UNKNOWN, not an answer
    Given a heading-style chat with 4 earlier turns
    And the engine reads the chat with the marker adapter
    And the next answer completes as "Unseen." after 300 ms
    When I open the chat
    And I try to send "Hello?"
    Then the send ends with "OUTCOME_UNKNOWN"
    When I wait up to 1000 ms for the answer
    Then the answer status is "STRUCTURE_UNKNOWN"

  @ID-2
  Scenario Outline: Seeing the same groups again, with fresh refs, is not a new answer (<style>)
    Given a <style>-style chat with 4 earlier turns
    And the next answer never comes
    When I open the chat
    And I take a page snapshot
    And I take a page snapshot
    Then the last two snapshots show the same answer groups with new refs
    When I try to send "Is anyone there?"
    Then the send ends with "OUTCOME_UNKNOWN"
    When I wait up to 1000 ms for the answer
    Then the answer status is "NO_NEW_ANSWER"

    Examples:
      | style   |
      | marker  |
      | heading |
