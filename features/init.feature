@AUTH-1
Feature: A new site in one command
  `replaylab init URL` opens a chat page, finds the composer and the send
  control, sends one message, records what appears and infers the site's
  profile and adapter from the recording, with the evidence and a
  confidence for each field; it writes them with the session and a report
  and validates the adapter over its own session. `init --from
  SESSION.json` makes the same inference from a session recorded before,
  offline: these scenarios run it in a scratch project on recorded sessions
  of the test site and of two chat UI libraries of the zoo (one in open
  shadow roots, one without message ids). Live runs of `init` on the sim
  are in cmd/replaylab (TestInitLive).

  Scenario: A recorded send on the test site becomes a profile and an adapter that validate accepts
    Given the scratch project holds a copy of the repository's "testsite/recordings/send/session.json"
    When I run replaylab with "init --from testsite/recordings/send/session.json --out sites/testsite --name testsite --base-url http://127.0.0.1:8700"
    Then the run exits 0
    And the run output mentions "| turn.selector | div.msg | <#log> gained the user's turn and the answer after the send; 6 turns match, nothing else | high |"
    And the run output mentions "| stop | button "
    And the run output mentions "18 captures, 2 sends, 0 violations."
    And the scratch file "sites/testsite/testsite.adapter.json" holds:
      """
      {
        "version": 2,
        "name": "testsite",
        "turn": {
          "selector": "div.msg",
          "speaker": {
            "selector": "img.avatar",
            "attribute": "alt",
            "assistant": [
              "nova"
            ],
            "user": [
              "you"
            ]
          },
          "id": {
            "attribute": "data-mid",
            "kind": "stable"
          }
        },
        "states": {
          "generating": {
            "selectors": [
              "span.cursor"
            ]
          }
        }
      }

      """
    When I run replaylab with "validate --quiet --site sites/testsite/testsite.json sites/testsite"
    Then the run exits 0

  Scenario: A library without message ids gets declared position ids
    Given the scratch project holds a copy of the repository's "engine/infer/testdata/chatscope.session.json"
    When I run replaylab with "init --from engine/infer/testdata/chatscope.session.json --out sites/chatscope"
    Then the run exits 0
    And the run output mentions "| turn.id | kind position | no attribute of the turns holds one value per turn that stays the same from capture to capture | medium |"
    And the run output mentions "| turn.speaker | aria-label: user [you], assistant [kit] |"
    And the run output mentions "| regenerate | button "
    And the run output mentions "0 violations."

  Scenario: A widget in open shadow roots is read as if the roots were not there
    Given the scratch project holds a copy of the repository's "engine/infer/testdata/deepchat.session.json"
    When I run replaylab with "init --from engine/infer/testdata/deepchat.session.json --out sites/deepchat"
    Then the run exits 0
    And the run output mentions "| shadow roots | <deep-chat> | the turns are inside the custom element <deep-chat>"
    And the run output mentions "| turn.selector | div.outer-message-container |"
    And the run output mentions "Send becomes Stop"
    And the run output mentions "6 captures, 1 sends, 0 violations."

  Scenario: An adapter that validate refuses over init's own session exits 6 naming the violations
    # a deep-chat send session recorded before shadow roots were tracked:
    # its first answer is never seen complete before the next send
    Given the scratch project holds a copy of the repository's "engine/infer/testdata/deepchat-before-shadow-tracking.session.json"
    When I run replaylab with "init --from engine/infer/testdata/deepchat-before-shadow-tracking.session.json --out sites/deepchat"
    Then the run exits 6
    And the run output mentions "ERROR [never-generating]"
    And the run output mentions "validate found 2 violations of the inferred adapter over its own session"
    And the run output mentions "replaylab validate --site sites/deepchat/deepchat.json sites/deepchat"

  Scenario: A session without a send is no ground for an inference
    Given the scratch project holds a copy of the repository's "recordings/sessions/chatapp/a-page-that-never-gets-ready-fails-naming-what-was-awaited.json"
    When I run replaylab with "init --from recordings/sessions/chatapp/a-page-that-never-gets-ready-fails-naming-what-was-awaited.json --out sites/x"
    Then the run exits 5
    And the run output mentions "infer: cannot infer: nothing was typed in the session"

  Scenario: An output directory that holds files is kept unless --force
    Given the scratch project holds a copy of the repository's "testsite/recordings/send/session.json"
    And a feature file "mine.feature" with:
      """
      Feature: Mine
      """
    When I run replaylab with "init --from testsite/recordings/send/session.json --out features"
    Then the run exits 2
    And the run output mentions "--out features exists and holds files; choose another directory (--out DIR) or overwrite: add --force"

  Scenario: A URL that is no page's is refused before a browser starts
    When I run replaylab with "init ftp://example.com/chat"
    Then the run exits 2
    And the run output mentions "is not a page's URL: want http:// or https:// and a host"
