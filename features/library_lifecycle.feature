@SITE-2
Feature: An answer's life on a page built the way chat UI libraries build it
  The test site's chat app in its library style (/app/?lib=1, see
  testsite/testsite.go, "Library style") behaves as chat UI libraries do:
  no status on the turns, an empty bubble until the first token, a
  renderer that paints each token late (so "done" comes before the last
  words), a Send button enabled in a deferred update after input, an icon
  Stop button without a name and no stopped note, a Regenerate and a Copy
  on every answer, and failures shown as a toast outside the thread. Its
  profiles give every control by selector: testsite/chatapp-lib.json on the
  page clock, testsite/chatapp-lib-wall.json on the wall clock (only facts
  that do not depend on timing are checked there).

  @LIB-3
  Scenario: A renderer that paints its last words after "done" is read to its last word
    Given the site "testsite/chatapp-lib.json"
    When I open "/app/?lib=1&load=0"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France is Paris, on the Seine."

  @LIB-3
  Scenario: Without a settle window the answer is cut at "done", but an empty bubble is still never the answer
    Given the site "testsite/chatapp-lib-nosettle.json"
    When I open "/app/?lib=1&load=0"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer status is "complete"
    And the states seen are "generating, complete"
    And the answer text is "The capital of France"

  @LIB-3 @LIB-5
  Scenario Outline: An answer stopped with an icon Stop button is ANSWER_STOPPED though the site shows no note (<clock> clock)
    Given the site "<profile>"
    When I open "/app/?lib=1&load=0&stream=<stream>"
    And I send "<prompt>"
    And I wait up to 5000 ms for the text "<seen>"
    And I stop the answer
    And I wait for the answer
    Then the answer status is "ANSWER_STOPPED"
    And the answer evidence mentions "the engine clicked the site's Stop control"
    And the answer contains "<seen>"
    And the answer group is not one of the earlier groups

    # On the wall clock the answer stalls after a few words (its stream
    # held open), so the text at the Stop is the same in every run; the
    # page clock waits for every stream it holds, so there a long answer
    # is stopped at the same instant of lab time instead.
    Examples:
      | clock | profile                         | stream | prompt                 | seen                                     |
      | page  | testsite/chatapp-lib.json       | 6000   | Tell me something long | This is a long answer                    |
      | wall  | testsite/chatapp-lib-wall.json  | 1500   | Please stall           | I am thinking about this very carefully. |

  @LIB-5
  Scenario Outline: A failure shown as a toast outside the thread ends the answer ANSWER_FAILED, and Retry by selector is the new answer (<clock> clock)
    Given the site "<profile>"
    When I open "/app/?lib=1&load=0"
    And I send "Please fail"
    And I wait for the answer
    Then the answer status is "ANSWER_FAILED"
    And the answer evidence mentions "page failure signal selector"
    When I retry the answer
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Nova read your 2-word message and has this to say: thank you for writing."
    And the answer group is the last group on the page

    Examples:
      | clock | profile                         |
      | page  | testsite/chatapp-lib.json       |
      | wall  | testsite/chatapp-lib-wall.json  |

  @LIB-5
  Scenario Outline: A send waits for a Send button the page enables late, and one never enabled is CONTROL_DISABLED (<clock> clock)
    Given the site "<profile>"
    When I open "/app/?lib=1&load=0&sendlate=400"
    And I send "What is the capital of France?"
    And I wait for the answer
    Then the answer text is "The capital of France is Paris, on the Seine."
    When I open "/app/?lib=1&load=0&sendlate=never"
    And I send "What is the capital of France?"
    Then the action is refused with "CONTROL_DISABLED"

    Examples:
      | clock | profile                         |
      | page  | testsite/chatapp-lib.json       |
      | wall  | testsite/chatapp-lib-wall.json  |

  @LIB-5
  Scenario Outline: One Regenerate and one Copy per answer: scoped to the newest answer, they are not ambiguous (<clock> clock)
    Given the site "<profile>"
    When I open "/app/?lib=1&load=0"
    And I send "What is the capital of France?"
    And I wait for the answer
    And I click the button "Copy" expecting the text "Copied"
    Then the action is refused with "TARGET_AMBIGUOUS"
    When I click the button "Copy" in the newest answer expecting the text "Copied m2"
    Then the action ends with "ok"
    When I regenerate the answer
    And I wait for the answer
    Then the answer status is "complete"
    And the answer text is "Paris is the capital of France."
    And the answer group is the last group on the page

    Examples:
      | clock | profile                         |
      | page  | testsite/chatapp-lib.json       |
      | wall  | testsite/chatapp-lib-wall.json  |

  @LIB-5
  Scenario: Without the scope the profile's Regenerate is ambiguous on a page with one per answer
    Given the site "testsite/chatapp-lib-unscoped.json"
    When I open "/app/?lib=1&load=0"
    And I send "What is the capital of France?"
    And I wait for the answer
    And I regenerate the answer
    Then the action is refused with "TARGET_AMBIGUOUS"
