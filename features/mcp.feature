@mcp
Feature: replaylab mcp as a subprocess, driven by the official MCP client
  An agent starts `replaylab mcp` and talks to it over stdio with the
  official MCP Go SDK's client. Live, the process starts its own Chromium
  against the sim and records every task page; replayed, it serves those
  recordings with no browser. Both give the same trace: the agent's view
  (codes, counts, refs) followed by the process's own engine trace.

  @ACT-6
  Scenario: One process serves several tasks and many calls
    Given the agent starts a replaylab mcp process
    When I begin a task "follow the link"
    And I navigate to the sim page "/act/links"
    And I click the link "Next page" expecting the sim URL "/act/links/next"
    Then the action ends with "ok"
    When I finish the task
    Then the action ends with "ok"
    When I begin a task "fill the contact form"
    And I navigate to the sim page "/act/mask"
    And I fill the textbox "Name" with "Ada Lovelace"
    Then the action ends with "ok"
    When I finish the task
    Then the action ends with "ok"
    When I begin a task "read a page"
    And I re-check the outcome
    Then the action ends with "INVALID_ARGUMENT"
    When I navigate to the sim page "/act/links"
    And I read the page with snapshot, find and extract
    And I finish the task
    Then the action ends with "ok"
    And the tasks have different ids
    And one replaylab mcp process served every call
    And the replaylab mcp process exits cleanly and leaves no browser

  @ACT-1 @ID-1
  Scenario: Fill verifies on a fresh ref, and a ref from an older snapshot is refused
    Given the agent starts a replaylab mcp process
    When I begin a task "fill the contact form"
    And I navigate to the sim page "/act/mask"
    And I snapshot the page over MCP and keep the ref of the textbox "Name" as "first"
    And I fill the field with the ref "first" with "Ada Lovelace"
    Then the action ends with "ok"
    When I snapshot the page over MCP and keep the ref of the textbox "Name" as "second"
    Then the refs "first" and "second" are different
    And the field with the ref "second" holds "Ada Lovelace"
    When I snapshot the page over MCP and keep the ref of the textbox "Phone" as "phone"
    And I fill the field with the ref "phone" with "555 0100 ext 9"
    Then the action ends with "FIELD_MISMATCH"
    And the field "Phone" holds "555-0100"
    When I fill the field with the ref "first" with "Grace Hopper"
    Then the action ends with "STALE_REF"
    And the MCP page text contains "Inputs received: 2"
    And one replaylab mcp process served every call
    And the replaylab mcp process exits cleanly and leaves no browser

  @LOC-2
  Scenario: Two fields with the same name get zero inputs through the process
    Given the agent starts a replaylab mcp process
    When I begin a task "fill the checkout"
    And I navigate to the sim page "/act/duplicates"
    And I fill the textbox "Email" with "ada@example.com"
    Then the action ends with "TARGET_AMBIGUOUS"
    And the refused action names 2 matches
    And the MCP page text contains "Inputs received: 0"
    And the MCP page text contains "Submissions: 0"
    And the replaylab mcp process exits cleanly and leaves no browser

  @ACT-3
  Scenario: After an unknown outcome the process allows reads and refuses inputs
    Given the agent starts a replaylab mcp process
    When I begin a task "save settings"
    And I navigate to the sim page "/act/never"
    And I click the button "Save" expecting the text "Saved" within 400 ms
    Then the action ends with "OUTCOME_UNKNOWN"
    When I read the page with snapshot, find and extract
    Then the field "Display name" holds "Ada"
    When I fill the textbox "Display name" with "Grace"
    Then the action ends with "TASK_BLOCKED"
    When I click the button "Save" expecting the text "Saved" within 400 ms
    Then the action ends with "TASK_BLOCKED"
    When I finish the task
    Then the action ends with "TASK_BLOCKED"
    And the MCP page text contains "Not saved yet."
    And the sim received 1 save from "never"
    And the replaylab mcp process exits cleanly and leaves no browser

  @AGT-3
  Scenario: Look-alike Delete buttons are told apart by their rows
    Given the agent starts a replaylab mcp process
    When I begin a task "delete notes.txt"
    And I navigate to the sim page "/act/files"
    And I click the button "Delete" expecting the text "Deleted: notes.txt"
    Then the action ends with "TARGET_AMBIGUOUS"
    And the refusal tells the matches apart by "report.pdf, notes.txt, todo.md"
    And the MCP page text contains "Deleted: none"
    When I click the button "Delete" in the row "notes.txt" expecting the text "Deleted: notes.txt"
    Then the action ends with "ok"
    And the MCP page text contains "report.pdf"
    And the replaylab mcp process exits cleanly and leaves no browser
