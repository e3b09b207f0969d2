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

  @AGT-1
  Scenario: Tool errors reach the client as coded JSON text, argument errors included
    Given the agent starts a replaylab mcp process
    When I begin a task "fill the contact form"
    And I navigate to the sim page "/act/mask"
    And I call the MCP tool "fill" with the arguments {"target": {"role": "textbox", "name": "Name"}, "text": "Ada", "colour": "red"}
    Then the tool error is "UNKNOWN_ARGUMENT" for the field "colour", as JSON text with no structured content
    When I call the MCP tool "fill" with the arguments {"target": {"role": "textbox", "name": "Name"}, "text": 3}
    Then the tool error is "WRONG_ARGUMENT_TYPE" for the field "text", as JSON text with no structured content
    When I call the MCP tool "navigate" with the arguments {}
    Then the tool error is "MISSING_ARGUMENT" for the field "url", as JSON text with no structured content
    When I call the MCP tool "fill" with the arguments {"task": "t99", "target": {"role": "textbox", "name": "Name"}, "text": "Ada"}
    Then the tool error is "TASK_NOT_FOUND", as JSON text with no structured content
    When I call the MCP tool "fill" with the arguments {"target": {"role": "textbox", "name": "Surname"}, "text": "Lovelace"}
    Then the tool error is "TARGET_NOT_FOUND", as JSON text with no structured content
    And the MCP page text contains "Inputs received: 0"
    And the replaylab mcp process exits cleanly and leaves no browser

  @AGT-2 @ID-1
  Scenario: Fill, click and wait take their refs from the action results, with no snapshot call
    Given a marker-style chat with 2 earlier turns
    And the next answer streams "Paris is" for 3000 ms and completes as "Paris is the capital of France."
    And the agent starts a replaylab mcp process
    When I begin a task "ask for the capital"
    And I navigate to the sim page "/chat"
    And I keep the ref of the textbox "Message" in the last action's result as "opened"
    And I fill the textbox "Message" by its ref in the last action's result with "What is the capital of France?"
    Then the action ends with "ok"
    When I click the button "Send" by its ref in the last action's result expecting a new answer
    Then the action ends with "ok"
    When I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Paris is the capital of France."
    And the task's calls were "begin, navigate, fill, click, waitAnswer"
    And the answer read over MCP in pages of 10 characters is "Paris is the capital of France."
    When I fill the field with the ref "opened" with "And of Italy?"
    Then the action ends with "STALE_REF"
    And the replaylab mcp process exits cleanly and leaves no browser

  @AGT-4
  Scenario: A refused click arms no answer wait; a made-up ref, a refused connection and a file URL are named
    Given a marker-style chat with 2 earlier turns
    And the next answer completes as "Rome." after 300 ms
    And the agent starts a replaylab mcp process
    When I begin a task "ask with a stale ref"
    And I navigate to the sim page "/chat"
    And I keep the ref of the button "Send" in the last action's result as "send"
    And I fill the textbox "Message" by its ref in the last action's result with "What is the capital of Italy?"
    Then the action ends with "ok"
    When I click the element with the kept ref "send" expecting a new answer
    Then the action ends with "STALE_REF"
    When I try to wait up to 3000 ms for the answer
    Then the action ends with "NO_BASELINE"
    When I click the element with the ref "s99e1" expecting a new answer
    Then the action ends with "INVALID_REF"
    When I try to wait up to 3000 ms for the answer
    Then the action ends with "NO_BASELINE"
    When I navigate to the URL "http://127.0.0.1:2/"
    Then the action ends with "NAVIGATION_FAILED"
    And the action's error mentions "ERR_CONNECTION_REFUSED"
    When I navigate to the URL "file:///etc/hostname"
    Then the action ends with "URL_NOT_ALLOWED"
    When I finish the task
    Then the action ends with "ok"
    And the replaylab mcp process exits cleanly and leaves no browser

  @AGT-4 @ACT-3
  Scenario: A blocked task whose re-check finds nothing is abandoned with a reason
    Given the agent starts a replaylab mcp process
    When I begin a task "save settings"
    And I navigate to the sim page "/act/never"
    And I click the button "Save" expecting the text "Saved" within 400 ms
    Then the action ends with "OUTCOME_UNKNOWN"
    When I re-check the outcome
    Then the re-check finds the outcome still unknown
    When I finish the task
    Then the action ends with "TASK_BLOCKED"
    When I abandon the task because "the save's outcome is unknown"
    Then the action ends with "ok"
    When I finish the task
    Then the action ends with "TASK_FINISHED"
    And the sim received 1 save from "never"
    And the replaylab mcp process exits cleanly and leaves no browser
