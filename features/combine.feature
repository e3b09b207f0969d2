Feature: Steps that combine
  Steps written one after another mean what they say together: after a tab
  switch every page step acts in that tab; a remembered ref is as strict as
  a click by role and name; a recording stays valid when only its checks
  change.

  @GATE-6
  Scenario: After a tab switch every page step acts in that tab
    Given a marker-style chat with 4 earlier turns
    And the next answer completes as "Answered in the second tab." after 300 ms
    When I open the sim page "/hidden"
    And I switch to the second tab
    And I open the chat
    And I take a page snapshot
    Then the snapshot shows 2 answer groups
    When I send "Which tab is this?"
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Answered in the second tab."
    And the page text contains "Which tab is this?"
    When I switch to the main tab
    Then the page text does not contain "Which tab is this?"
    And the page text contains "Compose"

  @GATE-6 @LOC-2 @AGT-3
  Scenario: A remembered ref refuses two matches; a row narrows it to one
    When I open the sim page "/act/files"
    And I take a full snapshot
    And I remember the ref of the button "Delete"
    Then the action is refused with "TARGET_AMBIGUOUS"
    And the refusal counts 3 matches
    And the refusal tells the matches apart by "report.pdf, notes.txt, todo.md"
    And the page text contains "Deleted: none"
    When I remember the ref of the button "Delete" in the row "notes.txt"
    And I click the remembered ref expecting the text "Deleted: notes.txt"
    Then the action ends with "ok"
    And the page text contains "report.pdf"

  @GATE-6 @HAR-3
  Scenario: Only an edit of what must replay makes the recording stale
    Given a marker-style chat with 2 earlier turns
    And the next answer completes as "Fine." after 300 ms
    When I open the chat
    And I send "Hi"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the recording stays valid when the check 'the answer text is "Fine."' is added
    And the recording stays valid when "generating, complete" becomes "complete"
    And the recording goes stale when "Hi" becomes "Hello"
    And the recording goes stale when "2 earlier turns" becomes "4 earlier turns"
    And the recording goes stale when "I wait for the answer" becomes "I wait up to 2000 ms for the answer"

  @GATE-6
  Scenario: A QA project's run and catalogue hold no self-test step
    Given a feature file "qa.feature" with:
      """
      Feature: QA
        Scenario: Borrows a self-test step
          Given a marker-style chat with 2 earlier turns
          And this step fails the first time it runs in the project
      """
    When I run the harness on "qa.feature" with --update
    Then the run exits 1
    And the run output mentions "1 undefined"
    And the scratch project's catalogue holds no self-test step while this project's holds them
