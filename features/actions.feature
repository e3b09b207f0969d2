Feature: Actions with outcome discipline
  Fill verifies the real value, clicks need an expected outcome, an outcome
  that cannot be confirmed blocks the task until one re-check, and the
  agent-facing MCP layer exposes typed operations only, keeps tasks apart
  and counts sizes in bytes. Live runs count what reached the sim; replays
  prove the same with the recording, which holds every action exactly once.

  @ACT-1
  Scenario: A masked field is verified, reported as a mismatch and never typed again
    When I navigate to the sim page "/act/mask"
    And I fill the textbox "Name" with "Ada Lovelace"
    Then the action ends with "ok"
    When I fill the textbox "Phone" with "555 0100 ext 9"
    Then the action ends with "FIELD_MISMATCH"
    And the field "Phone" holds "555-0100"
    And the page text contains "Inputs received: 2"

  @LOC-2 @ACT-1
  Scenario: Two fields with the same name get no input at all
    When I navigate to the sim page "/act/duplicates"
    And I fill the textbox "Email" with "ada@example.com"
    Then the action ends with "TARGET_AMBIGUOUS"
    And the refused action names 2 matches
    And the page text contains "Inputs received: 0"
    And the page text contains "Submissions: 0"

  @ACT-2
  Scenario: A click needs an expected outcome, and an expected URL must be absolute
    When I navigate to the sim page "/act/links"
    And I click the link "Next page" with no expected outcome
    Then the action ends with "MISSING_EXPECTATION"
    When I click the link "Next page" expecting the URL "/act/links/next"
    Then the action ends with "INVALID_EXPECTATION"
    And the page is at the sim URL "/act/links"
    When I click the link "Next page" expecting the sim URL "/act/links/next"
    Then the action ends with "ok"
    And the page is at the sim URL "/act/links/next"

  @ACT-3 @ACT-4
  Scenario: An effect that never shows blocks the task; reads work, mutations and finish are refused, one re-check only
    When I navigate to the sim page "/act/never"
    And I click the button "Save" expecting the text "Saved" within 400 ms
    Then the action ends with "OUTCOME_UNKNOWN"
    And the task is blocked
    When I read the page with snapshot, find and extract
    Then the field "Display name" holds "Ada"
    When I fill the textbox "Display name" with "Grace"
    Then the action ends with "TASK_BLOCKED"
    When I click the button "Save" expecting the text "Saved" within 400 ms
    Then the action ends with "TASK_BLOCKED"
    When I navigate to the sim page "/act/links"
    Then the action ends with "TASK_BLOCKED"
    When I finish the task
    Then the action ends with "TASK_BLOCKED"
    When I re-check the outcome
    Then the re-check finds the outcome still unknown
    And the task is blocked
    When I re-check the outcome
    Then the action ends with "TASK_BLOCKED"
    And the field "Display name" holds "Ada"
    And the sim received 1 save from "never"

  @ACT-4
  Scenario: A late effect is found by the one re-check and the click is never sent again
    When I navigate to the sim page "/act/late"
    And I click the button "Save" expecting the text "Saved" within 300 ms
    Then the action ends with "OUTCOME_UNKNOWN"
    When I wait up to 4000 ms for the text "Saved"
    Then the task is blocked
    When I re-check the outcome
    Then the re-check records a late success
    And the task is not blocked
    When I finish the task
    Then the action ends with "ok"
    And the sim received 1 save from "late"

  @ACT-5
  Scenario: The MCP tools are typed operations; there is no evaluate
    Given the agent drives the engine over MCP
    When I list the MCP tools
    Then no MCP tool takes a script or code
    And calling the MCP tool "evaluate" is refused

  @ACT-6
  Scenario: One MCP server serves many tasks; a new task inherits no success
    Given the agent drives the engine over MCP
    When I begin a task "save settings"
    And I navigate to the sim page "/act/late"
    And I click the button "Save" expecting the text "Saved" within 300 ms
    Then the action ends with "OUTCOME_UNKNOWN"
    When I fill the textbox "Display name" with "Grace"
    Then the action ends with "TASK_BLOCKED"
    When I wait up to 4000 ms for the text "Saved"
    And I re-check the outcome
    Then the re-check records a late success
    When I finish the task
    Then the action ends with "ok"
    When I begin a task "save settings again"
    And I re-check the outcome
    Then the action ends with "INVALID_ARGUMENT"
    When I click the button "Save" expecting the text "Nothing" within 300 ms
    Then the action ends with "OUTCOME_UNKNOWN"
    When I finish the task
    Then the action ends with "TASK_BLOCKED"
    And the tasks have different ids
    And the sim received 2 saves from "late"

  @ACT-7
  Scenario: Call sizes are bytes, per call and per task
    Given the agent drives the engine over MCP
    When I begin a task "read a page"
    And I navigate to the sim page "/act/links"
    And I read the page with snapshot, find and extract
    Then the task's metrics count 5 calls in bytes that add up
