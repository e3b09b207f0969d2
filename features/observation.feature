Feature: Bounded observation
  The engine turns a page into a bounded, ordered list of candidates plus
  text, tables and headings, each with its own limit, its true total and
  its own truncation flag; it says which view it returns and never presents
  a bounded or partial read as the whole page.

  @OBS-1
  Scenario: Hidden, aria-hidden and inert decoys are not candidates
    When I open the sim page "/hidden"
    And I take a full snapshot
    Then the snapshot returns 2 of 2 elements
    And the snapshot's first elements are:
      | textbox | Message |
      | button  | Send    |
    And these elements are found exactly once:
      | button  | Send    |
      | textbox | Message |

  @OBS-1 @OBS-10
  Scenario: Controls are named the way a screen reader names them
    When I open the sim page "/labels"
    Then these elements are found exactly once:
      | textbox  | First name            |
      | textbox  | Last name             |
      | textbox  | Email (work)          |
      | textbox  | Phone                 |
      | textbox  | Postcode              |
      | searchbox| Search the site       |
      | checkbox | Subscribe             |
      | radio    | Free                  |
      | radio    | Pro                   |
      | combobox | Country               |
      | button   | Upload avatar         |
      | button   | Save profile          |
      | button   | Close                 |
      | link     | Help                  |

  @OBS-2 @OBS-3
  Scenario: A 300-link sidebar cannot push the composer out of the snapshot
    When I open the sim page "/sidebar"
    And I take a full snapshot
    Then the snapshot's first elements are:
      | textbox | Message          |
      | button  | Send             |
      | link    | Conversation 1   |
    And the snapshot returns 60 of 302 elements
    And the snapshot is incomplete

  @OBS-3 @OBS-4
  Scenario: The page view is shorter and says so
    When I open the sim page "/sidebar"
    And I take a page snapshot
    Then the snapshot is the page view
    And the snapshot returns 30 of 302 elements
    And the snapshot's first elements are:
      | textbox | Message |
      | button  | Send    |
    And the snapshot is incomplete
    When I take a full snapshot
    Then the snapshot is the full view
    And the snapshot returns 60 of 302 elements

  @OBS-3
  Scenario: Each limit keeps its own total and flag
    When I open the sim page "/long-text"
    And I take a page snapshot
    Then the snapshot text is cut at 1500 of 3705 characters
    And the snapshot returns 1 of 1 headings
    And the snapshot returns 0 of 0 elements
    And the snapshot is incomplete

  @OBS-5
  Scenario: Find reports its selection facts
    When I open the sim page "/many-links"
    And I find role "link" named "Docs"
    Then the selection is total 46, matched 45, offset 0, limit 20, hasMore true
    And the find returned 20 items
    When I find role "link" named "Docs" from offset 40
    Then the selection is total 46, matched 45, offset 40, limit 20, hasMore false
    And the find returned 5 items
    When I find role "link" named "Home"
    Then the selection is total 46, matched 1, offset 0, limit 20, hasMore false
    And the find is complete

  @OBS-6
  Scenario: Text search returns bounded snippets with the true match count
    When I open the sim page "/long-text"
    And I search the page text for "Invoice Number"
    Then the text search matched 25 times with 10 snippets
    And the text search is truncated
    And every snippet holds "invoice number" in at most 160 characters
    And the text search is complete
    When I search the page text for "warehouse schedule"
    Then the text search matched 15 times with 10 snippets

  @OBS-7 @OBS-9
  Scenario: A frame the capture cannot read makes every read incomplete
    When I open the sim page "/frames-cross"
    And I take a full snapshot
    Then the snapshot read 1 frame and left 1 unread
    And the snapshot is incomplete
    When I find role "textbox" named "Card number"
    Then the selection is total 1, matched 0, offset 0, limit 20, hasMore false
    And the find is incomplete
    When I search the page text for "card number"
    Then the text search matched 0 times with 0 snippets
    And the text search is incomplete

  @OBS-8
  Scenario: Nested tables keep their own rows, big tables are flagged partial
    When I open the sim page "/tables"
    And I take a full snapshot
    Then the snapshot returns 4 of 5 tables
    And table 1 is a "table" named "Orders" inside table 0
    And table 1 has 3 of 3 rows and 3 of 3 columns
    And table 1 row 2 reads "A-1 |  | 30"
    And table 1 is whole
    And table 2 is a "table" named "Lines of A-1" inside table 1
    And table 2 has 2 of 2 rows and 2 of 2 columns
    And table 2 row 1 reads "pen | 2"
    And table 3 is a "table" named "Transactions" inside table 0
    And table 3 has 20 of 30 rows and 8 of 12 columns
    And table 3 is partial
    And table 4 is a "grid" named "Seats" inside table 0
    And table 4 row 2 reads "1A | free"
    And the snapshot is incomplete

  @OBS-9
  Scenario: Srcdoc and same-origin frames are observed separately and merged
    When I open the sim page "/frames"
    And I take a full snapshot
    Then the snapshot read 3 frames and left 0 unread
    And the snapshot lists the button "Inner" in a child frame
    And the snapshot lists the searchbox "Search help" in a child frame
    And the snapshot's first elements are:
      | searchbox | Search help |
      | button    | Top         |
    And the snapshot returns 5 of 5 elements
    And the snapshot returns 3 of 3 headings
    And the snapshot is complete
    When I find role "link" named "Help"
    Then the selection is total 5, matched 2, offset 0, limit 20, hasMore false
