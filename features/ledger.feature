Feature: Ledger: one intention, many provider attempts
  Every scenario starts its own sim with the real ledger (ledger) in a
  SQLite file (or a fresh PostgreSQL schema) and talks HTTP to its job API
  and its patch page as alice (owner), bob (owner) and rita (reviewer). The
  simulated providers do what each scenario scripts: answer, fail, time out
  after sending, or hold their answer until a step releases it, so the
  scenario chooses the order in which late callbacks arrive.

  Crash safety (LED-10: a process killed between steps loses no committed
  row and leaves no job without an explainable state) is proven in the Go
  suite, not here: ledger TestSQLiteCrashKeepsCommittedRows kills a
  writing child process with SIGKILL and checks every reported commit after
  reopening; the behaviour suite ledgertest.Run runs against SQLite and
  PostgreSQL (TestSQLiteStore, TestPostgresStore).

  @LED-1
  Scenario: Twenty identical creates in flight make one job
    When alice sends 20 concurrent creates with key "k-double" and input {"task":"patch","file":"a.go"}
    Then exactly one job was created for the 20 requests
    And the job has 1 attempt
    When alice creates a job with key "k-double" and input {"file": "a.go", "task": "patch"}
    Then the response is 200
    And the job has 1 attempt

  @LED-1
  Scenario: A double-clicked Generate patch makes one job
    Given provider "primary" will hold its answer
    When alice opens a new patch page and double-clicks "Generate patch"
    Then exactly one job was created for the 2 requests
    And the job has 1 attempt
    When alice creates a job without an idempotency key
    Then the response is 400 "IDEMPOTENCY_KEY_MISSING"

  @LED-2
  Scenario: The same key with other input is refused and changes nothing
    Given provider "primary" will hold its answer
    When alice creates a job with key "k1" and input {"task":"patch","file":"a.go"}
    Then the response is 201
    When alice creates a job with key "k1" and input {"task":"patch","file":"b.go"}
    Then the response is 422 "IDEMPOTENCY_KEY_REUSED"
    And the job is unchanged
    And the job has 1 attempt
    When bob creates a job with key "k1" and input {"task":"patch","file":"b.go"}
    Then the response is 201

  @LED-3
  Scenario: A timeout after sending leaves the attempt unknown, never failed
    Given provider "primary" will time out
    When alice creates a job with key "k-timeout" and input {"task":"patch"}
    Then the response is 201
    And attempt 1 is "unknown"
    And the job is "needs_review"
    And the job has no winner
    Given provider "primary" will fail with "provider said no"
    When alice creates a job with key "k-fail" and input {"task":"patch"}
    Then attempt 1 is "failed"
    And the job is "needs_review"

  @LED-4
  Scenario: Falling back while an attempt is unknown needs a reviewer's reason
    Given provider "primary" will time out with "patch A"
    And provider "fallback" will hold its answer with "patch B"
    When alice creates a job with key "k-review" and input {"task":"patch"}
    Then attempt 1 is "unknown"
    When alice asks for another attempt with provider "fallback"
    Then the response is 409 "REVIEW_REQUIRED"
    And the job is unchanged
    When alice asks for another attempt with provider "fallback" and reason "primary is stuck"
    Then the response is 403 "FORBIDDEN"
    And the job is unchanged
    When rita asks for another attempt with provider "fallback" and reason "primary timed out"
    Then the response is 201
    And the job has 2 attempts
    And attempt 1 is "superseded"
    And attempt 2 is "starting"
    And the job is "running"

  @LED-5
  Scenario Outline: Two attempts complete in order <first> then <second>: one winner
    Given provider "primary" will time out with "patch A"
    And provider "fallback" will hold its answer with "patch B"
    When alice creates a job with key "k-race" and input {"task":"patch"}
    And rita asks for another attempt with provider "fallback" and reason "primary timed out"
    Then the response is 201
    When the held answer of attempt <first> arrives
    And the held answer of attempt <second> arrives
    Then the winner is attempt 2
    And attempt 2 was reconciled as "applied"
    And attempt 1 was reconciled as "late_after_supersession"
    And attempt 1 keeps its output "patch A" for diagnostics
    When alice fetches the output
    Then the output is "patch B"

    Examples:
      | first | second |
      | 1     | 2      |
      | 2     | 1      |

  @LED-5
  Scenario: Two attempts complete at the same time: one winner
    Given provider "primary" will time out with "patch A"
    And provider "fallback" will hold its answer with "patch B"
    When alice creates a job with key "k-same-time" and input {"task":"patch"}
    And rita asks for another attempt with provider "fallback" and reason "primary timed out"
    And the held answers of attempts 1 and 2 arrive at the same time
    Then the winner is attempt 2
    And attempt 1 keeps its output "patch A" for diagnostics
    When a callback for attempt 2 arrives with status "succeeded" and output "patch B"
    Then attempt 2 was reconciled as "duplicate"
    And the winner is attempt 2

  @LED-6
  Scenario: After a refresh the patch page shows the controls the ledger allows
    Given provider "primary" will hold its answer with "patch A"
    When alice opens a new patch page and double-clicks "Generate patch"
    And alice refreshes the patch page of the job
    Then the patch page offers "Cancel"
    When rita opens the patch page of the job
    Then the patch page offers "Retry, Try another provider, Cancel"
    When the held answer of attempt 1 arrives
    And alice refreshes the patch page of the job
    Then the patch page offers "Output"
    When bob opens the patch page of the job
    Then the response is 404 "NOT_FOUND"

  @LED-7
  Scenario: Another owner cannot see or touch a job
    Given provider "primary" will succeed with "patch A"
    When alice creates a job with key "k-mine" and input {"task":"patch"}
    And bob fetches the job
    Then the response is 404 "NOT_FOUND"
    When bob fetches the output
    Then the response is 404 "NOT_FOUND"
    When bob asks for another attempt with provider "primary"
    Then the response is 404 "NOT_FOUND"
    When bob cancels the job
    Then the response is 404 "NOT_FOUND"
    And the job is unchanged
    When rita fetches the job
    Then the response is 200
    When alice fetches the output
    Then the output is "patch A"

  @LED-8
  Scenario: A late answer after a timeout is applied once
    Given provider "primary" will time out with "patch A"
    When alice creates a job with key "k-late" and input {"task":"patch"}
    Then attempt 1 is "unknown"
    When the held answer of attempt 1 arrives
    Then attempt 1 was reconciled as "late_after_timeout_applied"
    And the winner is attempt 1
    When a callback for attempt 1 arrives with status "succeeded" and output "patch A"
    Then attempt 1 was reconciled as "duplicate"
    When a callback for attempt 1 arrives with status "failed" and output "too late"
    Then attempt 1 was reconciled as "conflicting"
    And the winner is attempt 1

  @LED-8
  Scenario: A late answer after a cancel is recorded, not applied
    Given provider "primary" will time out with "patch A"
    When alice creates a job with key "k-cancel" and input {"task":"patch"}
    And alice cancels the job
    Then the response is 200
    And the job is "cancelled"
    When the held answer of attempt 1 arrives
    Then attempt 1 was reconciled as "after_cancel"
    And attempt 1 keeps its output "patch A" for diagnostics
    And the job has no winner
    And the job is "cancelled"

  @LED-8 @LED-4
  Scenario: A late answer after supersession is kept for review, never applied
    Given provider "primary" will time out with "patch A"
    And provider "fallback" will hold its answer with "patch B"
    When alice creates a job with key "k-super" and input {"task":"patch"}
    And rita asks for another attempt with provider "fallback" and reason "primary timed out"
    And the held answer of attempt 1 arrives
    Then attempt 1 was reconciled as "late_after_supersession"
    And attempt 1 is "superseded"
    And attempt 1 keeps its output "patch A" for diagnostics
    And the job has no winner
    When alice fetches the output
    Then the response is 409 "NO_WINNER"

  @LED-9
  Scenario: Rollback switches fallback off and deletes nothing
    Given provider "primary" will fail with "provider said no"
    And provider "primary" will succeed with "patch A2"
    When alice creates a job with key "k-rollback" and input {"task":"patch"}
    Then attempt 1 is "failed"
    Given fallback is switched off
    When alice asks for another attempt with provider "fallback"
    Then the response is 409 "FALLBACK_DISABLED"
    And the job is unchanged
    And no ledger row was deleted
    When alice asks for another attempt with provider "primary"
    Then the response is 201
    And the winner is attempt 2
    And no ledger row was deleted

  @LED-10
  Scenario Outline: The same ledger behaviour stored in <store>
    Given the ledger is stored in "<store>"
    And provider "primary" will time out with "patch A"
    And provider "fallback" will hold its answer with "patch B"
    When alice sends 8 concurrent creates with key "k-store" and input {"task":"patch"}
    Then exactly one job was created for the 8 requests
    And attempt 1 is "unknown"
    When alice asks for another attempt with provider "fallback"
    Then the response is 409 "REVIEW_REQUIRED"
    When rita asks for another attempt with provider "fallback" and reason "primary timed out"
    And the held answer of attempt 2 arrives
    And the held answer of attempt 1 arrives
    Then the winner is attempt 2
    And attempt 1 was reconciled as "late_after_supersession"
    And no ledger row was deleted

    Examples: embedded
      | store  |
      | sqlite |

    @postgres
    Examples: shared
      | store    |
      | postgres |
