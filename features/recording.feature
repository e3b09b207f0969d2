Feature: Recording real sessions and validating site adapters
  A team brings a new chat site: it describes the markup in an adapter file,
  records sessions, and proves the adapter over them, offline. These
  scenarios record the sim live in Chromium and replay the recordings with no
  browser; both give the same golden trace.

  @HAR-3 @HAR-4 @HAR-5
  Scenario: A third markup style is read by an adapter file, live and replayed
    Given a list-style chat with 6 earlier turns
    And the engine reads the chat with the adapter file "docs/examples/listchat.json"
    And the next answer streams "Lists are" for 600 ms and completes as "Lists are turns too."
    When I open the chat
    And I take a page snapshot
    Then the snapshot shows 3 answer groups
    And every answer group names the adapter rule that found it
    When I send "Can you read lists?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Lists are turns too."
    And validating this session with the adapter "docs/examples/listchat.json" passes

  @HAR-5
  Scenario: Validation fails with a precise message when the adapter is wrong
    Given a list-style chat with 4 earlier turns
    And the engine reads the chat with the adapter file "docs/examples/listchat.json"
    And the next answer completes as "Fine." after 300 ms
    When I open the chat
    And I send "Hello"
    And I wait for the answer
    Then validating this session with the adapter "marker" reports "structure"
    And validating this session with the adapter "heading" reports "new-group"

  @HAR-3
  Scenario: An action that departs from the recording fails with REPLAY_DIVERGED and the field
    Given a marker-style chat with 2 earlier turns
    And the next answer completes as "Recorded." after 300 ms
    When I open the chat
    And I send "The recorded words"
    And I wait for the answer
    Then replaying this session with "Other words" typed instead diverges at the field "text"

  @HAR-4
  Scenario: Typed secrets and e-mail addresses never reach disk
    Given a marker-style chat with 2 earlier turns
    And the next answer completes as "Write to ada@example.com for access." after 300 ms
    When I open the sim page "/loop/login"
    And I type "hunter2-secret" into the textbox "Password"
    And I open the chat
    And I send "Who do I write to?"
    And I wait for the answer
    Then the answer contains "for access."
    And the recording of this session holds no "hunter2-secret"
    And the recording of this session holds no "ada@example.com"
    And the trace holds no "ada@example.com"
