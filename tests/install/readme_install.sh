# Sourced by the install tests: ReadmeInstallCommands prints the command lines of the README's
# "## Install" section (the lines inside its ```sh blocks, comments and blanks dropped), so the
# tests run what the README tells users to run.
ReadmeInstallCommands() {
  awk '/^## /{ins = ($0 == "## Install")} ins && /^```/{code = !code && ($0 == "```sh"); next}
       ins && code && !/^[[:space:]]*(#|$)/' "$1"
}
