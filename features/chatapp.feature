@SITE-2
Feature: A streaming chat app
  The test site's chat app (testsite/app.go, served at /app/) is a
  single-page app: its thread arrives as JSON after the page loads, each
  answer streams from the server token by token over fetch, EventSource or
  WebSocket, Send turns into "Stop generating" while an answer streams, and
  every answer carries a toolbar with a model badge, Copy, thumbs and
  Regenerate. Its profile is testsite/chatapp.json.

  Scenario: An answer streamed over fetch is followed to its end
    Given the site "testsite/chatapp.json"
    When I open "/app/?load=0"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the answer group is not one of the earlier groups

  Scenario: An answer streamed over EventSource is followed to its end
    Given the site "testsite/chatapp.json"
    When I open "/app/?load=0&transport=sse"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."

  Scenario: An answer streamed over WebSocket is followed to its end
    Given the site "testsite/chatapp.json"
    When I open "/app/?load=0&transport=ws"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."
