@APP-4
Feature: Validating a real chat app without false alarms
  The chat app's correct profile (testsite/chatapp.json) gives no violation
  over the sessions of its scenarios: a click into the composer, Stop,
  Regenerate and Retry are no sends, a regenerated answer's new id is no
  unstable id, and the loading skeleton is not checked for a composer.
  Each planted mistake in testsite/chatapp-broken/ is named by its check
  (the full table, over every session, is engine/conformance's test).

  Scenario Outline: The correct profile passes over every kind of session
    Then validating the recording "recordings/sessions/chatapp/<session>.json" with the site "testsite/chatapp.json" passes

    Examples:
      | session                                                                                 |
      | a-send-before-the-page-is-ready-is-refused-and-goes-through-once-it-is                 |
      | a-regenerated-answer-replaces-the-old-one-in-place-and-is-the-new-answer               |
      | an-error-shown-in-the-answer-is-answer-failed-and-a-retry-is-the-new-answer            |
      | the-site-s-own-error-signal-a-usage-limit-note-is-answer-failed-on-the-second-persona  |
      | a-stopped-answer-is-answer-stopped-and-the-stop-is-no-send                             |
      | a-page-that-never-gets-ready-fails-naming-what-was-awaited                             |

  Scenario Outline: A planted adapter mistake is named
    Then validating the recording "recordings/sessions/chatapp/<session>.json" with the site "testsite/chatapp.json" and the adapter "testsite/chatapp-broken/<adapter>.adapter.json" reports "<check>"

    Examples:
      | adapter             | check                 | session                                                                                |
      | unmapped-error      | error-as-complete     | the-site-s-own-error-signal-a-usage-limit-note-is-answer-failed-on-the-second-persona |
      | toolbar-in-text     | control-text          | an-answer-streamed-over-fetch-is-followed-to-its-end                                   |
      | sidebar-turns       | turn-without-speaker  | an-answer-streamed-over-fetch-is-followed-to-its-end                                   |
      | forgotten-assistant | speaker-unknown       | an-answer-streamed-over-fetch-is-followed-to-its-end                                   |
      | swapped-speakers    | speakers-swapped      | an-answer-streamed-over-fetch-is-followed-to-its-end                                   |
      | same-id             | duplicate-group-id    | an-answer-streamed-over-fetch-is-followed-to-its-end                                   |
      | media-nothing       | media-uncovered       | a-picture-that-loads-late-is-waited-for-inside-the-answer                              |

  Scenario Outline: A planted profile mistake is named
    Then validating the recording "recordings/sessions/chatapp/<session>.json" with the site "testsite/chatapp-broken/<profile>.json" reports "<check>"

    Examples:
      | profile            | check                 | session                                                          |
      | thinking-only      | streaming-ended-early | an-answer-streamed-over-fetch-is-followed-to-its-end             |
      | generating-nothing | never-generating      | an-answer-streamed-over-fetch-is-followed-to-its-end             |
      | stop-misnamed      | stop-control          | an-answer-streamed-over-fetch-is-followed-to-its-end             |
      | composer-misnamed  | composer              | an-answer-streamed-over-fetch-is-followed-to-its-end             |
      | ready-too-early    | ready-too-early       | a-thread-that-loads-late-is-read-once-it-is-ready-never-half-loaded |
      | ready-never        | never-ready           | an-answer-streamed-over-fetch-is-followed-to-its-end             |
