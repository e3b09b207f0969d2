Feature: Seeded explorer: one seed drives every choice; a failure replays and shrinks
  `replaylab explore` (package explore) draws a schedule of steps from a seed
  — concurrent duplicate creates, provider timeouts after sending, failures,
  held answers delivered first, late or twice, reviewer supersessions,
  cancels, rollbacks and restarts of the store — and runs it against the
  real ledger in a fresh SQLite file or PostgreSQL schema with the sim's
  providers, checking the invariants of SPEC §6 after every step. The trace
  holds every step a run printed, so this scenario's golden also says that
  a seed's run is the same on every machine, run and store. Answer cases
  are scripted chat pages built from the sim's turn markup whose transitions run
  on the lab clock (engine/clock); the engine waits for the new answer there,
  recording, and again from the recording under the replay driver.

  @EXP-1
  Scenario: A seed's run reproduces exactly, on SQLite and on PostgreSQL
    Given this self-test runs with the live suite
    When the explorer runs seed 25 with 30 steps on "sqlite"
    And the explorer runs seed 25 with 30 steps on "sqlite" again
    Then the runs printed the same schedule and outcome
    And the run found no violation
    When the explorer runs seed 25 with 30 steps on "postgres"
    Then the runs printed the same schedule and outcome
    And the run found no violation

  @EXP-2
  Scenario: A planted bug is found within a few seeds and shrunk to the steps that show it
    Given this self-test runs with the live suite
    And the ledger is built with the planted bug "claim-without-check"
    When the explorer runs seeds 1 to 20 with 40 steps on "sqlite"
    Then the explorer reports a violation of "at most one winner" within 12 seeds
    And the shrunk schedule has at most 3 steps and still fails
    And the shrunk schedule passes on the real ledger

  @EXP-1
  Scenario: An answer wait on a scripted chat page reproduces exactly, on the lab clock and replayed
    The case of seed 7: a marker-style chat with 8 earlier turns streams its
    answer in partials, loads an earlier exchange above the baseline while
    the engine waits, and is still generating at the deadline: the wait
    ends ANSWER_INCOMPLETE on the new group, never on the loaded one.
    When the explorer runs answer case 1 of seed 7
    And the explorer runs answer case 1 of seed 7 again
    Then the answer runs printed the same line
    And the answer wait kept every invariant
