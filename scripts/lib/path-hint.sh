# shellcheck shell=bash
# path_hint DIR: when DIR is not on this shell's PATH, says so and prints the line that puts it
# there, for the user's shell's start-up file. Prints nothing when DIR is already on PATH.
path_hint() {
  local dir="$1"
  case ":${PATH:-}:" in
    *":$dir:"*) return 0 ;;
  esac
  local rc="$HOME/.profile"
  case "${SHELL:-}" in
    */zsh) rc="$HOME/.zshrc" ;;
    */bash) rc="$HOME/.bashrc" ;;
  esac
  # Written with $HOME, so the line stays right if the home directory moves.
  local shown="$dir"
  case "$dir" in
    "$HOME"/*) shown="\$HOME/${dir#"$HOME"/}" ;;
  esac
  echo "==> note: $dir is not on your PATH, so \`assent\` is not found in this shell yet."
  echo "    Add it (once), then open a new terminal or run the second line:"
  echo "      echo 'export PATH=\"$shown:\$PATH\"' >> $rc"
  echo "      export PATH=\"$shown:\$PATH\""
}
