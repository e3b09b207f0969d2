Feature: One step vocabulary: every action keeps its result, every check reads it
  Every action step (fill, click, press, navigate, send) keeps its result,
  and every result check works after every action step. An engine verdict
  fails the action step itself unless a result check follows before the
  next action. Articles and plurals read naturally: "an image", "1 time".

  @LOC-2 @ACT-1 @HAR-1
  Scenario: A refused fill is a refusal like a refused click
    When I navigate to the sim page "/act/duplicates"
    And I fill the textbox "Email" with "ada@example.com"
    Then the action is refused with "TARGET_AMBIGUOUS"
    And the refusal counts 2 matches
    And the refusal describes each match by role, name, frame and ref
    And the page text contains "Inputs received: 0"

  @LOC-2 @HAR-1
  Scenario: A click expecting a status keeps its result for "the action ends with"
    When I open the sim page "/duplicates"
    And I click the button "Archive" expecting the status "Archived"
    Then the action ends with "ok"
    When I click the button "Delete" expecting the status "Deleted"
    Then the action ends with "TARGET_AMBIGUOUS"
    And the refused action names 2 matches
    And the page text does not contain "Deleted"

  @LOC-2 @HAR-1
  Scenario: The short click form is refused on ambiguity like the others
    When I open the sim page "/duplicates"
    And I click the button "Delete" expecting "Deleted"
    Then the action is refused with "TARGET_AMBIGUOUS"
    And the refusal counts 2 matches
    When I click the button "Archive" expecting "Archived"
    Then the action ends with "ok"

  @ACT-3 @HAR-1
  Scenario: An outcome that never shows ends the action, it is not a refusal
    When I navigate to the sim page "/act/never"
    And I click the button "Save" expecting the text "Saved" within 300 ms
    Then the action ends with "OUTCOME_UNKNOWN"
    When I type "Grace" into the textbox "Display name"
    Then the action is refused with "TASK_BLOCKED"

  @ACT-2 @HAR-1
  Scenario: A key press is an action with an expected outcome
    When I navigate to the sim page "/vocab/search"
    And I fill the searchbox "Search" with "golden traces"
    And I press "Enter" in the searchbox "Search" expecting the text "Results for golden traces"
    Then the action ends with "ok"
    And the page text contains "(search 1)"

  @ANS-3 @HAR-1
  Scenario: A send that gets no answer ends within the wait the step names
    Given a marker-style chat with 1 earlier answer
    And the next answer never comes
    When I open the chat
    And I try to send "Anyone there?" within 800 ms
    Then the action ends with "OUTCOME_UNKNOWN"

  @ANS-6 @HAR-1
  Scenario: "an image" and "1 turn" read as written
    Given a heading-style chat with 3 earlier turns
    And the next answer completes as "Here is an image." after 1000 ms with an image that is ready 500 ms later
    When I open the chat
    And I take a page snapshot
    Then the snapshot shows 1 answer group
    When I send "Draw a boat"
    And I wait up to 5000 ms for the answer with an image
    Then the answer status is "complete"

  @MON-4 @MON-6 @HAR-1
  Scenario: Refreshing one tab again and again is stagnation; alternating two tabs is not
    When I open the sim page "/loop/tab-a"
    And I open the sim page "/loop/tab-b" in the second tab
    And I switch to the second tab
    And I click the button "Refresh" 1 time expecting the text "EUR as of"
    And I switch to the main tab
    And I click the button "Refresh" 1 time expecting the text "EUR as of"
    And I switch to the second tab
    And I click the button "Refresh" 1 time expecting the text "EUR as of"
    Then no loop signal is raised
    When I click the button "Refresh" 5 times expecting the text "EUR as of"
    And I look at the page
    Then a loop signal "stagnation" is raised

  @MON-6 @HAR-1
  Scenario: Reading chapters in order with the generic click steps raises no signal
    When I navigate to the sim page "/loop/pages/1"
    And I click the link "Next" expecting the sim URL "/loop/pages/2"
    And I click the link "Next" expecting the sim URL "/loop/pages/3"
    And I click the link "Next" expecting the sim URL "/loop/pages/4"
    And I click the link "Next" expecting the sim URL "/loop/pages/5"
    And I click the link "Next" expecting the sim URL "/loop/pages/6"
    And I click the link "Next" expecting the sim URL "/loop/pages/7"
    Then no loop signal is raised

  @MON-4 @HAR-1
  Scenario: Going back to the contents and into the same chapter again and again raises a signal
    When I navigate to the sim page "/loop/pages/"
    And I click the link "Getting started" expecting the sim URL "/loop/pages/1"
    And I navigate to the sim page "/loop/pages/"
    And I click the link "Getting started" expecting the sim URL "/loop/pages/1"
    Then no loop signal is raised
    When I navigate to the sim page "/loop/pages/"
    And I click the link "Getting started" expecting the sim URL "/loop/pages/1"
    And I navigate to the sim page "/loop/pages/"
    And I click the link "Getting started" expecting the sim URL "/loop/pages/1"
    Then a loop signal "stagnation" is raised
