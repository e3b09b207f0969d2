Feature: The ledger's trust boundary: callbacks that prove their attempt, no tokens in pages, recovery after a crash
  SPEC §13. Like every ledger scenario these start their own sim with the
  real ledger and talk HTTP to it, so the trace is the same under the replay
  and the browser drivers and on both stores. The heavy proof (storms,
  racing callbacks, 30 SIGKILLs per store, bad input, the ownership matrix)
  is in the Go suite: ledger TestTrust*.

  @LED-11
  Scenario: A callback without its attempt's own signature is refused and changes nothing
    Given provider "primary" will hold its answer
    When alice creates a job with key "k-cb" and input {"task":"patch"}
    And bob posts a callback for attempt 1 with his bearer token
    Then the response is 401 "CALLBACK_UNVERIFIED"
    And the job is unchanged
    When alice posts a callback for attempt 1 with her bearer token
    Then the response is 401 "CALLBACK_UNVERIFIED"
    And the job is unchanged
    When a callback for attempt 1 arrives unsigned
    Then the response is 401 "CALLBACK_UNVERIFIED"
    When a callback for attempt 1 arrives signed with a wrong secret
    Then the response is 401 "CALLBACK_UNVERIFIED"
    And the job is unchanged
    When a callback for attempt 1 arrives signed 10 minutes ago
    Then the response is 401 "CALLBACK_UNVERIFIED"
    And the job is unchanged
    When a callback for an attempt that does not exist arrives signed with attempt 1's secret
    Then the response is 401 "CALLBACK_UNVERIFIED"
    And the last two refusals are the same answer
    When a callback for attempt 1 arrives with status "succeeded" and output "patch A"
    Then the response is 200
    And the winner is attempt 1
    When alice fetches the output
    Then the output is "patch A"

  @LED-12
  Scenario: The patch page lists no token and signs in with an HttpOnly, SameSite cookie
    When a visitor opens the patch page
    Then the page shows no token and offers a sign-in form
    When a visitor opens the patch page with "token=alice-token" in the address
    Then the page shows no token and offers a sign-in form
    When alice signs in to the patch page
    Then the session cookie is HttpOnly and SameSite=Strict and holds no token

  @LED-12
  Scenario: A cross-site request cannot generate a patch
    When alice signs in to the patch page
    And a cross-site page makes alice's browser post Generate patch
    Then the response is 403 "CROSS_SITE_REFUSED"
    And no job was created
    When alice opens a new patch page and double-clicks "Generate patch"
    Then exactly one job was created for the 2 requests

  @LED-13
  Scenario Outline: Work lost in a crash is re-sent once after the restart, stored in <store>
    Given the ledger is stored in "<store>"
    And provider "primary" will lose its work in a crash
    When alice creates a job with key "k-crash" and input {"task":"patch"}
    Then the job is "accepted"
    And attempt 1 is "starting"
    When the sim restarts
    Then attempt 1 was recovered as "resent"
    And the job is "completed"
    And the winner is attempt 1
    And the job's events explain the recovery

    Examples:
      | store    |
      | sqlite   |
      | postgres |

  @LED-13
  Scenario: Work lost again after its re-send is made unknown, never failed
    Given provider "primary" will lose its work in a crash
    When alice creates a job with key "k-crash2" and input {"task":"patch"}
    And the sim restarts and provider "primary" loses its work again
    Then attempt 1 was recovered as "resent"
    And attempt 1 is "starting"
    When the sim restarts
    Then attempt 1 was recovered as "unknown"
    And attempt 1 is "unknown"
    And the job is "needs_review"
    And the job's events explain the recovery
