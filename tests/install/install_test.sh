#!/usr/bin/env bash
# install_test.sh SOURCE_DIR BUILD_DIR: runs the README's `cmake --install` line into a
# temporary home, checks what it installed (command, man page, bash completion, library,
# headers, CMake package), then builds tests/install/consumer against it with
# find_package(stepdoctor) and checks its verdict on the bundled example.
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/install/readme_install.sh"

# The README's commands, run in a folder where `build` is this build, with HOME moved so
# `~/.local` lands in the temporary folder.
mkdir -p "$tmp/home" "$tmp/work"
ln -s "$build" "$tmp/work/build"
cmds=$(ReadmeInstallCommands "$src/README.md" | grep '^cmake --install' || true)
[[ -n $cmds ]] || { echo "FAIL: the README's Install section has no 'cmake --install' line"; exit 1; }
(cd "$tmp/work" && HOME="$tmp/home" bash -euo pipefail -c "$cmds") >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; exit 1; }
prefix="$tmp/home/.local"

for f in bin/stepdoctor share/man/man1/stepdoctor.1 share/bash-completion/completions/stepdoctor \
         lib/libstepdoctor.a include/stepdoctor/importers/import_paths.h include/stepdoctor/analysis/analyze.h \
         include/stepdoctor/render/render.h lib/cmake/stepdoctor/stepdoctorConfig.cmake \
         lib/cmake/stepdoctor/stepdoctorConfigVersion.cmake lib/cmake/stepdoctor/stepdoctorTargets.cmake; do
  [[ -f $prefix/$f ]] || { echo "FAIL: not installed: $f"; exit 1; }
done

# The man page documents every subcommand --help lists.
help=$("$prefix/bin/stepdoctor" --help)
subs=$(awk '/^(SUBCOMMANDS|Subcommands):$/{s=1; next} s && /^ / {print $1; next} {s=0}' <<<"$help")
[[ -n $subs ]] || { echo "FAIL: no subcommands in --help"; exit 1; }
for s in $subs; do
  roff=${s//-/\\-}  # roff spells a hyphen \- (io-bench)
  grep -qxF ".SS $roff" "$prefix/share/man/man1/stepdoctor.1" || { echo "FAIL: man page lacks $s"; exit 1; }
done

# The completion offers the subcommands, then a subcommand's options.
complete_words() {  # complete_words WORD... : what bash completion offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _stepdoctor; echo "${COMPREPLY[*]}"' \
    _ "$prefix/share/bash-completion/completions/stepdoctor" stepdoctor "$@"
}
[[ $(complete_words diag) == diagnose ]] || { echo "FAIL: 'diag' completes to '$(complete_words diag)'"; exit 1; }
[[ " $(complete_words diagnose --fo) " == *" --format "* ]] || { echo "FAIL: no --format after diagnose"; exit 1; }

# A project of its own, built against the installed package.
{ cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" &&
  ninja -C "$tmp/consumer"; } >"$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; exit 1; }
verdict=$("$tmp/consumer/consumer" "$src/examples/dataloader_input_bound.pt.trace.json.gz")
echo "consumer: $verdict"
[[ $verdict == input-bound* ]] || { echo "FAIL: the consumer's verdict is not input-bound"; exit 1; }
echo "PASS"
