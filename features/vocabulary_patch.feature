Feature: Many clicks on Generate patch make one job
  A double click is not the only burst a patch page sees: a triple click
  and any number of clicks at once on one page load send the same
  idempotency key, so the ledger makes one job.

  @LED-1
  Scenario: A triple-clicked Generate patch makes one job
    Given provider "primary" will hold its answer
    When alice opens a new patch page and triple-clicks "Generate patch"
    Then exactly one job was created for the 3 requests
    And the job has 1 attempt

  @LED-1
  Scenario: Eight clicks at once on Generate patch make one job
    Given provider "primary" will hold its answer
    When bob opens a new patch page and clicks "Generate patch" 8 times at once
    Then exactly one job was created for the 8 requests
    And the job has 1 attempt
    When bob refreshes the patch page of the job
    Then the patch page offers "Cancel"
