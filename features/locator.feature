Feature: Strict role locators
  getByRole(role, name) resolves by a fresh find to exactly one element or
  refuses with its own code; nothing is delivered on a refusal, and a ref
  only works in the snapshot that issued it.

  @LOC-1
  Scenario: Exact role and name, href to disambiguate
    When I open the sim page "/many-links"
    And I click the link "Docs" at "#docs-07" expecting the status "Opened docs 07"
    Then the page text contains "Opened docs 07"
    When I click the link "Docs for module 7" expecting the status "Opened docs 07"
    Then the action is refused with "TARGET_NOT_FOUND"

  @LOC-1 @OBS-1
  Scenario: Hidden decoys never take the click
    When I open the sim page "/hidden"
    And I click the button "Send" expecting the status "Sent"
    Then the page text contains "Sent"
    And the page text does not contain "decoy"

  @LOC-2
  Scenario: Two buttons with the same name are refused and nothing is clicked
    When I open the sim page "/duplicates"
    And I type "a secret remark" into the textbox "Comment"
    And I click the button "Delete" expecting the status "Deleted"
    Then the action is refused with "TARGET_AMBIGUOUS"
    And the refusal counts 2 matches
    And the refusal describes each match by role, name, frame and ref
    And the page text does not contain "Deleted"

  @LOC-3
  Scenario: More matches than one find page are refused as truncated
    When I open the sim page "/many-links"
    And I click the link "Docs" expecting the status "Opened"
    Then the action is refused with "TARGET_QUERY_TRUNCATED"
    And the refusal counts 45 matches
    And the page text does not contain "Opened"

  @LOC-4
  Scenario: No match is not found, never the first similar element
    When I open the sim page "/duplicates"
    And I click the button "Remove" expecting the status "Deleted"
    Then the action is refused with "TARGET_NOT_FOUND"
    And the page text does not contain "Deleted"

  @ID-1
  Scenario: A ref from an older snapshot is refused even when nothing changed
    When I open the sim page "/duplicates"
    And I take a full snapshot
    And I remember the ref of the button "Archive"
    And I take a full snapshot
    When I click the remembered ref expecting the status "Archived"
    Then the action is refused with "STALE_REF"
    And the page text does not contain "Archived"
    When I take a full snapshot
    And I remember the ref of the button "Archive"
    And I click the remembered ref expecting the status "Archived"
    Then the page text contains "Archived"
