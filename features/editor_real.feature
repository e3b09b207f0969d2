Feature: The editor, for real
  `replaylab lsp` works in a real editor client: Debian's Neovim (0.7 or
  later), headless, with its built-in LSP client and no plugin (the setup
  docs/qa.md shows). The scenario opens a feature file of a scratch
  project in Neovim, and Neovim's own client starts the language server
  and reads what it answers. Without nvim on PATH the scenario is skipped
  (apt-get install neovim); in CI it fails.

  @ECO-3
  Scenario: Neovim flags a typo, completes a step and goes to its definition
    Given a feature file "editor.feature" with:
      """
      Feature: In the editor
        Scenario: Typo
          When I opne the sim page "/duplicates"
          Then the page text contains "Archive"
          When I open the s
      """
    When Neovim opens "editor.feature", completes at the end of line 5 and goes to the definition on line 4
    Then Neovim shows the step on line 3 as undefined, closest first "When I open the sim page "/sidebar""
    And Neovim's completion offers "I open the sim page "/sidebar"" as the snippet "I open the sim page "${1:/sidebar}"$0"
    And Neovim's go to definition lands on a Go function
