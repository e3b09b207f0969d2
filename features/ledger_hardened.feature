Feature: The ledger, hardened: nothing stranded, keys that outlive the process, every route bounded, a sign-in that resists
  SPEC §17. Like every ledger scenario these start their own sim with the
  real ledger and talk HTTP to it, so the trace is the same under the
  replay and the browser drivers and on both stores. The heavy proof is in
  the Go suite: sim TestCrashNothingStranded (a sim killed with SIGKILL
  again and again under mixed load with held answers), ledger
  TestPostgresRestartUnderLoad and TestPostgresConnectionsTerminatedUnderLoad
  (57P01 under load), TestSQLiteWriterDoesNotBlockReads (another process
  holds the write lock), sim TestEveryRouteBounded (slowloris on every
  route) and TestSignInResists (brute force, 1,024 sign-ins by one user).

  @LED-14
  Scenario Outline: Work sent and held when the process dies is re-sent after the restart, stored in <store>
    Given the ledger is stored in "<store>"
    And provider "primary" will hold its answer
    When alice creates a job with key "k-held" and input {"task":"patch"}
    Then the job is "running"
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

  @LED-14
  Scenario: An answer whose callback was lost is reconciled by asking the provider
    Given provider "primary" will hold its answer
    When alice creates a job with key "k-lost-callback" and input {"task":"patch"}
    And the provider answers attempt 1 but its callback is lost
    Then the job is "running"
    When the sweeper runs
    Then attempt 1 was recovered as "reconciled"
    And the job is "completed"
    And the winner is attempt 1
    And the job's events explain the recovery

  @LED-14
  Scenario: Work the provider lost twice after its send is a definite failure, and the owner's retry is answered
    Given provider "primary" will hold its answer
    When alice creates a job with key "k-lost-twice" and input {"task":"patch"}
    And the sim restarts and provider "primary" loses its work again
    Then attempt 1 was recovered as "resent"
    And attempt 1 is "starting"
    When the sweeper runs
    Then attempt 1 was recovered as "no_record"
    And attempt 1 is "failed"
    And the job is "needs_review"
    When alice asks for another attempt with provider "primary"
    Then the response is 201
    And the winner is attempt 2

  @LED-15
  Scenario Outline: Generate patch never hands out a key again after a restart, stored in <store>
    Given the ledger is stored in "<store>"
    When alice opens a new patch page and double-clicks "Generate patch"
    Then exactly one job was created for the 2 requests
    When the sim restarts
    And alice opens a new patch page and double-clicks "Generate patch"
    Then exactly one job was created for the 2 requests
    And the patch page keys so far are all different

    Examples:
      | store    |
      | sqlite   |
      | postgres |

  @LED-16
  Scenario Outline: A store held by another writer answers reads at once and writes 503 with Retry-After, stored in <store>
    Given the ledger's store waits at most 1000 ms
    And the ledger is stored in "<store>"
    When alice creates a job with key "k-before" and input {"task":"patch"}
    Then the response is 201
    When another connection holds the ledger's write lock
    And alice fetches the job
    Then the response is 200
    When alice creates a job with key "k-during" and input {"task":"patch"}
    Then the response is 503 "STORE_BUSY"
    And the response says when to retry
    When the write lock is released
    And alice creates a job with key "k-during" and input {"task":"patch"}
    Then the response is 201

    Examples:
      | store    |
      | sqlite   |
      | postgres |

  @LED-16
  Scenario Outline: Every route answers a trickled request and closes it within its limit: <what> to <path>
    Given the sim bounds reads of headers and bodies at 300 ms
    When a client trickles <what> to "<path>" one byte every 100 ms
    Then the server answered <status> and closed the connection within its limit

    Examples:
      | what        | path          | status |
      | its headers | /chat         | 408    |
      | its headers | /             | 408    |
      | its headers | /no-such-page | 408    |
      | a body      | /no-such-page | 404    |
      | a body      | /api/jobs     | 408    |

  @LED-17
  Scenario: Guessing tokens is answered 429 with Retry-After, and another client still signs in
    When a client at 127.0.0.2 guesses 8 wrong tokens
    Then the first 5 guesses were refused 401 and the rest 429 with Retry-After
    When alice signs in to the patch page from 127.0.0.3
    Then alice's patch page still shows her signed in

  @LED-17
  Scenario: Many sign-ins by one user never end another user's session
    When alice signs in to the patch page
    And bob signs in to the patch page 40 times
    Then alice's patch page still shows her signed in

  @LED-17
  Scenario: Sign out ends the session
    When alice signs in to the patch page
    And alice signs out of the patch page
    Then alice's old session signs nobody in

  @LED-17
  Scenario: A DNS-rebinding Host is refused and pages forbid framing
    When a page that rebinds "evil.example" to the sim opens "/patch"
    Then the response is 421 "HOST_REFUSED"
    When a page that rebinds "localhost" to the sim opens "/patch"
    Then the response is 200
    And "/patch" forbids framing
    And "/patch/session/end" forbids framing
