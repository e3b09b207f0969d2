Feature: Ids the page makes up
  Chat UI libraries make their message ids up in the browser, anew on every
  load, and replace a generating placeholder by the real message under a new
  id. The adapter declares such ids volatile ("turn.id.kind"); the golden
  names answers by the lab's names (b1, b2 by baseline position, a1, a2 by
  first appearance), so a live rerun never drifts on ids, while the session
  keeps the page's own ids as evidence.

  @LIB-1
  Scenario: Ids made in the browser on every load never reach the golden
    Given the engine reads the chat with the adapter file "testsite/lib/browser-ids.adapter.json"
    When I open the sim page "/lib/browser-ids"
    And I send "First question"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Answer 1: you said First question."
    When I send "Second question"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Answer 2: you said Second question."
    And validating this session with the adapter "testsite/lib/browser-ids.adapter.json" passes

  @LIB-1
  Scenario: A site with no message ids declares position ids, and that is no violation
    Given a list-style chat with 4 earlier turns
    And the engine reads the chat with the adapter file "testsite/lib/list-positions.adapter.json"
    And the next answer streams "Lists are" for 600 ms and completes as "Lists are turns too."
    When I open the chat
    And I send "Can you read lists?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Lists are turns too."
    And validating this session with the adapter "testsite/lib/list-positions.adapter.json" passes
    And validating this session with the adapter "testsite/lib/list-no-id.adapter.json" reports "position-id"
