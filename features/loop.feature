Feature: Loop monitor
  Every task has a loop monitor. It keeps the fingerprints of the last 20
  actions and, separately, of the last 20 observations, and raises an
  advisory signal when the recent history looks like a loop: the same
  action while the page keeps coming back to earlier states, actions that
  change nothing, or the same action without looking. The signal rides on
  the next result and in the trace; it carries counts and advice only, and
  the task can still finish.

  @MON-4 @MON-5
  Scenario: Opening and closing a menu over and over is a loop, though the menu reads differently every time
    When I open the sim page "/loop/menu"
    And I open and close the menu 4 times
    Then no loop signal is raised
    When I open and close the menu 1 times
    Then a loop signal "same_action_revisit" is raised
    And the open menu read differently each time
    And the last loop signal counts 5 same actions, 1 since the last observation, 7 revisits and 0 stagnant in a window of 20

  @MON-4
  Scenario: Five clicks that change nothing are stagnation
    When I open the sim page "/loop/menu"
    And I click the button "Check for updates" 5 times expecting "No updates"
    And I look at the page
    Then no loop signal is raised
    When I click the button "Check for updates" 1 times expecting "No updates"
    And I look at the page
    Then a loop signal "stagnation" is raised
    And the last loop signal counts 6 same actions, 0 since the last observation, 0 revisits and 5 stagnant in a window of 20

  @MON-4
  Scenario: The same click five times without looking in between
    When I open the sim page "/loop/menu"
    And I look once and click the button "Check for updates" 4 times by that ref, expecting "No updates"
    Then no loop signal is raised
    When I look once and click the button "Check for updates" 5 times by that ref, expecting "No updates"
    Then a loop signal "same_action_no_observation" is raised
    And the last loop signal counts 9 same actions, 5 since the last observation, 0 revisits and 0 stagnant in a window of 20

  @MON-1
  Scenario: The windows are bounded at 20 fingerprints each
    When I open the sim page "/loop/menu"
    And I open and close the menu 15 times
    Then a loop signal "same_action_revisit" is raised
    And the last loop signal counts 10 same actions, 1 since the last observation, 13 revisits and 0 stagnant in a window of 20

  @MON-2
  Scenario: A new snapshot id is not progress
    When I open the sim page "/loop/menu"
    And I click the button "Check for updates" 6 times expecting "No updates", looking at the page twice after each click
    Then a loop signal "stagnation" is raised
    And the last loop signal counts 6 same actions, 0 since the last observation, 0 revisits and 5 stagnant in a window of 20

  @MON-3
  Scenario: Clicking the same control by a fresh ref each time is the same action
    When I open the sim page "/loop/menu"
    And I open and close the menu 5 times by refs from fresh snapshots
    Then every ref used was different
    And a loop signal "same_action_revisit" is raised

  @MON-6
  Scenario: Reading a guide page after page with the same Next link raises no signal
    When I read the guide from chapter 1 to chapter 8 by its "Next" links
    Then no loop signal is raised

  @MON-6
  Scenario: Alternating between two tabs raises no signal
    When I open the sim page "/loop/tab-a"
    And I open the sim page "/loop/tab-b" in the second tab
    And I refresh the main and the second tab in turn 6 times
    Then no loop signal is raised

  @MON-6
  Scenario: Waiting for a slow result and verifying it are not actions
    When I open the sim page "/loop/slow"
    And I click the button "Build report" expecting "Working on the report"
    And I wait for "Report ready" 6 times
    And I verify the outcome "Report ready" 6 times
    And I verify the textbox "Reference" holds "RL-7" 6 times
    Then no loop signal is raised

  @MON-7
  Scenario: A signal from a sign-in loop holds no typed secret and no sensitive field's name
    When I open the sim page "/loop/login"
    And I try to sign in 5 times with the password "hunter2-Tango" and the codes "481516, 234200, 905511, 771043, 318007"
    Then a loop signal "same_action_revisit" is raised
    And the loop signals and the trace never hold the typed secrets or the names "Password" and "One-time code"

  @MON-8
  Scenario: A task that gets a signal still finishes, and nothing is repeated for it
    When I open the sim page "/loop/menu"
    And I open and close the menu 5 times
    Then a loop signal "same_action_revisit" is raised
    And the page text contains "The menu is closed (5 times"
    And the task can still finish

  @MON-9
  Scenario: The change summary lists what a click added and removed, and grants no ref
    When I open the sim page "/loop/menu"
    And I look at the page
    And I click the button "Open menu" expecting "The menu is open"
    And I look at the page
    Then the change summary is:
      | added   | menuitem "Profile"; menuitem "Settings"; button "Close menu" |
      | removed |                                                             |
      | changed |                                                             |
    And the change summary grants no ref
    When I click the button "Close menu" expecting "The menu is closed"
    And I look at the page
    Then the change summary is:
      | added   |                                                             |
      | removed | menuitem "Profile"; menuitem "Settings"; button "Close menu" |
      | changed |                                                             |
    And the change summary grants no ref

  @MON-9 @MON-7
  Scenario: The change summary names a typed field but never a sensitive one or its value
    When I open the sim page "/loop/login"
    And I type "ada.lovelace" into the textbox "Username"
    Then the change summary is:
      | changed | textbox "Username" (value) |
    When I try to sign in 1 times with the password "hunter2-Tango" and the codes "481516"
    And I look at the page
    Then the change summary is:
      | added   |                                                        |
      | removed |                                                        |
      | changed | textbox "a sensitive field" (value)                    |
