Feature: Media belongs to the answer group (stale video)
  For an image or video request, completion needs the media ready inside the
  new group. A playable video in an older group is no evidence: the wait ends
  MEDIA_NOT_READY at its deadline. The control case, ready media in the new
  group, completes.

  @ANS-6
  Scenario Outline: A ready <media> in an older group is not evidence (<style>)
    Given a <style>-style chat with 4 earlier turns
    And the last earlier answer has a ready <media>
    And the next answer completes as "Here is your <media>." after 300 ms with a <media> that never loads
    When I open the chat
    And I send "Make a <media>"
    And I wait up to 2000 ms for the answer with a <media>
    Then the answer status is "MEDIA_NOT_READY"

    Examples:
      | style   | media |
      | marker  | video |
      | heading | video |
      | marker  | image |

  @ANS-6
  Scenario Outline: Control: a <media> that becomes ready inside the new group completes (<style>)
    Given a <style>-style chat with 4 earlier turns
    And the last earlier answer has a ready <media>
    And the next answer completes as "Here is your <media>." after 300 ms with a <media> that is ready 600 ms later
    When I open the chat
    And I send "Make a <media>"
    And I wait up to 8000 ms for the answer with a <media>
    Then the answer status is "complete"
    And the answer text is "Here is your <media>."

    Examples:
      | style   | media |
      | marker  | video |
      | heading | video |
      | marker  | image |
