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
