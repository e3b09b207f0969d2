Feature: The cases QA found missing from the catalogue
  Each scenario is a case a QA engineer wrote from the step catalogue
  alone: look-alike controls of any role told apart by one target grammar
  (in the row, near a text, the nth), and the chat cases of real sites.

  @AGT-3 @LOC-2 @LOC-4 @HAR-1
  Scenario: Look-alike controls of any role are told apart by row, nearby text and order
    When I open the sim page "/vocab/files"
    And I fill the textbox "New name" with "minutes.txt"
    Then the action is refused with "TARGET_AMBIGUOUS"
    And the refusal tells the matches apart by "report.pdf, notes.txt, todo.md"
    When I fill the textbox "New name" in the row "notes.txt" with "minutes.txt"
    And I press "Enter" in the textbox "New name" in the row "notes.txt" expecting the text "Renamed notes.txt to minutes.txt."
    And I fill the textbox "New name" near "todo.md" with "tasks.md"
    And I click the button "Rename" in the row "todo.md" expecting the text "Renamed todo.md to tasks.md."
    And I click the button "Delete" near "minutes.txt" expecting the text "Deleted minutes.txt."
    And I click the 1st button "Delete" expecting the text "Deleted report.pdf."
    And I click the 2nd link "Open" expecting the text "Opened draft B."
    And I click the link "Open" in the item "Draft A" expecting the text "Opened draft A."
    And I click the 2nd button "Delete" expecting the text "Deleted tasks.md."
    Then the action is refused with "TARGET_NOT_FOUND"
    When I click the button "Delete" in the row "notes.txt" expecting the text "Deleted notes.txt."
    Then the action is refused with "TARGET_NOT_FOUND"
    And the page text contains "tasks.md"

  @APP-3 @ANS-3 @ANS-5
  Scenario: A regenerated answer replaces the old one in place and is the new answer, and Regenerate is no send
    Given a marker-style chat with 2 earlier answers
    And the newest answer offers Regenerate
    And the next answer completes as "Paris." after 500 ms
    And the next answer streams "Paris is" for 1000 ms and completes as "Paris is the capital of France."
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer text is "Paris."
    When I regenerate the answer
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the partial text seen was "Paris is"
    And the answer text is "Paris is the capital of France."
    And the baseline holds the groups "msg-0002, msg-0004, msg-0006"
    And the answer group is not one of the earlier groups
    And the answer group is the last group on the page
    And the sim received 1 message

  @ANS-5 @ACT-2
  Scenario: A confirmation in other words than Confirm and Cancel is still a confirmation
    Given a marker-style chat with 2 earlier turns
    And the next answer asks for confirmation with "Approve and run" and "Reject" after 800 ms
    And confirming it completes the answer as "Ran the cleanup script."
    When I open the chat
    And I send "Clean up the temp folder"
    And I wait for the answer
    Then the answer status is "NEEDS_CONFIRMATION"
    And the states seen are "generating, needs_confirmation"
    When I click the button "Approve and run" expecting the text "Ran the cleanup script."
    Then the action ends with "ok"
    When I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Ran the cleanup script."

  @ANS-5 @APP-3
  Scenario: A failure in its own words with a "Try again" control is a failure, and trying again gives the new answer
    Given a marker-style chat with 2 earlier turns
    And the next answer fails with "Network error: the answer was cut off." and a "Try again" control after 800 ms
    And the next answer completes as "Here is the summary after all." after 600 ms
    When I open the chat
    And I send "Summarise the report"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"
    And the states seen are "generating, failed"
    When I retry the answer
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Here is the summary after all."
    And the answer group is the last group on the page
    And the sim received 1 message

  @ANS-3 @HAR-1
  Scenario: A real double click on Send sends one message and gets one new answer
    Given a marker-style chat with 2 earlier answers
    And the next answer completes as "Paris." after 600 ms
    When I open the chat
    And I send "What is the capital of France?" with a double click
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Paris."
    And the answer group is not one of the earlier groups
    And the sim received 1 message
    When I take a page snapshot
    Then the snapshot shows 3 answer groups

  @ANS-3 @ANS-5 @HAR-1
  Scenario: The page navigates itself mid-answer, and the answer is followed to completion on the new page
    Given a marker-style chat with 2 earlier answers
    And the next answer streams "Paris is" for 1500 ms and completes as "Paris is the capital of France."
    And the page navigates itself to "/chat?c=1" 600 ms into that answer
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Paris is the capital of France."
    And the answer group is not one of the earlier groups
    And the page is at the sim URL "/chat?c=1"

  @ANS-5 @ANS-8
  Scenario: A pause mid-stream that shows nothing but aria-busy is still generating: the paused text is not the answer
    Given a marker-style chat with 2 earlier answers
    And the next answer streams "Paris is" for 600 ms, pauses for 1500 ms with aria-busy but no visible indicator and completes as "Paris is the capital of France."
    When I open the chat
    And I send "What is the capital of France?"
    And I wait up to 1500 ms for the answer
    Then the answer status is "ANSWER_INCOMPLETE"
    And the partial text seen was "Paris is"
    When I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Paris is the capital of France."

  @ANS-5 @ANS-7
  Scenario: A pause mid-stream with no generating signal at all cannot be told from the end: the wait reads it complete, and a content check catches it
    Given a marker-style chat with 2 earlier answers
    And the next answer streams "Paris is" for 600 ms, pauses for 1500 ms with no generating signal at all and completes as "Paris is the capital of France."
    When I open the chat
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Paris is"
    When I wait up to 3000 ms for the text "Paris is the capital of France."
    Then the page text contains "Paris is the capital of France."

  @ANS-3 @HAR-1
  Scenario: Earlier turns loaded by scrolling up join the baseline, and the new answer is none of them
    Given a marker-style chat with 8 earlier turns
    And the first 4 earlier turns load only when the chat is scrolled up
    And the next answer completes as "Fresh answer." after 800 ms
    When I open the chat
    And I take a page snapshot
    Then the snapshot shows 2 answer groups
    When I scroll up to load earlier turns expecting the text "Question 1:"
    And I take a page snapshot
    Then the snapshot shows 4 answer groups
    When I send "Hello again"
    Then the baseline holds 4 groups
    When I wait for the answer
    Then the answer text is "Fresh answer."
    And the answer group is not one of the earlier groups
    And the answer group is the last group on the page

  @ANS-3 @ANS-5
  Scenario: Earlier turns loaded by scrolling up while the answer streams are not the new answer
    Given a marker-style chat with 8 earlier turns
    And the first 4 earlier turns load only when the chat is scrolled up
    And the next answer streams "Paris is" for 1500 ms and completes as "Paris is the capital of France."
    When I open the chat
    And I send "What is the capital of France?"
    Then the baseline holds the groups "msg-0006, msg-0008"
    When I scroll up to load earlier turns expecting the text "Question 1:"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Paris is the capital of France."
    And the answer group is not one of the earlier groups
    And the answer group is the last group on the page
