# find-memdown.sh: THE lookup of the memdown installation, sourced (never run)
# by the hook shim (hooks/memdown-hook) and by the plugin's PATH launcher
# (bin/memdown), so both always use the same memdown. POSIX sh, builtins only:
# hooks run on every prompt, so no subprocess is started here.
#
# Callers set `memdown_root` (the plugin folder) first, then call
# `memdown_find`. It sets:
#   memdown_bin   the memdown to run ("" when none is installed)
#   memdown_data  the plugin's data folder (where the bootstrap puts its venv)
#   memdown_py, memdown_site   set when memdown_bin lives in a regular venv:
#                 `memdown_exec` then starts that venv's python with -I -S and
#                 imports memdown straight from site-packages, skipping the
#                 console script and site.py's work (tens of ms per hook).
# Order:
#   1. $MEMDOWN_BIN (a path or a command name)
#   2. the plugin's own venv: ${CLAUDE_PLUGIN_DATA}/venv (hooks get that
#      variable; the Bash tool does not, so the data folder is derived from
#      the plugin folder the way Claude Code names it)
#   3. memdown on PATH (pip, pipx, uv), skipping the plugin's own bin/memdown

memdown_plugin_data() {
  if [ -n "${CLAUDE_PLUGIN_DATA:-}" ]; then
    memdown_data=$CLAUDE_PLUGIN_DATA
    return
  fi
  # Marketplace installs live in <plugins>/cache/<marketplace>/<plugin>/<version>/
  # and keep data in <plugins>/data/<plugin>-<marketplace>/; a --plugin-dir
  # plugin is "<plugin>@inline", so its data is <plugins>/data/memdown-inline/.
  _v=${memdown_root%/}; _p=${_v%/*}; _m=${_p%/*}; _c=${_m%/*}
  if [ "${_c##*/}" = cache ] && [ -n "${_m##*/}" ]; then
    memdown_data=${_c%/*}/data/${_p##*/}-${_m##*/}
  else
    memdown_data=${CLAUDE_CONFIG_DIR:-${HOME:-}/.claude}/plugins/data/memdown-inline
  fi
}

memdown_venv_of() {  # $1 = a memdown console script; sets memdown_py/memdown_site if it sits in a venv
  memdown_py= memdown_site=
  case $1 in */bin/memdown) ;; *) return ;; esac
  _venv=${1%/bin/memdown}
  [ -f "$_venv/pyvenv.cfg" ] && [ -x "$_venv/bin/python" ] || return
  for _sp in "$_venv"/lib/python3*/site-packages; do
    if [ -f "$_sp/memdown/entry.py" ]; then
      memdown_py=$_venv/bin/python memdown_site=$_sp
      return
    fi
  done
}

memdown_find() {
  memdown_bin=
  memdown_plugin_data
  if [ -n "${MEMDOWN_BIN:-}" ]; then
    case $MEMDOWN_BIN in
      */*) [ -x "$MEMDOWN_BIN" ] && [ ! -d "$MEMDOWN_BIN" ] && memdown_bin=$MEMDOWN_BIN ;;
      *) command -v "$MEMDOWN_BIN" >/dev/null 2>&1 && memdown_bin=$MEMDOWN_BIN ;;
    esac
    [ -n "$memdown_bin" ] || echo "memdown: MEMDOWN_BIN=$MEMDOWN_BIN is not executable; looking elsewhere" >&2
  fi
  # (-x follows the venv's python symlink: a venv whose interpreter was
  # removed by a system upgrade counts as absent and is rebuilt.)
  if [ -z "$memdown_bin" ] && [ -x "$memdown_data/venv/bin/memdown" ] && [ -x "$memdown_data/venv/bin/python" ]; then
    memdown_bin=$memdown_data/venv/bin/memdown
  fi
  if [ -z "$memdown_bin" ]; then
    _self=${memdown_root%/}/bin/memdown
    _rest=${PATH:-}
    while [ -n "$_rest" ]; do
      _dir=${_rest%%:*}
      case $_rest in *:*) _rest=${_rest#*:} ;; *) _rest= ;; esac
      [ -n "$_dir" ] || continue
      if [ -x "$_dir/memdown" ] && [ ! -d "$_dir/memdown" ] && ! [ "$_dir/memdown" -ef "$_self" ]; then
        memdown_bin=$_dir/memdown
        break
      fi
    done
  fi
  memdown_venv_of "$memdown_bin"
}

memdown_exec() {  # run memdown with "$@"; the caller decides what its exit status means
  if [ -n "$memdown_site" ]; then
    "$memdown_py" -I -S -c 'import sys; sys.path.append(sys.argv.pop(1)); from memdown.entry import main; main()' \
      "$memdown_site" "$@"
  else
    "$memdown_bin" "$@"
  fi
}
