@SITE-2
Feature: A streaming chat app
  The test site's chat app (testsite/app.go, served at /app/) is a
  single-page app: its thread arrives as JSON after the page loads, each
  answer streams from the server token by token over fetch, EventSource or
  WebSocket, Send turns into "Stop generating" while an answer streams, and
  every answer carries a toolbar with a model badge, Copy, thumbs and
  Regenerate. Its profile is testsite/chatapp.json; it names when the page
  is ready ("ready": the thread has arrived).

  Scenario: An answer streamed over fetch is followed to its end
    Given the site "testsite/chatapp.json"
    When I open "/app/"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the answer group is not one of the earlier groups

  Scenario: An answer streamed over EventSource is followed to its end
    Given the site "testsite/chatapp.json"
    When I open "/app/?transport=sse"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."

  Scenario: An answer streamed over WebSocket is followed to its end
    Given the site "testsite/chatapp.json"
    When I open "/app/?transport=ws"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."

  @APP-1
  Scenario: A thread that loads late is read once it is ready, never half-loaded
    Given the site "testsite/chatapp.json"
    When I open "/app/?load=1500"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the baseline holds the groups "h2, h4"
    And the answer status is "complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the answer group is not one of the earlier groups

  @APP-1
  Scenario: A send before the page is ready is refused, and goes through once it is
    Given the site "testsite/chatapp.json"
    When I open "/app/"
    And I click the link "Chat 2" expecting the text "Loading conversation…"
    And I send "What is the capital of France?"
    Then the action is refused with "PAGE_NOT_READY"
    When I wait for the page to be ready
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the baseline holds the groups "h2, h4"
    And the answer text is "The capital of France is Paris, on the Seine."

  @APP-1
  Scenario: A page that never gets ready fails naming what was awaited
    Given the site "testsite/chatapp.json"
    Then opening "/app/?load=never" fails with "PAGE_NOT_READY: waited 5s for selector"

  @APP-3
  Scenario: A stopped answer is ANSWER_STOPPED, and the stop is no send
    Given the site "testsite/chatapp.json"
    When I open "/app/?load=0&stream=6000"
    And I send "Tell me something long"
    And I stop the answer
    And I wait for the answer
    Then the answer status is "ANSWER_STOPPED"
    And the states seen are "stopped"
    And the answer group is not one of the earlier groups

  @APP-3
  Scenario: A regenerated answer replaces the old one in place and is the new answer
    Given the site "testsite/chatapp.json"
    When I open "/app/"
    And I send "What is the capital of France?"
    And I wait for the answer
    And I regenerate the answer
    And I wait for the answer
    Then the baseline holds the groups "h2, h4, m2"
    And the answer status is "complete"
    And the answer text is "Paris is the capital of France."
    And the answer group is the last group on the page

  @APP-3
  Scenario: An error shown in the answer is ANSWER_FAILED, and a retry is the new answer
    Given the site "testsite/chatapp.json"
    When I open "/app/"
    And I send "Please fail"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"
    When I retry the answer
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Nova read your 2-word message and has this to say: thank you for writing."
    And the answer group is the last group on the page

  @APP-3
  Scenario: The site's own error signal (a usage-limit note) is ANSWER_FAILED on the second persona
    Given the site "testsite/chatapp.json"
    When I open "/app/?model=orion"
    And I send "You hit the limit"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"
    When I retry the answer
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Orion here. Orion read your 4-word message and has this to say: thank you for writing."

  @APP-3
  Scenario: A picture that loads late is waited for inside the answer
    Given the site "testsite/chatapp.json"
    When I open "/app/"
    And I send "Draw me a chart picture"
    And I wait up to 8000 ms for the answer with a image
    Then the answer status is "complete"
    And the answer text is "Here is the chart you asked for, drawn from the figures above."

  @APP-3
  Scenario: A regenerated answer that keeps its message id is still the new answer
    Given the site "testsite/chatapp.json"
    When I open "/app/?sameid=1"
    And I send "What is the capital of France?"
    And I wait for the answer
    And I regenerate the answer
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "Paris is the capital of France."
    And the answer group is the last group on the page

  @APP-5
  Scenario: A signed-in storage state opens the thread, and its values are written nowhere
    Given the site "testsite/chatapp.json"
    And the storage state "testsite/signed-in.state.json"
    When I open "/app/?signin=1"
    And I wait up to 1000 ms for the text "Signed in, session"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the baseline holds the groups "h2, h4"
    And the answer text is "The capital of France is Paris, on the Seine."
    And no value of the storage state is in the recording or the trace

  @APP-5
  Scenario: Without the storage state the app shows its sign-in page
    Given the site "testsite/chatapp.json"
    Then opening "/app/?signin=1" fails with "PAGE_NOT_READY: waited 5s for selector"
    And I wait up to 1000 ms for the text "Sign in to Nova Studio"
