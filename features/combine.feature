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
