@LIB-6
Feature: Validating adapters for chat UI libraries
  A team that builds its chat page on a chat UI library validates its
  adapter over the sessions it recorded. recordings/library-validate/ holds
  two such projects, copied from the zoo (zoo/chatscope, zoo/aisdk): the
  library's profile and adapter, sessions recorded with record --send and
  by its scenarios, and in broken/ one planted mistake per file. The
  correct profile gives no violation, whatever the library's page does
  (Stop on the Send button's place, an answer regenerated in place, a
  send's turns arriving captures after the click); each planted mistake
  is named by the check that describes it (the full tables, over every
  zoo session, are zoo/planted_test.go and engine/conformance's tests).

  Scenario Outline: The correct profile of a library gives no violation
    Then validating the recording "recordings/library-validate/<lib>/sessions/<session>.json" with the site "recordings/library-validate/<lib>/<lib>.json" passes

    Examples:
      | lib       | session             |
      | chatscope | record-send         |
      | chatscope | stop                |
      | chatscope | error               |
      | chatscope | regenerate-in-place |
      | aisdk     | record-send         |
      | aisdk     | stop                |
      | aisdk     | regenerate          |

  Scenario Outline: A planted adapter mistake is named by its check
    Then validating the recording "recordings/library-validate/<lib>/sessions/<session>.json" with the site "recordings/library-validate/<lib>/<lib>.json" and the adapter "recordings/library-validate/<lib>/broken/<adapter>.adapter.json" reports "<check>"

    Examples:
      | lib       | adapter             | check               | session     |
      | chatscope | unmapped-error      | error-as-complete   | error       |
      | chatscope | stopped-unmapped    | stopped-as-complete | stop        |
      | chatscope | container-turns     | container-turn      | record-send |
      | chatscope | swapped-speakers    | speakers-swapped    | record-send |
      | chatscope | same-id             | duplicate-group-id  | record-send |
      | aisdk     | container-turns     | container-turn      | record-send |
      | aisdk     | missing-id          | position-id         | record-send |
      | aisdk     | forgotten-assistant | speaker-unknown     | record-send |

  Scenario Outline: A planted profile mistake is named by its check
    Then validating the recording "recordings/library-validate/<lib>/sessions/<session>.json" with the site "recordings/library-validate/<lib>/broken/<profile>.json" reports "<check>"

    Examples:
      | lib       | profile          | check                   | session     |
      | chatscope | generating-stuck | generating-never-clears | record-send |
      | chatscope | send-by-enter    | send-by                 | record-send |
      | chatscope | send-misnamed    | no-sends                | record-send |
      | chatscope | stop-misnamed    | stop-control            | stop        |
      | aisdk     | generating-stuck | generating-never-clears | record-send |
      | aisdk     | send-by-enter    | send-by                 | record-send |
      | aisdk     | send-misnamed    | no-sends                | record-send |
      | aisdk     | ready-never      | never-ready             | record-send |

  Scenario Outline: In a project of its own, validate exits 0 with the correct profile and names each planted mistake (<case>)
    Given the scratch project holds a copy of the repository's "recordings/library-validate/chatscope"
    When I run replaylab with "validate --quiet --site recordings/library-validate/chatscope/<profile>.json <adapter> recordings/library-validate/chatscope/sessions"
    Then the run exits <exit>
    And the run output mentions "<says>"

    Examples:
      | case                   | profile                 | adapter                                                                            | exit | says                      |
      | the correct profile    | chatscope               |                                                                                    | 0    | conformance: ok           |
      | an unmapped error      | chatscope               | --adapter recordings/library-validate/chatscope/broken/unmapped-error.adapter.json   | 1    | [error-as-complete]       |
      | an unmapped stop       | chatscope               | --adapter recordings/library-validate/chatscope/broken/stopped-unmapped.adapter.json | 1    | [stopped-as-complete]     |
      | a container turn       | chatscope               | --adapter recordings/library-validate/chatscope/broken/container-turns.adapter.json  | 1    | [container-turn]          |
      | a signal never cleared | broken/generating-stuck |                                                                                    | 1    | [generating-never-clears] |
      | send.by switched       | broken/send-by-enter    |                                                                                    | 1    | [send-by]                 |
