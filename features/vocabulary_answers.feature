Feature: The answer cases a QA engineer writes from the catalogue
  Streams that end in a failure or in a confirmation the user answers,
  older groups stuck generating or with media that is not ready, the
  baseline and the partial text, and a chat page whose Send is ambiguous.

  @ANS-3 @ANS-5 @ANS-8
  Scenario: The baseline holds the earlier groups, and the partial text is seen before completion
    Given a marker-style chat with 2 earlier answers
    And the next answer streams "Paris is" for 1500 ms and completes as "Paris is the capital of France."
    When I open the chat
    And I send "What is the capital of France?"
    Then the baseline holds 2 groups
    And the baseline holds the groups "msg-0002, msg-0004"
    When I wait for the answer
    Then the answer status is "complete"
    And the partial text seen was "Paris is"
    And the answer text is "Paris is the capital of France."
    And the answer group is the last group on the page

  @ANS-5
  Scenario Outline: A stream that ends in a failure is a failure (<style>)
    Given a <style>-style chat with 2 earlier turns
    And the next answer streams "Let me check" for 1200 ms and fails
    When I open the chat
    And I send "Do the impossible"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"
    And the states seen are "generating, failed"
    And the partial text seen was "Let me check"

    Examples:
      | style   |
      | marker  |
      | heading |

  @ANS-5 @ACT-2
  Scenario Outline: A stream that ends in a confirmation request completes once the user confirms (<style>)
    Given a <style>-style chat with 2 earlier turns
    And the next answer streams "Looking" for 1200 ms and asks for confirmation with "Delete 3 files?"
    And confirming it completes the answer as "Deleted 3 files."
    When I open the chat
    And I send "Clean up the temp folder"
    And I wait for the answer
    Then the answer status is "NEEDS_CONFIRMATION"
    And the states seen are "generating, needs_confirmation"
    And the partial text seen was "Looking"
    When I click the button "Confirm" expecting the status "Deleted 3 files."
    Then the action ends with "ok"
    When I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Deleted 3 files."

    Examples:
      | style   |
      | marker  |
      | heading |

  @ANS-5 @ACT-2
  Scenario: Cancelling a confirmation request ends the answer without the action
    Given a marker-style chat with 2 earlier turns
    And the next answer asks for confirmation after 1000 ms
    And cancelling it ends the answer as "Kept every file."
    When I open the chat
    And I send "Delete the temp files"
    And I wait for the answer
    Then the answer status is "NEEDS_CONFIRMATION"
    When I click the button "Cancel" expecting the text "Kept every file."
    Then the action ends with "ok"
    When I wait for the answer
    Then the answer text is "Kept every file."
    And the page text does not contain "Deleted"

  @ANS-3 @ANS-5
  Scenario Outline: An older group stuck generating neither holds up nor becomes the new answer (<style>)
    Given a <style>-style chat with 4 earlier turns
    And the last earlier answer is still generating
    And the next answer completes as "Fresh answer." after 1000 ms
    When I open the chat
    And I send "Hello again"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Fresh answer."
    And the answer group is not one of the earlier groups
    And the answer group is the last group on the page

    Examples:
      | style   |
      | marker  |
      | heading |

  @ANS-6
  Scenario Outline: An older <media> that is not ready does not hold up a ready one in the new group
    Given a marker-style chat with 4 earlier turns
    And the last earlier answer has a <media> that never loads
    And the next answer completes as "Here is your <media>." after 1000 ms with a <media> that is ready 600 ms later
    When I open the chat
    And I send "Make a <media>"
    And I wait up to 8000 ms for the answer with a <media>
    Then the answer status is "complete"
    And the answer group is the last group on the page

    Examples:
      | media |
      | video |
      | image |

  @ANS-6
  Scenario: A ready video at the same URL in an older group is no evidence for the new one
    Given a heading-style chat with 4 earlier turns
    And the last earlier answer has a ready video at the same URL as the next answer's
    And the next answer completes as "Here is your video." after 1000 ms with a video that never loads
    When I open the chat
    And I send "Make a video"
    And I wait up to 2000 ms for the answer with a video
    Then the answer status is "MEDIA_NOT_READY"

  @ANS-4
  Scenario Outline: The answer equals the last earlier answer and is still the new one (<style>)
    Given a <style>-style chat with 4 earlier turns
    And the next answer repeats the last earlier answer after 1000 ms
    When I open the chat
    And I send "Say that again"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer equals the last earlier answer

    Examples:
      | style   |
      | marker  |
      | heading |

  @LOC-2
  Scenario: Two Send buttons on the chat page: the send is refused and no message leaves
    Given a marker-style chat with 2 earlier turns
    And the chat page has two "Send" buttons
    When I open the chat
    And I send "Hello?"
    Then the action is refused with "TARGET_AMBIGUOUS"
    And the refusal counts 2 matches
    And the refusal describes each match by role, name, frame and ref
    And the sim received 0 messages
