@APP-2
Feature: Streams on the lab clock
  On "clock": "page" what a site streams in reaches the page on lab time:
  the page clock holds each line of a fetch body and each EventSource or
  WebSocket message and releases one every 20 ms of lab time, and a read
  never completes while a part is due. The chat app (testsite/app.go) streams
  its answer from the server, paced in wall time; its profile on the page
  clock is testsite/chatapp.json. Every state is seen whatever the load,
  and the answer ends at the same instant of lab time in every run: a
  fetch's response reaches the page 20 ms after the request (the thread's,
  and over fetch the answer's too), then the answer's parts follow 20 ms
  apart (start, 9 tokens, done: 220 ms). Over fetch: 260 ms; over
  EventSource and WebSocket: 240 ms. The wait then reads the answer still
  for its 300 ms settle window (LIB-3): 560 and 540 ms.

  Scenario: An answer streamed over fetch reaches the page on lab time
    Given the site "testsite/chatapp.json"
    When I open "/app/?load=0&stream=3000"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the clock reads 560 ms since the start

  Scenario: An answer streamed over EventSource reaches the page on lab time
    Given the site "testsite/chatapp.json"
    When I open "/app/?load=0&transport=sse&stream=3000"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the clock reads 540 ms since the start

  Scenario: An answer streamed over WebSocket reaches the page on lab time
    Given the site "testsite/chatapp.json"
    When I open "/app/?load=0&transport=ws&stream=3000"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."
    And the clock reads 540 ms since the start
