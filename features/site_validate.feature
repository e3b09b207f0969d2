Feature: Recordings of a site with sends, and validation that names the mistake
  testsite/recordings/send/session.json was made with
  replaylab record --site testsite/testsite.json --send … --send … (two sends);
  testsite/recordings/whole/session.json the same on the page with ?stream=0
  (--url …/?stream=0: each answer arrives whole, never streaming).

  @SITE-3 @SITE-4
  Scenario: A recording made with record --send validates with the correct profile (Stop replaces Send)
    Then validating the recording "testsite/recordings/send/session.json" with the site "testsite/testsite.json" passes

  @SITE-4 @APP-4
  Scenario: An answer that arrives whole is no mistake (never generating, correct profile)
    Then validating the recording "testsite/recordings/whole/session.json" with the site "testsite/testsite.json" passes

  @SITE-4
  Scenario Outline: Each adapter mistake is named (<mistake>)
    Then validating the recording "testsite/recordings/send/session.json" with the site "testsite/testsite.json" and the adapter "testsite/broken/<file>.adapter.json" reports "<check>"

    Examples:
      | mistake                   | file                | check              |
      | forgotten assistant name  | forgotten-assistant | send-turns         |
      | swapped speakers          | swapped-speakers    | speakers-swapped   |
      | missing id attribute      | missing-id          | position-id        |
      | the same id for all turns | same-id             | duplicate-group-id |
      | media rule matching none  | media-nothing       | media-uncovered    |

  @SITE-4
  Scenario: A generating signal that never matches is named
    Then validating the recording "testsite/recordings/send/session.json" with the site "testsite/broken/generating-nothing.json" reports "never-generating"
