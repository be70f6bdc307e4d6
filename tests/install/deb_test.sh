#!/usr/bin/env bash
# deb_test.sh SOURCE_DIR BUILD_DIR: runs the README's `cpack` line (the Debian package), checks
# the package file the README's install line names was written, unpacks it with dpkg-deb -x,
# runs the command from there, and checks Depends names the runtime libraries it links.
# Exit 77 (skipped) where dpkg-deb or dpkg-shlibdeps (dpkg-dev) is missing.
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
for tool in dpkg-deb dpkg-shlibdeps; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not installed (apt-get install dpkg-dev)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/install/readme_install.sh"

mkdir -p "$tmp/work"
ln -s "$build" "$tmp/work/build"
cmds=$(ReadmeInstallCommands "$src/README.md")
pack=$(grep '^cpack ' <<<"$cmds" || true)
[[ -n $pack ]] || { echo "FAIL: the README's Install section has no 'cpack' line"; exit 1; }
(cd "$tmp/work" && bash -euo pipefail -c "$pack") >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; exit 1; }
# The README installs ./stepdoctor_<version>_<arch>.deb: the file the cpack line wrote.
deb=$(grep -o '\./stepdoctor_[^ ]*\.deb' <<<"$cmds" | head -1)
[[ -n $deb && -f $tmp/work/$deb ]] || { echo "FAIL: the README installs '$deb', cpack wrote: $(ls "$tmp/work")"; exit 1; }
deb="$tmp/work/$deb"

dpkg-deb -x "$deb" "$tmp/root"
for f in usr/bin/stepdoctor usr/share/man/man1/stepdoctor.1 usr/share/bash-completion/completions/stepdoctor; do
  [[ -f $tmp/root/$f ]] || { echo "FAIL: not in the package: $f"; exit 1; }
done
version=$("$tmp/root/usr/bin/stepdoctor" --version)
echo "version: $version"
[[ $version == "stepdoctor $(dpkg-deb -f "$deb" Version) ("*")" ]] || { echo "FAIL: --version"; exit 1; }
verdict=$("$tmp/root/usr/bin/stepdoctor" diagnose "$src/examples/dataloader_input_bound.pt.trace.json.gz" | head -1)
[[ $verdict == input-bound* ]] || { echo "FAIL: verdict from the package: $verdict"; exit 1; }

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libprotobuf libfmt libdeflate; do
  [[ $depends == *"$lib"* ]] || { echo "FAIL: Depends lacks $lib"; exit 1; }
done
echo "PASS"
